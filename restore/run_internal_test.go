package restore

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/backupkit/backupkit/readiness"
)

// fakeCluster is client-go's fake dynamic client over the kinds these tests restore.
func fakeCluster(t *testing.T) (Cluster, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	kinds := map[schema.GroupVersionResource]string{}
	// Every group at v1, so that a kind is found without its version, as a cluster's is.
	var gvs []schema.GroupVersion
	for _, res := range testResources {
		if gv := (schema.GroupVersion{Group: schema.ParseGroupResource(res).Group, Version: "v1"}); !slices.Contains(gvs, gv) {
			gvs = append(gvs, gv)
		}
	}
	mapper := meta.NewDefaultRESTMapper(gvs)
	for kind, res := range testResources {
		gr := schema.ParseGroupResource(res)
		gvk := schema.GroupVersionKind{Group: gr.Group, Version: "v1", Kind: kind}
		kinds[gr.WithVersion("v1")] = kind + "List"
		scope := meta.RESTScopeNamespace
		switch kind {
		case "Namespace", "PersistentVolume", "ValidatingWebhookConfiguration", "ClusterRole", "PriorityClass":
			scope = meta.RESTScopeRoot
		}
		mapper.AddSpecific(gvk, gr.WithVersion("v1"), gr.WithVersion("v1"), scope)
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), kinds)
	return Cluster{Dynamic: dyn, Mapper: mapper}, dyn
}

func runEvents(t *testing.T, plan *Plan, c Cluster, opts ...RunOption) (*Summary, map[string]Event, error) {
	t.Helper()
	var mu sync.Mutex
	events := map[string]Event{}
	sum, err := Run(t.Context(), plan, c, append(opts, WithEvents(func(ev Event) {
		mu.Lock()
		defer mu.Unlock()
		require.NotContains(t, events, ev.Item.name(), "one event per item")
		events[ev.Item.name()] = ev
	}))...)
	return sum, events, err
}

// An item action's exclusion is reported, is no error, and what depends on the item still
// runs; a claim bound to a volume an action excluded is unbound so the target provisions one.
func TestRunExcludedVolumeUnbindsItsClaim(t *testing.T) {
	pv := testObject("v1", "PersistentVolume", "", "pv-1", "uid-pv", map[string]any{"spec": map[string]any{
		"persistentVolumeReclaimPolicy": "Delete", "capacity": map[string]any{"storage": "1Gi"},
		"claimRef": map[string]any{"namespace": "ns", "name": "data"}}})
	pvc := testObject("v1", "PersistentVolumeClaim", "ns", "data", "uid-pvc", map[string]any{"spec": map[string]any{"volumeName": "pv-1"}})
	backup := backupOf(t, pv, pvc)
	plan, err := NewPlan(t.Context(), FromBytes(backup), []metav1.APIGroup{group("", "v1", "v1")})
	require.NoError(t, err)
	require.Equal(t, 2, plan.Restorable())

	c, dyn := fakeCluster(t)
	sum, events, err := runEvents(t, plan, c)
	require.NoError(t, err)
	require.Equal(t, map[Result]int{ResultExcluded: 1, ResultCreated: 1}, sum.Counts)
	require.Equal(t, ResultExcluded, events["pv-1"].Result)
	require.Contains(t, events["pv-1"].Detail, "by item action backupkit.io/persistent-volume")
	require.Equal(t, ResultCreated, events["data"].Result)

	got, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}).Namespace("ns").Get(context.Background(), "data", metav1.GetOptions{})
	require.NoError(t, err)
	_, found, _ := unstructured.NestedString(got.Object, "spec", "volumeName")
	require.False(t, found, "unbound from the excluded volume")
	require.Equal(t, "uid-pvc", got.GetAnnotations()[OriginalUIDAnnotation])
	_, err = dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"}).Get(context.Background(), "pv-1", metav1.GetOptions{})
	require.Error(t, err, "the excluded volume is not created")
}

// Bad options are all reported at once, before anything is sent.
func TestRunChecksOptions(t *testing.T) {
	c, dyn := fakeCluster(t)
	plan, err := NewPlan(t.Context(), FromBytes(backupOf(t, testObject("v1", "ConfigMap", "ns", "a", "uid-a", nil))), []metav1.APIGroup{group("", "v1", "v1")})
	require.NoError(t, err)
	_, err = Run(t.Context(), plan, c, WithName("has space"), WithParallelism(0), WithExistingPolicy("replace"), WithWaitTimeout(-1), WithActions(nil))
	require.ErrorContains(t, err, `name "has space" is not a label value`)
	require.ErrorContains(t, err, "parallelism 0 is below 1")
	require.ErrorContains(t, err, `existing policy "replace"`)
	require.ErrorContains(t, err, "wait timeout -1ns is not positive")
	require.ErrorContains(t, err, "item action 0 is nil")
	_, err = Run(t.Context(), nil, Cluster{})
	require.ErrorContains(t, err, "no plan")
	require.ErrorContains(t, err, "needs a dynamic client and a RESTMapper")
	require.Empty(t, dyn.Actions(), "nothing sent")
}

// Status is restored only for the resources WithStatus names, after the create, through
// the status subresource; finalizers kept as Velero keeps them, unless WithFinalizers(false).
func TestRunStatusAndFinalizers(t *testing.T) {
	dep := testObject("apps/v1", "Deployment", "ns", "web", "uid-web", map[string]any{
		"spec":   map[string]any{"replicas": int64(2)},
		"status": map[string]any{"readyReplicas": int64(2)}})
	dep.SetFinalizers([]string{"example.com/keep"})
	cm := testObject("v1", "ConfigMap", "ns", "settings", "uid-cm", map[string]any{"status": map[string]any{"odd": "yes"}})
	backup := backupOf(t, dep, cm)
	plan, err := NewPlan(t.Context(), FromBytes(backup), []metav1.APIGroup{group("", "v1", "v1"), group("apps", "v1", "v1")})
	require.NoError(t, err)
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	configMaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	tests := []struct {
		name       string
		opts       []RunOption
		status     bool
		finalizers []string
	}{
		{"defaults: finalizers kept, as Velero", nil, false, []string{"example.com/keep"}},
		{"finalizers dropped", []RunOption{WithFinalizers(false)}, false, nil},
		{"status of deployments, finalizers kept", []RunOption{WithStatus([]schema.GroupResource{{Group: "apps", Resource: "deployments"}}, nil), WithFinalizers(true)},
			true, []string{"example.com/keep"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, dyn := fakeCluster(t)
			_, _, err := runEvents(t, plan, c, tt.opts...)
			require.NoError(t, err)
			got, err := dyn.Resource(deployments).Namespace("ns").Get(t.Context(), "web", metav1.GetOptions{})
			require.NoError(t, err)
			ready, found, _ := unstructured.NestedInt64(got.Object, "status", "readyReplicas")
			require.Equal(t, tt.status, found)
			if tt.status {
				require.EqualValues(t, 2, ready)
				var updated bool
				for _, a := range dyn.Actions() {
					updated = updated || (a.GetVerb() == "update" && a.GetSubresource() == "status")
				}
				require.True(t, updated, "written through the status subresource")
			}
			require.Equal(t, tt.finalizers, got.GetFinalizers())
			other, err := dyn.Resource(configMaps).Namespace("ns").Get(t.Context(), "settings", metav1.GetOptions{})
			require.NoError(t, err)
			require.NotContains(t, other.Object, "status", "only the resources named")
		})
	}
}

// Velero's status restore: every resource ("*"), the excluded ones left out, only
// excluded ones meaning every other, the object's own velero.io/restore-status annotation
// deciding over both; a conflict retried with the newest resourceVersion; a status that
// cannot be written leaves the object created, its event saying so.
func TestRunStatusAsVelero(t *testing.T) {
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	configMaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	deps := schema.GroupResource{Group: "apps", Resource: "deployments"}
	cms := schema.GroupResource{Resource: "configmaps"}
	objects := func(depAnnotation, cmAnnotation string) []byte {
		dep := testObject("apps/v1", "Deployment", "ns", "web", "uid-web", map[string]any{"status": map[string]any{"readyReplicas": int64(2)}})
		cm := testObject("v1", "ConfigMap", "ns", "settings", "uid-cm", map[string]any{"status": map[string]any{"odd": "yes"}})
		if depAnnotation != "" {
			dep.SetAnnotations(map[string]string{StatusAnnotation: depAnnotation})
		}
		if cmAnnotation != "" {
			cm.SetAnnotations(map[string]string{StatusAnnotation: cmAnnotation})
		}
		return backupOf(t, dep, cm)
	}
	tests := []struct {
		name                  string
		depAnnotation, cmNote string
		opts                  []RunOption
		conflicts             int // status updates of the Deployment answered 409 first
		fail                  bool
		depStatus, cmStatus   bool
	}{
		{name: "every resource", opts: []RunOption{WithStatus([]schema.GroupResource{{Resource: "*"}}, nil)}, depStatus: true, cmStatus: true},
		{name: "every resource but the excluded", opts: []RunOption{WithStatus([]schema.GroupResource{{Resource: "*"}}, []schema.GroupResource{deps})}, cmStatus: true},
		{name: "only excluded: every other", opts: []RunOption{WithStatus(nil, []schema.GroupResource{cms})}, depStatus: true},
		{name: "none, but the annotation says true", cmNote: "true", cmStatus: true},
		{name: "named, but the annotation says false", depAnnotation: " FALSE ", opts: []RunOption{WithStatus([]schema.GroupResource{deps}, nil)}},
		{name: "an annotation of another value is ignored", depAnnotation: "maybe", opts: []RunOption{WithStatus([]schema.GroupResource{deps}, nil)}, depStatus: true},
		{name: "conflicts retried", opts: []RunOption{WithStatus([]schema.GroupResource{deps}, nil)}, conflicts: 2, depStatus: true},
		{name: "a status that cannot be written", opts: []RunOption{WithStatus([]schema.GroupResource{deps}, nil)}, fail: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := NewPlan(t.Context(), FromBytes(objects(tt.depAnnotation, tt.cmNote)), []metav1.APIGroup{group("", "v1", "v1"), group("apps", "v1", "v1")})
			require.NoError(t, err)
			c, dyn := fakeCluster(t)
			conflicts := tt.conflicts
			dyn.PrependReactor("update", "deployments", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if a.GetSubresource() != "status" {
					return false, nil, nil
				}
				if tt.fail {
					return true, nil, apierrors.NewForbidden(deps, "web", errors.New("no status for you"))
				}
				if conflicts > 0 {
					conflicts--
					return true, nil, apierrors.NewConflict(deps, "web", errors.New("stale"))
				}
				return false, nil, nil
			})
			_, events, err := runEvents(t, plan, c, tt.opts...)
			require.NoError(t, err)
			require.Equal(t, ResultCreated, events["web"].Result)
			if tt.fail {
				require.True(t, strings.HasPrefix(events["web"].Detail, DetailStatusNotRestored+": "), events["web"].Detail)
				require.Contains(t, events["web"].Detail, "no status for you")
			} else {
				require.Empty(t, events["web"].Detail)
			}
			require.Zero(t, conflicts)
			dep, err := dyn.Resource(deployments).Namespace("ns").Get(t.Context(), "web", metav1.GetOptions{})
			require.NoError(t, err)
			_, found, _ := unstructured.NestedInt64(dep.Object, "status", "readyReplicas")
			require.Equal(t, tt.depStatus, found, "the Deployment's status")
			cm, err := dyn.Resource(configMaps).Namespace("ns").Get(t.Context(), "settings", metav1.GetOptions{})
			require.NoError(t, err)
			_, found = cm.Object["status"]
			require.Equal(t, tt.cmStatus, found, "the ConfigMap's status")
		})
	}
}

// A namespace being deleted is polled until it is gone, for at most the terminating
// timeout; still there then, the restore goes on (the creates meet the API server's
// refusal in a real cluster). A non-positive timeout is refused.
func TestRunTerminatingNamespace(t *testing.T) {
	cm := testObject("v1", "ConfigMap", "going", "a", "uid-a", nil)
	plan, err := NewPlan(t.Context(), FromBytes(backupOf(t, cm)), []metav1.APIGroup{group("", "v1", "v1")})
	require.NoError(t, err)
	c, dyn := fakeCluster(t)
	ns := testObject("v1", "Namespace", "", "going", "uid-going", nil)
	now := metav1.Now()
	ns.SetDeletionTimestamp(&now)
	ns.SetFinalizers([]string{"kubernetes"})
	_, err = dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(t.Context(), ns, metav1.CreateOptions{})
	require.NoError(t, err)
	gets := 0
	dyn.PrependReactor("get", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
		gets++
		return false, nil, nil
	})
	_, _, err = runEvents(t, plan, c, WithTerminatingTimeout(1500*time.Millisecond))
	require.NoError(t, err)
	require.GreaterOrEqual(t, gets, 2, "polled while it terminated")

	_, err = Run(t.Context(), plan, c, WithTerminatingTimeout(0))
	require.ErrorContains(t, err, "terminating timeout 0s is not positive")
}

// An object in the target that does not become ready in time is restored, not ready: the
// Summary counts it restored, its Detail says how it got there, and Run's error matches
// ErrNotReady only when every other item is restored; what depends on it is skipped, and
// then, as when an item fails, the error counts the items not restored and does not match
// ErrNotReady.
func TestRunNotReady(t *testing.T) {
	slow := testObject("v1", "ConfigMap", "ns", "slow", "uid-slow", nil)
	fine := testObject("v1", "ConfigMap", "ns", "fine", "uid-fine", nil)
	child := testObject("v1", "ConfigMap", "ns", "child", "uid-child", nil)
	child.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "slow", UID: "uid-slow"}})
	bad := testObject("v1", "ConfigMap", "ns", "bad", "uid-bad", nil)
	theirs := testObject("v1", "ConfigMap", "ns", "slow", "", map[string]any{"data": map[string]any{"k": "theirs"}})
	slowNeverReady := readiness.NewRegistry()
	slowNeverReady.Register(schema.GroupKind{Kind: "ConfigMap"}, func(u *unstructured.Unstructured, _ readiness.Env) readiness.Result {
		if u.GetName() == "slow" {
			return readiness.Result{Status: readiness.InProgress, Reason: "Waiting"}
		}
		return readiness.Result{Status: readiness.Current}
	})
	for _, tc := range []struct {
		name     string
		objs     []*unstructured.Unstructured
		existing []runtime.Object
		counts   map[Result]int
		restored int
		detail   string // the slow one's Detail begins with it
		err      string // Run's error holds it
		notReady bool   // Run's error matches ErrNotReady
	}{
		{name: "created, not ready; the rest restored", objs: []*unstructured.Unstructured{slow, fine},
			counts: map[Result]int{ResultCreated: 1, ResultNotReady: 1}, restored: 2, detail: "created, not ready: InProgress Waiting: ",
			err: "restore: not ready: 1 of 2 items in the target but not ready in time, every other one restored or excluded", notReady: true},
		{name: "found, not ready; the rest restored", objs: []*unstructured.Unstructured{slow, fine}, existing: []runtime.Object{theirs},
			counts: map[Result]int{ResultCreated: 1, ResultNotReady: 1}, restored: 2,
			detail: "exists, not ready (" + DetailLeftAsFoundDiffers + "): InProgress Waiting: ", err: "restore: not ready: 1 of 2 items", notReady: true},
		{name: "what depends on it skipped", objs: []*unstructured.Unstructured{slow, fine, child},
			counts: map[Result]int{ResultCreated: 1, ResultNotReady: 1, ResultSkipped: 1}, restored: 2, detail: "created, not ready: ",
			err: "restore: 1 of 3 items not restored: manifest: walk: 0 items failed, 1 skipped"},
		{name: "an item failed besides", objs: []*unstructured.Unstructured{slow, fine, bad},
			counts: map[Result]int{ResultCreated: 1, ResultNotReady: 1, ResultFailed: 1}, restored: 2, detail: "created, not ready: ",
			err: "restore: 1 of 3 items not restored: manifest: walk: 1 items failed, 0 skipped: every failed item: creating resources/configmaps/namespaces/ns/bad.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := NewPlan(t.Context(), FromBytes(backupOf(t, tc.objs...)), []metav1.APIGroup{group("", "v1", "v1")})
			require.NoError(t, err)
			c, dyn := fakeCluster(t)
			for _, o := range tc.existing {
				u := o.(*unstructured.Unstructured).DeepCopy()
				u.SetUID("target-theirs")
				_, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("ns").Create(t.Context(), u, metav1.CreateOptions{})
				require.NoError(t, err)
			}
			dyn.PrependReactor("create", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
				u, ok := a.(k8stesting.CreateAction).GetObject().(*unstructured.Unstructured)
				switch {
				case ok && u.GetName() == "bad":
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "bad", errors.New("no"))
				case ok && u.GetUID() == "":
					u.SetUID(types.UID("target-" + u.GetName())) // the fake gives none; the wait needs one
				}
				return false, nil, nil
			})
			sum, events, err := runEvents(t, plan, c, WithWait(true), WithWaitTimeout(300*time.Millisecond), WithReadiness(slowNeverReady))
			require.ErrorContains(t, err, tc.err)
			require.Equal(t, tc.notReady, errors.Is(err, ErrNotReady), "%v", err)
			require.Equal(t, tc.counts, sum.Counts)
			require.Equal(t, tc.restored, sum.Restored)
			ev := events["slow"]
			require.Equal(t, ResultNotReady, ev.Result)
			require.True(t, strings.HasPrefix(ev.Detail, tc.detail), ev.Detail)
			require.ErrorIs(t, ev.Err, ErrNotReady)
			require.ErrorIs(t, ev.Err, readiness.ErrTimeout, "the waiter's error too")
			require.NotEmpty(t, ev.UID, "in the target")
		})
	}
}

// A real run waits, in a namespace it created, for the ServiceAccount "default" that the
// target's controllers make there, and then finds it there; a target whose namespace
// "default" has none (no such controller) gets it created at once.
func TestRunAwaitsClusterMade(t *testing.T) {
	backup := backupOf(t, testObject("v1", "Namespace", "", "new-ns", "uid-ns", nil),
		testObject("v1", "ServiceAccount", "new-ns", "default", "uid-sa", nil))
	plan, err := NewPlan(t.Context(), FromBytes(backup), []metav1.APIGroup{group("", "v1", "v1")})
	require.NoError(t, err)
	sas := schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	for _, tc := range []struct {
		name        string
		controllers bool
		result      Result
	}{
		{name: "the controller makes it, later", controllers: true, result: ResultExists},
		{name: "no such controller", result: ResultCreated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, dyn := fakeCluster(t)
			if tc.controllers {
				_, err := dyn.Resource(sas).Namespace("default").Create(t.Context(), testObject("v1", "ServiceAccount", "default", "default", "", nil), metav1.CreateOptions{})
				require.NoError(t, err)
				// The controller: the namespace's "default" ServiceAccount, 300ms after it.
				dyn.PrependReactor("create", "namespaces", func(a k8stesting.Action) (bool, runtime.Object, error) {
					time.AfterFunc(300*time.Millisecond, func() {
						_ = dyn.Tracker().Create(sas, testObject("v1", "ServiceAccount", "new-ns", "default", "", nil), "new-ns")
					})
					return false, nil, nil
				})
			}
			_, events, err := runEvents(t, plan, c)
			require.NoError(t, err)
			require.Equal(t, tc.result, events["default"].Result, "%+v", events["default"])
		})
	}
}
