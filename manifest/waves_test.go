package manifest_test

import (
	"errors"
	"testing"

	"github.com/backupkit/backupkit/manifest"
	"github.com/stretchr/testify/require"
)

func TestWavesBasic(t *testing.T) {
	m := manifest.New()
	ns := item("Namespace", "namespaces", "", "", "web")
	dep := item("Deployment", "deployments", "apps", "web", "front")
	rs := item("ReplicaSet", "replicasets", "apps", "web", "front-1", dep)
	pod := item("Pod", "pods", "", "web", "front-1-a", rs)
	for _, it := range []*manifest.Item{pod, rs, dep, ns} {
		ok, err := m.Add(it)
		require.NoError(t, err)
		require.True(t, ok)
	}
	waves, err := m.Waves()
	require.NoError(t, err)
	require.Equal(t, [][]string{{"web"}, {"front"}, {"front-1"}, {"front-1-a"}}, names(waves))

	a := item("Widget", "widgets", "example.com", "", "a")
	b := item("Widget", "widgets", "example.com", "", "b", a)
	a.OwnerReferences = append(a.OwnerReferences, ownerRef(b, false))
	m.Add(a)
	m.Add(b)
	waves, err = m.Waves()
	var ce *manifest.CycleError
	require.True(t, errors.As(err, &ce), "%v", err)
	require.Len(t, ce.Cycle, 2)
	require.Equal(t, "a", ce.Cycle[0].Name)
	require.Equal(t, [][]string{{"web"}, {"front"}, {"front-1"}, {"front-1-a"}}, names(waves))
	t.Log(err)
}
