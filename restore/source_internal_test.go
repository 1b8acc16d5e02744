package restore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
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

// namedReader is a reader with a name, as *os.File and backupstore's readers are.
type namedReader struct {
	io.Reader
	name string
}

func (r namedReader) Name() string { return r.name }
func (r namedReader) Close() error { return nil }

// namedSource is the tarball b under name; after the first open, it gives later(b) instead when
// later is not nil (a second pass that differs from the plan's read).
func namedSource(name string, b []byte, later func([]byte) io.Reader) Source {
	var opens atomic.Int32
	return func(context.Context) (io.ReadCloser, error) {
		if opens.Add(1) > 1 && later != nil {
			return namedReader{later(b), name}, nil
		}
		return namedReader{bytes.NewReader(b), name}, nil
	}
}

// failAfter reads r until n bytes are read, then fails with err.
type failAfter struct {
	r   io.Reader
	n   int
	err error
}

func (f *failAfter) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	if len(p) > f.n {
		p = p[:f.n]
	}
	n, err := f.r.Read(p)
	f.n -= n
	return n, err
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
		sibling   string // "", "manifest" (WithSiblingManifest), "read" (WithSibling, not verified) or "verified" (WithSibling)
		planOpens int32
		deps      int // the references read from the bodies
	}{
		{"no sibling, a Pod", withPod, "", 1, 1},
		{"no sibling, only ConfigMaps", withoutPod, "", 1, 0},
		{"unverified sibling, a Pod", withPod, "manifest", 1, 1},
		{"unverified sibling, only ConfigMaps", withoutPod, "manifest", 1, 0},
		{"sibling read, not verified, a Pod", withPod, "read", 1, 1},
		{"sibling read, not verified, only ConfigMaps", withoutPod, "read", 1, 0},
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
			case "read", "verified":
				sib, err := archive.ReadSibling(t.Context(), bytes.NewReader(sibling))
				require.NoError(t, err)
				if tt.sibling == "verified" {
					require.NoError(t, sib.Bind(int64(len(backup)), sha256.Sum256(backup)))
				}
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

// An error reading the backup names what was read, when the reader has a name: in
// NewPlan's read, with a sibling or without, and in Run's second pass.
func TestReadErrorsNameTheReader(t *testing.T) {
	withPod, _ := planBackups()
	target := []metav1.APIGroup{group("", "v1", "v1")}
	backup, sibling := backupWithSibling(t, withPod...)
	cut := backup[:len(backup)/2]
	const name = "backups/b/b.tar.gz in s3://bucket?region=eu-west-1"
	path := filepath.Join(t.TempDir(), "b.tar.gz")
	require.NoError(t, os.WriteFile(path, cut, 0o600))
	verified := func(t *testing.T) PlanOption {
		sib, err := archive.ReadSibling(t.Context(), bytes.NewReader(sibling))
		require.NoError(t, err)
		require.NoError(t, sib.Bind(int64(len(backup)), sha256.Sum256(backup)))
		return WithSibling(sib)
	}
	tests := []struct {
		name string
		src  Source
		opts func(*testing.T) []PlanOption
		want string
	}{
		{"no sibling", namedSource(name, cut, nil), nil, name},
		{"unverified sibling", namedSource(name, cut, nil), func(*testing.T) []PlanOption {
			return []PlanOption{WithSiblingManifest(FromBytes(sibling))}
		}, name},
		{"verified sibling", namedSource(name, cut, nil), func(t *testing.T) []PlanOption { return []PlanOption{verified(t)} }, name},
		{"a file", FromFile(path), nil, path},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []PlanOption
			if tt.opts != nil {
				opts = tt.opts(t)
			}
			_, err := NewPlan(t.Context(), tt.src, target, opts...)
			require.ErrorContains(t, err, "restore: reading the backup: "+tt.want+": ")
			require.Equal(t, 1, bytes.Count([]byte(err.Error()), []byte(tt.want)), "named once: %v", err)
		})
	}

	t.Run("second pass", func(t *testing.T) {
		b, _, _ := streamBackup(t, 20)
		plan, err := NewPlan(t.Context(), namedSource(name, b, func(b []byte) io.Reader { return bytes.NewReader(b[:len(b)/2]) }), target)
		require.NoError(t, err)
		c, _ := fakeCluster(t)
		_, events, err := runEvents(t, plan, c)
		require.ErrorContains(t, err, name+": ")
		failed := 0
		for _, ev := range events {
			if ev.Result == ResultFailed {
				failed++
				require.ErrorContains(t, ev.Err, "from the backup: "+name+": ")
			}
		}
		require.Positive(t, failed)
	})
}
