package restore

import (
	"context"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
)

// recordingAction counts its AppliesTo calls and records what each Execute was given.
type recordingAction struct {
	name    string
	sel     Selector
	execute func(in *Input) *Output

	mu        sync.Mutex
	appliesTo int
	seen      map[string]*Input // by item name
}

func (a *recordingAction) Name() string { return a.name }
func (a *recordingAction) AppliesTo() Selector {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.appliesTo++
	return a.sel
}
func (a *recordingAction) Execute(_ context.Context, in *Input) (*Output, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.seen == nil {
		a.seen = map[string]*Input{}
	}
	a.seen[in.Item.GetName()] = &Input{Item: in.Item.DeepCopy(), ItemFromBackup: in.ItemFromBackup.DeepCopy()}
	if a.execute != nil {
		return a.execute(in), nil
	}
	return nil, nil
}

// Run reads each action's selector once; a label selector sees the labels as the actions
// before it left them; ItemFromBackup is the object as backed up, whatever the actions
// before did to the item.
func TestRunActionsSelectorsAndBackedUpItem(t *testing.T) {
	var cms []*unstructured.Unstructured
	for _, name := range []string{"a", "b", "c"} {
		cm := testObject("v1", "ConfigMap", "ns", name, "uid-"+name, map[string]any{"data": map[string]any{"k": name}})
		cm.SetResourceVersion("7")
		if name == "b" {
			cm.SetLabels(map[string]string{"tier": "db"})
		}
		cms = append(cms, cm)
	}
	plan, err := NewPlan(t.Context(), FromBytes(backupOf(t, cms...)), []metav1.APIGroup{group("", "v1", "v1")})
	require.NoError(t, err)

	labelC := &recordingAction{name: "example.com/label-c", sel: Selector{IncludedResources: []string{"configmaps"}},
		execute: func(in *Input) *Output {
			if in.Item.GetName() == "c" {
				in.Item.SetLabels(map[string]string{"tier": "db"}) // changed in place, not returned
			}
			return nil
		}}
	dbOnly := &recordingAction{name: "example.com/db", sel: Selector{LabelSelector: labels.SelectorFromSet(labels.Set{"tier": "db"})}}
	other := &recordingAction{name: "example.com/secrets", sel: Selector{IncludedResources: []string{"secrets"}}}

	c, _ := fakeCluster(t)
	sum, _, err := runEvents(t, plan, c, WithActions(labelC, dbOnly, other))
	require.NoError(t, err)
	require.Equal(t, 3, sum.Counts[ResultCreated])

	for _, a := range []*recordingAction{labelC, dbOnly, other} {
		require.Equal(t, 1, a.appliesTo, "%s: AppliesTo read once per run", a.name)
	}
	require.Len(t, labelC.seen, 3)
	require.ElementsMatch(t, []string{"b", "c"}, slices.Collect(maps.Keys(dbOnly.seen)), "b by its backed-up label, c by the label the action before set")
	require.Empty(t, other.seen)
	for name, in := range dbOnly.seen {
		require.Equal(t, "7", in.ItemFromBackup.GetResourceVersion(), "%s: as backed up", name)
		require.Empty(t, in.Item.GetResourceVersion(), "%s: reset for the target", name)
	}
	require.Empty(t, dbOnly.seen["c"].ItemFromBackup.GetLabels(), "the backed-up object, not the changed one")
}
