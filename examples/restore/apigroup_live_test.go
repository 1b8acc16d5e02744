package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/restore"
	"github.com/backupkit/backupkit/versionselect"
)

var crdsGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// The five cases of Velero's own end-to-end test of EnableAPIGroupVersions
// (test/e2e/basic/api-group), against the real API server: a custom resource is created in
// a "source" CRD, backed up at every version the source serves (preferred marked, as
// discovery says), the CRD deleted, the "target" CRD installed (or not), and the backup
// planned and restored. Each case has a group of its own.
func TestLiveAPIGroupVersions(t *testing.T) {
	c := env.Cluster(t)
	tests := []struct {
		name       string
		group      string
		source     []string // served versions, the first the storage version
		target     []string // nil: the target has no such CRD (the backup's is restored)
		priorities string   // restoreResourcesVersionPriority in a ConfigMap in the cluster
		wantReason versionselect.Reason
		wantAt     string // "": not restorable
	}{
		{name: "P1: the target's preferred version is in the backup", group: "p1.example.io",
			source: []string{"v1", "v1alpha1"}, target: []string{"v1", "v1alpha1"},
			wantReason: versionselect.ReasonTargetPreferred, wantAt: "v1"},
		{name: "P3: the best version both serve", group: "p3.example.io",
			source: []string{"v1", "v2beta2", "v2beta1"}, target: []string{"v2", "v2beta1"},
			wantReason: versionselect.ReasonCommonVersion, wantAt: "v2beta1"},
		{name: "no common version", group: "none.example.io",
			source: []string{"v1", "v1alpha1"}, target: []string{"v2"},
			wantReason: versionselect.ReasonNoCommonVersion},
		{name: "the user's ConfigMap overrides P3", group: "user.example.io",
			source: []string{"v1", "v2beta2", "v2beta1"}, target: []string{"v2", "v2beta2", "v2beta1"},
			priorities: "rockbands.user.example.io=v2beta1", wantReason: versionselect.ReasonUserPriority, wantAt: "v2beta1"},
		{name: "the CRD is absent from the target", group: "absent.example.io",
			source:     []string{"v1", "v1beta1"},
			wantReason: versionselect.ReasonTargetGroupAbsent, wantAt: "v1"},
	}
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	disco, err := discovery.NewDiscoveryClientForConfig(c.RESTConfig())
	require.NoError(t, err)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			ns := c.Namespace(t)
			resource := "rockbands." + tc.group
			// Source: the CRD, two objects, a backup of them at every served version.
			sourceCRD := targetCRD(tc.group, "rockbands", "RockBand", tc.source...)
			require.NoError(t, c.InstallCRDs(ctx, sourceCRD))
			gvr := func(v string) schema.GroupVersionResource {
				return schema.GroupVersionResource{Group: tc.group, Version: v, Resource: "rockbands"}
			}
			bands := map[string]map[string]any{
				"queen":   {"members": []any{"Freddie", "Brian", "Roger", "John"}, "formed": int64(1970)},
				"beatles": {"members": []any{"John", "Paul", "George", "Ringo"}, "formed": int64(1960)},
			}
			for name, spec := range bands {
				u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": tc.group + "/" + tc.source[0], "kind": "RockBand",
					"metadata": map[string]any{"name": name, "namespace": ns}, "spec": spec}}
				_, err := client.Resource(gvr(tc.source[0])).Namespace(ns).Create(ctx, u, metav1.CreateOptions{})
				require.NoError(t, err)
			}
			preferred := discoveredPreferred(t, disco, tc.group, tc.source)
			var buf bytes.Buffer
			w := archive.NewWriter(&buf)
			require.NoError(t, w.SetPreferred(resource, preferred))
			require.NoError(t, w.SetPreferred("customresourcedefinitions.apiextensions.k8s.io", "v1"))
			crdInCluster, err := client.Resource(crdsGVR).Get(ctx, resource, metav1.GetOptions{})
			require.NoError(t, err)
			add := func(res, version, ns string, u *unstructured.Unstructured) {
				b, err := json.Marshal(u.Object)
				require.NoError(t, err)
				require.NoError(t, w.Add(res, version, ns, u.GetName(), b))
			}
			add("customresourcedefinitions.apiextensions.k8s.io", "v1", "", crdInCluster)
			for _, v := range tc.source {
				list, err := client.Resource(gvr(v)).Namespace(ns).List(ctx, metav1.ListOptions{})
				require.NoError(t, err)
				require.Len(t, list.Items, len(bands))
				for i := range list.Items {
					add(resource, v, ns, &list.Items[i])
				}
			}
			require.NoError(t, w.Close())
			backup := filepath.Join(t.TempDir(), "backup.tar.gz")
			require.NoError(t, os.WriteFile(backup, buf.Bytes(), 0o600))

			// The source goes; the target's CRD comes.
			for name := range bands {
				require.NoError(t, client.Resource(gvr(tc.source[0])).Namespace(ns).Delete(ctx, name, metav1.DeleteOptions{}))
			}
			require.NoError(t, client.Resource(crdsGVR).Delete(ctx, resource, metav1.DeleteOptions{}))
			require.Eventually(t, func() bool {
				_, err := client.Resource(crdsGVR).Get(ctx, resource, metav1.GetOptions{})
				return apierrors.IsNotFound(err)
			}, 30*time.Second, 100*time.Millisecond, "the source CRD is not gone")
			if tc.target != nil {
				require.NoError(t, c.InstallCRDs(ctx, targetCRD(tc.group, "rockbands", "RockBand", tc.target...)))
				discoveredPreferred(t, disco, tc.group, tc.target)
			}
			args := []string{"--kubeconfig", writeKubeconfig(t, c.RESTConfig()), "--backup", backup, "--restore-name", "api-group"}
			if tc.priorities != "" {
				cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
					"metadata": map[string]any{"name": "enableapigroupversions"},
					"data":     map[string]any{versionselect.PrioritiesKey: tc.priorities}}}
				_, err := client.Resource(configMapsGVR).Namespace(ns).Create(ctx, cm, metav1.CreateOptions{})
				require.NoError(t, err)
				args = append(args, "--priorities-configmap", ns+"/enableapigroupversions")
			}

			// The plan chooses as Velero's test expects.
			var stdout, stderr bytes.Buffer
			require.Equal(t, 0, run(ctx, append(args, "--dry-run", "-o", "json"), &stdout, &stderr), stderr.String())
			var plan restore.Plan
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &plan))
			rp := resourcePlan(t, plan, resource)
			require.Equal(t, string(tc.wantReason), rp.Reason)

			code, rep, errOut := restoreJSON(t, args...)
			require.Equal(t, 0, code, errOut)
			if tc.wantAt == "" {
				require.NotEmpty(t, rp.Unrestorable)
				require.Equal(t, 2, countSkipped(plan, resource), "both objects cannot be restored")
				for _, it := range rep.Items {
					require.False(t, strings.HasPrefix(it.Item, "resources/"+resource+"/"), "%s restored", it.Item)
				}
				return
			}
			require.Empty(t, rp.Unrestorable)
			require.Equal(t, tc.wantAt, rp.Version)
			for name, spec := range bands {
				u, err := client.Resource(gvr(tc.wantAt)).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
				require.NoError(t, err, "%s at %s", name, tc.wantAt)
				require.Equal(t, tc.group+"/"+tc.wantAt, u.GetAPIVersion())
				require.Equal(t, spec, u.Object["spec"], name)
				require.Equal(t, "api-group", u.GetLabels()[restore.RestoreNameLabel])
			}
		})
	}
}

// discoveredPreferred waits until discovery serves exactly versions of group and returns its
// preferred version.
func discoveredPreferred(t *testing.T, d discovery.DiscoveryInterface, group string, versions []string) string {
	t.Helper()
	want := slices.Clone(versions)
	slices.Sort(want)
	var preferred string
	require.Eventually(t, func() bool {
		groups, err := d.ServerGroups()
		if err != nil {
			return false
		}
		for _, g := range groups.Groups {
			if g.Name != group {
				continue
			}
			var got []string
			for _, v := range g.Versions {
				got = append(got, v.Version)
			}
			slices.Sort(got)
			preferred = g.PreferredVersion.Version
			return slices.Equal(got, want)
		}
		return false
	}, 30*time.Second, 100*time.Millisecond, "discovery never served %s at %v", group, versions)
	return preferred
}

func resourcePlan(t *testing.T, p restore.Plan, key string) restore.ResourcePlan {
	t.Helper()
	for _, r := range p.Resources {
		if r.Resource == key {
			return r
		}
	}
	t.Fatalf("%s not in the plan", key)
	return restore.ResourcePlan{}
}

func countSkipped(p restore.Plan, key string) int {
	n := 0
	for _, s := range p.Skipped {
		if strings.HasPrefix(s.Item, fmt.Sprintf("resources/%s/", key)) {
			n++
		}
	}
	return n
}
