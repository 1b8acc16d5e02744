package restore_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/restore"
	"github.com/backupkit/backupkit/restore/actions"
)

// As Velero, the restore keeps an object's finalizers and restores its managed fields
// (the API server ignores them in a create: a patch after it sets them); both can be
// turned off.
func TestLiveMetadataAsVelero(t *testing.T) {
	c := env.Cluster(t)
	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	backed := []any{map[string]any{"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "v1",
		"time": "2025-01-01T00:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:data": map[string]any{".": map[string]any{}, "f:k": map[string]any{}}}}}
	for _, tc := range []struct {
		name       string
		opts       []restore.RunOption
		manager    string
		finalizers []string
	}{
		{"defaults", nil, "kubectl-client-side-apply", []string{"example.com/keep"}},
		{"turned off", []restore.RunOption{restore.WithManagedFields(false), restore.WithFinalizers(false)}, "restore.test", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := c.Namespace(t)
			plan, cluster := livePlanOf(t, c, "configmaps", map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": "cm", "namespace": ns, "uid": "uid-cm", "managedFields": backed, "finalizers": []any{"example.com/keep"}},
				"data":     map[string]any{"k": "v"}})
			var evs events
			_, err := restore.Run(t.Context(), plan, cluster, append(tc.opts, restore.WithName("meta"), restore.WithEvents(evs.add))...)
			require.NoError(t, err)
			for _, ev := range evs.byIt {
				require.Equal(t, restore.ResultCreated, ev.Result)
				require.Empty(t, ev.Detail)
			}
			got, err := dyn.Resource(configMapsGVR).Namespace(ns).Get(t.Context(), "cm", metav1.GetOptions{})
			require.NoError(t, err)
			var managers []string
			for _, e := range got.GetManagedFields() {
				managers = append(managers, e.Manager)
			}
			require.Equal(t, []string{tc.manager}, managers)
			require.Equal(t, tc.finalizers, got.GetFinalizers())
			// Let the namespace go: drop the finalizer the test gave.
			got.SetFinalizers(nil)
			_, err = dyn.Resource(configMapsGVR).Namespace(ns).Update(t.Context(), got, metav1.UpdateOptions{})
			require.NoError(t, err)
		})
	}
}

// recordOwners is an item action that records the owner UIDs the item reaches it with.
type recordOwners struct {
	mu   sync.Mutex
	seen map[string][]types.UID
}

func (a *recordOwners) Name() string { return "test.io/record-owners" }
func (a *recordOwners) AppliesTo() actions.Selector {
	return actions.Selector{IncludedResources: []string{"configmaps"}}
}
func (a *recordOwners) Execute(_ context.Context, in *actions.Input) (*actions.Output, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, o := range in.Item.GetOwnerReferences() {
		a.seen[in.Item.GetName()] = append(a.seen[in.Item.GetName()], o.UID)
	}
	return &actions.Output{}, nil
}

// Run's order of steps, as its doc says: the owner references are pointed at the owners'
// UIDs in the target before the item actions run, so an action sees the object as it will
// be created.
func TestLiveActionsSeeRemappedOwners(t *testing.T) {
	c := env.Cluster(t)
	ns := c.Namespace(t)
	cm := func(name, uid string, owners ...any) map[string]any {
		md := map[string]any{"name": name, "namespace": ns, "uid": uid}
		if len(owners) > 0 {
			md["ownerReferences"] = owners
		}
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md}
	}
	plan, cluster := livePlanOf(t, c, "configmaps", cm("owner", "uid-owner"),
		cm("child", "uid-child", map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "uid-owner"}))
	rec := &recordOwners{seen: map[string][]types.UID{}}
	_, err := restore.Run(t.Context(), plan, cluster, restore.WithName("owners"), restore.WithActions(rec))
	require.NoError(t, err)
	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	owner, err := dyn.Resource(configMapsGVR).Namespace(ns).Get(t.Context(), "owner", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotEqual(t, types.UID("uid-owner"), owner.GetUID())
	require.Equal(t, []types.UID{owner.GetUID()}, rec.seen["child"], "the action saw the owner's UID in the target")
}
