package restore

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/archive/archivetest"
	"github.com/backupkit/backupkit/internal/resourcematch/matchtable"
)

// The filter reads resource names as the item actions' selectors and the backup's
// resource selection do (the shared table, internal/resourcematch/matchtable): through the
// target's discovery, as Velero.
func TestFilterResourcesAsVelero(t *testing.T) {
	var objs []*unstructured.Unstructured
	var resources []string
	var target []metav1.APIGroup
	seen := map[string]bool{}
	for i, r := range matchtable.Resources {
		apiVersion := schema.GroupVersion{Group: r.Group, Version: r.Version}.String()
		objs = append(objs, testObject(apiVersion, r.Kind, "ns", "o", fmt.Sprintf("uid-%d", i), nil))
		resources = append(resources, r.GroupResource.String())
		if !seen[r.Group] {
			seen[r.Group] = true
			target = append(target, group(r.Group, r.Version, r.Version))
		}
	}
	n := 0
	var buf bytes.Buffer
	_, err := archivetest.WriteObjects(&buf, func(string) string { n++; return resources[n-1] }, objs...)
	require.NoError(t, err)
	for _, tc := range matchtable.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			plan, err := NewPlan(t.Context(), FromBytes(buf.Bytes()), target, WithServedResources(matchtable.Served()),
				WithFilter(Filter{IncludedResources: tc.Included, ExcludedResources: tc.Excluded}))
			require.NoError(t, err)
			var got []schema.GroupResource
			for _, w := range plan.Waves {
				for _, it := range w {
					got = append(got, schema.GroupResource{Group: it.group(), Resource: it.resource()})
				}
			}
			require.ElementsMatch(t, tc.Want, got, "skipped %v", plan.Skipped)
		})
	}
}

// A glob the library refuses is an error of NewPlan, naming the entry.
func TestFilterRefusesBadResourceGlob(t *testing.T) {
	var backup bytes.Buffer
	_, err := archivetest.WriteObjects(&backup, func(string) string { return "configmaps" }, testObject("v1", "ConfigMap", "ns", "c", "uid-c", nil))
	require.NoError(t, err)
	_, err = NewPlan(t.Context(), FromBytes(backup.Bytes()), []metav1.APIGroup{group("", "v1", "v1")},
		WithFilter(Filter{ExcludedResources: []string{"[a-"}}))
	require.ErrorContains(t, err, `excluded resource "[a-"`)
}
