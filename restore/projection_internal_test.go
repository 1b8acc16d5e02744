package restore

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/internal/archiveopt"
	"github.com/backupkit/backupkit/manifest"
)

// TestPlanProjection: the plan's manifest keeps only the labels and annotations the plan
// decides by (every label when a filter selects by labels), whether it reads the items or
// the sibling manifest.
func TestPlanProjection(t *testing.T) {
	var tarball, sib bytes.Buffer
	w := archive.NewWriter(&tarball)
	require.NoError(t, w.SetPreferred("configmaps", "v1"))
	for _, name := range []string{"web", "db"} {
		require.NoError(t, w.Add("configmaps", "v1", "ns", name, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"`+name+`","namespace":"ns","uid":"u-`+name+`",`+
			`"labels":{"app":"`+name+`","endpointslice.kubernetes.io/managed-by":"x"},`+
			`"annotations":{"checksum/config":"abc","`+deploymentRevision+`":"3","`+manifest.DependsOnAnnotation+`":"/namespaces/ns/ConfigMap/other"}}}`)))
	}
	require.NoError(t, w.Close())
	require.NoError(t, w.WriteSibling(&sib))
	target := []metav1.APIGroup{group("", "v1", "v1")}
	selectWeb, err := labels.Parse("app=web")
	require.NoError(t, err)
	for _, tc := range []struct {
		name       string
		opts       []PlanOption
		wantLabels map[string]string
		items      int
	}{
		{"items read", nil, map[string]string{"endpointslice.kubernetes.io/managed-by": "x"}, 2},
		{"sibling read", []PlanOption{WithSiblingManifest(FromBytes(sib.Bytes()))}, map[string]string{"endpointslice.kubernetes.io/managed-by": "x"}, 2},
		{"label selector: every label", []PlanOption{WithFilter(Filter{LabelSelector: selectWeb})}, map[string]string{"app": "web", "endpointslice.kubernetes.io/managed-by": "x"}, 1},
		{"label selector, sibling", []PlanOption{WithFilter(Filter{LabelSelector: selectWeb}), WithSiblingManifest(FromBytes(sib.Bytes()))}, map[string]string{"app": "web", "endpointslice.kubernetes.io/managed-by": "x"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := NewPlan(context.Background(), FromBytes(tarball.Bytes()), target, tc.opts...)
			require.NoError(t, err)
			require.Equal(t, tc.items, plan.Restorable())
			require.True(t, plan.manifest.Projected())
			web, ok := plan.manifest.Get("u-web")
			require.True(t, ok)
			require.Equal(t, tc.wantLabels, web.Labels)
			require.Equal(t, map[string]string{deploymentRevision: "3", manifest.DependsOnAnnotation: "/namespaces/ns/ConfigMap/other"}, web.Annotations)
			var set archiveopt.Settings
			PlanProjection(tc.opts...)(&set)
			p := set.Projection
			require.True(t, p.Annotations(deploymentRevision))
			require.False(t, p.Annotations("checksum/config"))
			require.Equal(t, len(tc.wantLabels) == 2, p.Labels == nil)
		})
	}
}
