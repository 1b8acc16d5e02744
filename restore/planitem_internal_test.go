package restore

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A PlanItem is two pointers (a plan holds one per item); the items that must be ready
// share their resource's ready twin, the others its decision, and both answer as the
// resource's.
func TestPlanItemIsTwoPointers(t *testing.T) {
	require.EqualValues(t, 2*reflect.TypeFor[uintptr]().Size(), reflect.TypeFor[PlanItem]().Size())
	require.EqualValues(t, 8, reflect.TypeFor[itemState]().Size(), "a run's state of an item")

	ns := testObject("v1", "Namespace", "", "shop", "uid-ns", nil)
	other := testObject("v1", "Namespace", "", "other", "uid-other", nil)
	cm := testObject("v1", "ConfigMap", "shop", "a", "uid-a", nil)
	cm2 := testObject("v1", "ConfigMap", "shop", "b", "uid-b", nil)
	plan, err := NewPlan(t.Context(), FromBytes(backupOf(t, ns, other, cm, cm2)), []metav1.APIGroup{group("", "v1", "v1")})
	require.NoError(t, err)
	byName := map[string]PlanItem{}
	for _, wave := range plan.Waves {
		for _, it := range wave {
			byName[it.name()] = it
		}
	}
	require.True(t, byName["shop"].ready())
	require.True(t, byName["other"].ready())
	require.Same(t, byName["shop"].rp, byName["other"].rp, "one twin per resource")
	require.False(t, byName["a"].ready())
	require.Same(t, byName["a"].rp, byName["b"].rp)
	require.Equal(t, "resources/configmaps/v1-preferredversion/namespaces/shop/a.json", byName["a"].readPath())
	require.Equal(t, "v1", byName["shop"].version())
}
