package restore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	"github.com/backupkit/backupkit/readiness"
	"github.com/backupkit/backupkit/restore/actions"
)

// recordingAction counts its AppliesTo calls and records what each Execute was given.
type recordingAction struct {
	name    string
	sel     actions.Selector
	execute func(in *actions.Input) *actions.Output

	mu        sync.Mutex
	appliesTo int
	seen      map[string]*actions.Input // by item name
}

func (a *recordingAction) Name() string { return a.name }
func (a *recordingAction) AppliesTo() actions.Selector {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.appliesTo++
	return a.sel
}
func (a *recordingAction) Execute(_ context.Context, in *actions.Input) (*actions.Output, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.seen == nil {
		a.seen = map[string]*actions.Input{}
	}
	a.seen[in.Item.GetName()] = &actions.Input{Item: in.Item.DeepCopy(), ItemFromBackup: in.ItemFromBackup.DeepCopy()}
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

	labelC := &recordingAction{name: "example.com/label-c", sel: actions.Selector{IncludedResources: []string{"configmaps"}},
		execute: func(in *actions.Input) *actions.Output {
			if in.Item.GetName() == "c" {
				in.Item.SetLabels(map[string]string{"tier": "db"}) // changed in place, not returned
			}
			return nil
		}}
	dbOnly := &recordingAction{name: "example.com/db", sel: actions.Selector{LabelSelector: labels.SelectorFromSet(labels.Set{"tier": "db"})}}
	other := &recordingAction{name: "example.com/secrets", sel: actions.Selector{IncludedResources: []string{"secrets"}}}

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

// checkingAction returns the ConfigMap "dep" as an additional item of every Pod, asks to
// wait for it, and says itself when it is ready: ready after readyAfter calls (0: never),
// or fail with err.
type checkingAction struct {
	readyAfter int
	err        error
	calls      atomic.Int32
}

func (a *checkingAction) Name() string { return "example.com/checking" }
func (a *checkingAction) AppliesTo() actions.Selector {
	return actions.Selector{IncludedResources: []string{"pods"}}
}
func (a *checkingAction) Execute(context.Context, *actions.Input) (*actions.Output, error) {
	return &actions.Output{AdditionalItems: []actions.ItemRef{{GroupResource: schema.GroupResource{Resource: "configmaps"}, Namespace: "ns", Name: "dep"}},
		WaitForAdditionalItems: true, AdditionalItemsReadyTimeout: 1500 * time.Millisecond}, nil
}
func (a *checkingAction) AreAdditionalItemsReady(_ context.Context, items []actions.ItemRef, _ *actions.Info) (bool, error) {
	n := a.calls.Add(1)
	if len(items) != 1 || items[0].Name != "dep" {
		return false, fmt.Errorf("asked about %v", items)
	}
	return a.readyAfter > 0 && int(n) >= a.readyAfter, a.err
}

// waitingAction is checkingAction without its own check: the readiness rules decide.
type waitingAction struct{ checkingAction }

func (a *waitingAction) AreAdditionalItemsReady() {} // not the interface's method

// Seed 002 as Velero runs it: an action's additional items are restored first and waited
// for, by the action's own check or by the readiness rules (WithReadiness's registry
// among them); when they are not ready in time, or the check fails, the item is restored
// all the same and its event says its additional items were not ready.
func TestRunAdditionalItemsReadiness(t *testing.T) {
	pod := testObject("v1", "Pod", "ns", "p", "uid-p", map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "i"}}}})
	dep := testObject("v1", "ConfigMap", "ns", "dep", "uid-dep", nil)
	plan, err := NewPlan(t.Context(), FromBytes(backupOf(t, dep, pod)), []metav1.APIGroup{group("", "v1", "v1")})
	require.NoError(t, err)
	configMapsReady := readiness.NewRegistry()
	configMapsReady.Register(schema.GroupKind{Kind: "ConfigMap"}, func(*unstructured.Unstructured, readiness.Env) readiness.Result {
		return readiness.Result{Status: readiness.Current}
	})
	neverReady := readiness.NewRegistry()
	neverReady.Register(schema.GroupKind{Kind: "ConfigMap"}, func(*unstructured.Unstructured, readiness.Env) readiness.Result {
		return readiness.Result{Status: readiness.InProgress, Reason: "Waiting"}
	})
	for _, tc := range []struct {
		name   string
		action actions.ItemAction
		opts   []RunOption
		detail string // what the Pod's Detail holds; "" for nothing
	}{
		{name: "the action's check says ready", action: &checkingAction{readyAfter: 2}},
		{name: "the action's check never says ready", action: &checkingAction{},
			detail: DetailAdditionalNotReady + ": example.com/checking: not ready within 1.5s"},
		{name: "the action's check fails", action: &checkingAction{err: errors.New("cannot tell")},
			detail: DetailAdditionalNotReady + ": example.com/checking: checking them failed: cannot tell"},
		{name: "the readiness rules: the caller's registry says ready", action: &waitingAction{}, opts: []RunOption{WithReadiness(configMapsReady)}},
		{name: "the readiness rules: the caller's registry says not ready", action: &waitingAction{}, opts: []RunOption{WithReadiness(neverReady)},
			detail: DetailAdditionalNotReady + ": example.com/checking: not ready within 1.5s: ConfigMap ns/dep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, dyn := fakeCluster(t)
			// The fake gives no UID; the restore waits only for what is in the target.
			dyn.PrependReactor("create", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if u, ok := a.(k8stesting.CreateAction).GetObject().(*unstructured.Unstructured); ok && u.GetUID() == "" {
					u.SetUID(types.UID("target-" + u.GetName()))
				}
				return false, nil, nil
			})
			sum, events, err := runEvents(t, plan, c, append(tc.opts, WithActions(tc.action))...)
			require.NoError(t, err)
			require.Equal(t, 2, sum.Counts[ResultCreated], "both restored, ready or not")
			require.Equal(t, tc.detail, events["p"].Detail)
		})
	}
}
