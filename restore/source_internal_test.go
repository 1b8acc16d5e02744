package restore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/archive"
)

// counted is src, counting in opens the times it is opened.
func counted(src Source, opens *atomic.Int32) Source {
	return func(ctx context.Context) (io.ReadCloser, error) {
		opens.Add(1)
		return src(ctx)
	}
}

// planBackups are two backups' objects: withPod holds a Pod, whose body names its ServiceAccount; withoutPod holds
// only ConfigMaps, whose bodies the plan need not read.
func planBackups() (withPod, withoutPod []*unstructured.Unstructured) {
	withPod = []*unstructured.Unstructured{
		testObject("v1", "ServiceAccount", "ns", "runner", "uid-sa", nil),
		testObject("v1", "Pod", "ns", "worker", "uid-pod", map[string]any{"spec": map[string]any{"serviceAccountName": "runner"}}),
		testObject("v1", "ConfigMap", "ns", "settings", "uid-cm", nil),
	}
	withoutPod = []*unstructured.Unstructured{
		testObject("v1", "ConfigMap", "ns", "settings", "uid-cm", nil),
		testObject("v1", "ConfigMap", "ns", "more", "uid-cm2", nil),
	}
	return withPod, withoutPod
}

// NewPlan opens the tarball once, whatever the sibling (none, unverified, verified: then
// only for the bodies), and the sibling manifest once; Run opens the tarball once more.
func TestNewPlanReadsTheTarballOnce(t *testing.T) {
	withPod, withoutPod := planBackups()
	target := []metav1.APIGroup{group("", "v1", "v1")}
	tests := []struct {
		name      string
		objs      []*unstructured.Unstructured
		sibling   string // "", "manifest" (WithSiblingManifest) or "verified" (WithSibling)
		planOpens int32
		deps      int // the references read from the bodies
	}{
		{"no sibling, a Pod", withPod, "", 1, 1},
		{"no sibling, only ConfigMaps", withoutPod, "", 1, 0},
		{"unverified sibling, a Pod", withPod, "manifest", 1, 1},
		{"unverified sibling, only ConfigMaps", withoutPod, "manifest", 1, 0},
		{"verified sibling, a Pod", withPod, "verified", 1, 1},
		{"verified sibling, only ConfigMaps", withoutPod, "verified", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			backup, sibling := backupWithSibling(t, tt.objs...)
			var opens, siblingOpens atomic.Int32
			var opts []PlanOption
			switch tt.sibling {
			case "manifest":
				opts = append(opts, WithSiblingManifest(counted(FromBytes(sibling), &siblingOpens)))
			case "verified":
				sib, err := archive.ReadSibling(t.Context(), bytes.NewReader(sibling))
				require.NoError(t, err)
				require.NoError(t, sib.Bind(int64(len(backup)), sha256.Sum256(backup)))
				opts = append(opts, WithSibling(sib))
			}
			plan, err := NewPlan(t.Context(), counted(FromBytes(backup), &opens), target, opts...)
			require.NoError(t, err)
			require.Equal(t, tt.planOpens, opens.Load(), "tarball opened by NewPlan")
			if tt.sibling == "manifest" {
				require.EqualValues(t, 1, siblingOpens.Load(), "sibling opened")
			}
			require.Len(t, plan.Dependencies, tt.deps)
			require.Equal(t, len(tt.objs), plan.Restorable())

			c, _ := fakeCluster(t)
			_, _, err = runEvents(t, plan, c)
			require.NoError(t, err)
			require.Equal(t, tt.planOpens+1, opens.Load(), "tarball opened once more by Run")
		})
	}
}

// The one pass that hashes the tarball and reads its bodies still refuses a sibling that
// was written for other bytes, whatever the scan made of them, and stops when ctx ends.
func TestNewPlanOnePassRefusesAnotherSibling(t *testing.T) {
	withPod, _ := planBackups()
	target := []metav1.APIGroup{group("", "v1", "v1")}
	backup, sibling := backupWithSibling(t, withPod...)
	_, otherSibling := backupWithSibling(t, append(withPod,
		testObject("v1", "Pod", "ns", "other", "uid-other", map[string]any{"spec": map[string]any{"serviceAccountName": "runner"}}))...)
	tests := []struct {
		name    string
		tarball []byte
		sibling []byte
	}{
		{"another backup's sibling", backup, otherSibling},
		{"a byte appended", append(bytes.Clone(backup), 0), sibling},
		{"cut in half", backup[:len(backup)/2], sibling},
		{"gzip trailer changed", append(bytes.Clone(backup[:len(backup)-1]), backup[len(backup)-1]^1), sibling},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opens atomic.Int32
			plan, err := NewPlan(t.Context(), counted(FromBytes(tt.tarball), &opens), target, WithSiblingManifest(FromBytes(tt.sibling)))
			require.ErrorIs(t, err, archive.ErrSiblingMismatch)
			require.Nil(t, plan)
			require.EqualValues(t, 1, opens.Load())
		})
	}

	t.Run("cancelled while reading", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		src := func(context.Context) (io.ReadCloser, error) {
			cancel()
			return io.NopCloser(bytes.NewReader(backup)), nil
		}
		_, err := NewPlan(ctx, src, target, WithSiblingManifest(FromBytes(sibling)))
		require.ErrorIs(t, err, context.Canceled)
	})
}
