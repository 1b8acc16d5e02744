package restore

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/backupkit/backupkit/restore/actions"
)

// postCreating is an item action that records what its PostCreate was given, answering
// with detail and, for the items named in fail, an error.
type postCreating struct {
	name string
	sel  actions.Selector
	fail map[string]bool

	mu   sync.Mutex
	seen []string // item names, in the order of the calls
}

func (a *postCreating) Name() string                { return a.name }
func (a *postCreating) AppliesTo() actions.Selector { return a.sel }
func (a *postCreating) Execute(context.Context, *actions.Input) (*actions.Output, error) {
	return nil, nil
}
func (a *postCreating) PostCreate(_ context.Context, in *actions.PostCreateInput) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seen = append(a.seen, in.Item.GetName())
	if in.Item.GetUID() != types.UID("target-"+in.Item.GetName()) {
		return "", errors.New("given the object as sent, not as created")
	}
	if a.fail[in.Item.GetName()] {
		return "ran, failed", errors.New("boom")
	}
	return "ran " + in.Resource.String(), nil
}

// Run calls an action's PostCreate for the items it created and the action selects,
// after the create, adding its detail to the event; its error fails the item as an
// *ActionError. An object found already there, and a dry run, are not given to it.
func TestRunPostCreate(t *testing.T) {
	a := testObject("v1", "ConfigMap", "ns", "a", "uid-a", nil)
	b := testObject("v1", "ConfigMap", "ns", "b", "uid-b", nil)
	b.SetLabels(map[string]string{"hook": "yes"})
	c := testObject("v1", "ConfigMap", "ns", "c", "uid-c", nil)
	c.SetLabels(map[string]string{"hook": "yes"})
	plan, err := NewPlan(t.Context(), FromBytes(backupOf(t, a, b, c)), []metav1.APIGroup{group("", "v1", "v1")})
	require.NoError(t, err)

	t.Run("created", func(t *testing.T) {
		pc := &postCreating{name: "example.com/post", fail: map[string]bool{"c": true},
			sel: actions.Selector{LabelSelector: labels.SelectorFromSet(labels.Set{"hook": "yes"})}}
		cl, dyn := fakeCluster(t)
		withUIDs(dyn)
		sum, events, err := runEvents(t, plan, cl, WithActions(pc))
		require.Error(t, err)
		require.ElementsMatch(t, []string{"b", "c"}, pc.seen, "the items it selects")
		require.Equal(t, 2, sum.Counts[ResultCreated])
		require.Equal(t, "example.com/post: ran configmaps", events["b"].Detail)
		require.Equal(t, ResultCreated, events["a"].Result)
		require.Empty(t, events["a"].Detail)
		require.Equal(t, ResultFailed, events["c"].Result)
		require.Equal(t, "example.com/post: ran, failed", events["c"].Detail)
		var ae *ActionError
		require.ErrorAs(t, events["c"].Err, &ae)
		require.Equal(t, "restore: action example.com/post on resources/configmaps/namespaces/ns/c.json: boom", ae.Error())
	})
	t.Run("found already there", func(t *testing.T) {
		pc := &postCreating{name: "example.com/post"}
		cl, dyn := fakeCluster(t)
		existing := b.DeepCopy()
		existing.SetUID("")
		withUIDs(dyn)
		_, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("ns").Create(t.Context(), existing, metav1.CreateOptions{})
		require.NoError(t, err)
		sum, events, err := runEvents(t, plan, cl, WithActions(pc))
		require.NoError(t, err)
		require.Equal(t, ResultExists, events["b"].Result)
		require.Equal(t, 2, sum.Counts[ResultCreated])
		require.ElementsMatch(t, []string{"a", "c"}, pc.seen)
	})
	t.Run("dry run", func(t *testing.T) {
		pc := &postCreating{name: "example.com/post"}
		cl, _ := fakeCluster(t)
		_, _, err := runEvents(t, plan, cl, WithActions(pc), WithDryRun(true))
		require.NoError(t, err)
		require.Empty(t, pc.seen)
	})
}

// withUIDs makes the fake give each object it creates a UID, as an API server does:
// "target-" and its name.
func withUIDs(dyn *fake.FakeDynamicClient) {
	dyn.PrependReactor("create", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if u, ok := a.(k8stesting.CreateAction).GetObject().(*unstructured.Unstructured); ok && u.GetUID() == "" {
			u.SetUID(types.UID("target-" + u.GetName()))
		}
		return false, nil, nil
	})
}
