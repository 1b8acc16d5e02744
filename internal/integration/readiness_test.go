package integration_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/backupkit/backupkit/internal/testcluster"
	"github.com/backupkit/backupkit/readiness"
)

var (
	widgetsGVR     = schema.GroupVersionResource{Group: rdGroup, Version: "v1", Resource: "widgets"}
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
)

// eventTimeout bounds the wait for one progress event: a guard against a hung test, not a
// timing assertion (events normally arrive within a poll interval).
const eventTimeout = 30 * time.Second

// fastPolling keeps the waiter's rounds short so the tests do not sleep for nothing.
var fastPolling = readiness.WithBackoff(wait.Backoff{Duration: 20 * time.Millisecond, Factor: 1, Steps: math.MaxInt32})

// widgetRules is what a user of readiness registers for their own kind: Widgets get a status
// from a controller (RequireStatus: none yet is InProgress) and are ready on Ready=True.
func widgetRules() *readiness.Registry {
	reg := readiness.NewRegistry()
	reg.Register(schema.GroupKind{Group: rdGroup, Kind: "Widget"}, func(u *unstructured.Unstructured, _ readiness.Env) readiness.Result {
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
				if m["status"] == "True" {
					return readiness.Result{Status: readiness.Current, Reason: "WidgetReady"}
				}
				return readiness.Result{Status: readiness.InProgress, Reason: "WidgetNotReady"}
			}
		}
		return readiness.Result{Status: readiness.InProgress, Reason: "WidgetStarting"}
	}, readiness.RequireStatus())
	return reg
}

// getter returns readiness's dynamic getter for cfg, with a discovery-backed RESTMapper.
func getter(t *testing.T, cfg *rest.Config) *readiness.DynamicGetter {
	t.Helper()
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	_, dc := clients(t, env.Cluster(t))
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	return readiness.NewDynamicGetter(dyn, mapper)
}

// waitRun is a readiness.Wait running in the background, its progress events in a channel.
type waitRun struct {
	events chan readiness.Event
	done   chan struct{}
	report *readiness.Report
	err    error
}

func startWait(ctx context.Context, g readiness.Getter, refs []readiness.ObjectRef, opts ...readiness.WaitOption) *waitRun {
	r := &waitRun{events: make(chan readiness.Event, 256), done: make(chan struct{})}
	opts = append([]readiness.WaitOption{fastPolling, readiness.WithTimeout(time.Minute), readiness.WithRegistry(widgetRules()),
		readiness.WithProgress(func(e readiness.Event) { r.events <- e })}, opts...)
	go func() {
		defer close(r.done)
		r.report, r.err = readiness.Wait(ctx, g, refs, opts...)
	}()
	return r
}

// expect waits until the waiter reports status for the object, failing on any other
// terminal outcome first. It returns the event.
func (r *waitRun) expect(t *testing.T, status readiness.Status) readiness.Event {
	t.Helper()
	timeout := time.After(eventTimeout)
	for {
		select {
		case e := <-r.events:
			if e.Result.Status == status {
				return e
			}
		case <-r.done:
			// Drain what was reported before the end.
			for {
				select {
				case e := <-r.events:
					if e.Result.Status == status {
						return e
					}
				default:
					t.Fatalf("Wait ended (%v) before reporting %s", r.err, status)
				}
			}
		case <-timeout:
			t.Fatalf("no %s event within %s", status, eventTimeout)
		}
	}
}

func (r *waitRun) finish(t *testing.T) (*readiness.Report, error) {
	t.Helper()
	select {
	case <-r.done:
		return r.report, r.err
	case <-time.After(eventTimeout):
		t.Fatalf("Wait did not return within %s", eventTimeout)
		return nil, nil
	}
}

// writeStatus plays the controller: it replaces the object's status through /status.
func writeStatus(t *testing.T, ri dynamic.ResourceInterface, name string, status map[string]any) {
	t.Helper()
	obj, err := ri.Get(t.Context(), name, metav1.GetOptions{})
	require.NoError(t, err)
	obj.Object["status"] = status
	_, err = ri.UpdateStatus(t.Context(), obj, metav1.UpdateOptions{})
	require.NoError(t, err)
}

func condition(typ, status, reason string) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": typ + " is " + status,
		"lastTransitionTime": "2026-01-01T00:00:00Z"}
}

func newWidget(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": rdGroup + "/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"size": int64(1)},
	}}
}

func newDeployment(name string) *unstructured.Unstructured {
	labels := map[string]any{"app": name}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"replicas": int64(1),
			"selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{
				"metadata": map[string]any{"labels": labels},
				"spec": map[string]any{"containers": []any{
					map[string]any{"name": "app", "image": "registry.invalid/app:1"},
				}},
			},
		},
	}}
}

// A walk creates an object, then writes statuses through /status and checks that the
// waiter sees each one, ending Current or Failed.
type walk struct {
	name   string
	gvr    schema.GroupVersionResource
	create func(name string) *unstructured.Unstructured
	// steps are written in order; the waiter must report each one's status.
	steps []walkStep
	// wantErr is nil when the walk ends Current, else the readiness sentinel.
	wantErr    error
	wantReason readiness.Reason
}

type walkStep struct {
	status map[string]any
	want   readiness.Status
}

var walks = []walk{
	{
		name: "custom resource to Current", gvr: widgetsGVR, create: newWidget,
		steps: []walkStep{
			{status: map[string]any{"observedGeneration": int64(1), "conditions": []any{condition("Ready", "False", "Starting")}}, want: readiness.InProgress},
			{status: map[string]any{"observedGeneration": int64(1), "conditions": []any{condition("Ready", "True", "Started")}}, want: readiness.Current},
		},
		wantReason: "WidgetReady",
	},
	{
		name: "custom resource to Failed", gvr: widgetsGVR, create: newWidget,
		steps: []walkStep{
			{status: map[string]any{"observedGeneration": int64(1), "conditions": []any{condition("Reconciling", "True", "Working")}}, want: readiness.InProgress},
			{status: map[string]any{"observedGeneration": int64(1), "conditions": []any{condition("Stalled", "True", "OutOfCapacity")}}, want: readiness.Failed},
		},
		wantErr: readiness.ErrFailed, wantReason: readiness.ReasonStalled,
	},
	{
		name: "Deployment to Current", gvr: deploymentsGVR, create: newDeployment,
		steps: []walkStep{
			{status: map[string]any{"observedGeneration": int64(1), "replicas": int64(1), "updatedReplicas": int64(1)}, want: readiness.InProgress},
			{status: map[string]any{
				"observedGeneration": int64(1), "replicas": int64(1), "updatedReplicas": int64(1),
				"readyReplicas": int64(1), "availableReplicas": int64(1),
				"conditions": []any{condition("Available", "True", "MinimumReplicasAvailable")},
			}, want: readiness.Current},
		},
		wantReason: "Available",
	},
	{
		name: "Deployment to Failed", gvr: deploymentsGVR, create: newDeployment,
		steps: []walkStep{
			{status: map[string]any{"observedGeneration": int64(1), "replicas": int64(1), "updatedReplicas": int64(1)}, want: readiness.InProgress},
			{status: map[string]any{
				"observedGeneration": int64(1), "replicas": int64(1), "updatedReplicas": int64(1),
				"conditions": []any{condition("Progressing", "False", "ProgressDeadlineExceeded")},
			}, want: readiness.Failed},
		},
		wantErr: readiness.ErrFailed, wantReason: "ProgressDeadlineExceeded",
	},
}

func TestReadinessWalks(t *testing.T) {
	c := env.Cluster(t)
	dyn, _ := clients(t, c)
	g := getter(t, c.RESTConfig())
	// Each walk runs with GETs, and with LISTs (a threshold of one object).
	modes := []struct {
		name string
		opts []readiness.WaitOption
	}{
		{name: "get", opts: nil},
		{name: "list", opts: []readiness.WaitOption{readiness.WithListThreshold(1)}},
	}
	for _, mode := range modes {
		for _, w := range walks {
			t.Run(mode.name+"/"+w.name, func(t *testing.T) {
				ns := c.Namespace(t)
				ri := dyn.Resource(w.gvr).Namespace(ns)
				made, err := ri.Create(t.Context(), w.create("walker"), metav1.CreateOptions{})
				require.NoError(t, err)

				run := startWait(t.Context(), g, []readiness.ObjectRef{readiness.RefOf(made)}, mode.opts...)
				// No controller runs: a fresh object has no status yet.
				first := run.expect(t, readiness.InProgress)
				require.Equal(t, readiness.RefOf(made), first.Ref)
				for _, s := range w.steps {
					writeStatus(t, ri, made.GetName(), s.status)
					run.expect(t, s.want)
				}
				report, err := run.finish(t)
				require.Len(t, report.Items, 1)
				item := report.Items[0]
				require.Equal(t, w.steps[len(w.steps)-1].want, item.Result.Status)
				require.Equal(t, w.wantReason, item.Result.Reason)
				require.Equal(t, made.GetUID(), item.UID)
				if w.wantErr == nil {
					require.NoError(t, err)
					require.Equal(t, 1, report.Ready())
					return
				}
				require.ErrorIs(t, err, w.wantErr)
				var we *readiness.WaitError
				require.ErrorAs(t, err, &we)
				require.Equal(t, 0, report.Ready())
			})
		}
	}
}

// uniqueSuffix returns a suffix for CRD names no other test run uses (-count=2 shares the
// cluster): the random part of a fresh namespace's name.
func uniqueSuffix(t *testing.T) string {
	return strings.TrimPrefix(env.Cluster(t).Namespace(t), "t-")
}

// newCRD returns a namespaced CRD in rdGroup, served and stored at v1 only.
func newCRD(plural, kind string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + "." + rdGroup},
		"spec": map[string]any{
			"group": rdGroup, "scope": "Namespaced",
			"names": map[string]any{"plural": plural, "kind": kind},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
			}},
		},
	}}
}

func TestReadinessCRDs(t *testing.T) {
	c := env.Cluster(t)
	dyn, _ := clients(t, c)
	crds := dyn.Resource(testcluster.CRDResource)

	t.Run("installed CRD is Current", func(t *testing.T) {
		got, err := crds.Get(t.Context(), "widgets."+rdGroup, metav1.GetOptions{})
		require.NoError(t, err)
		res := readiness.Compute(got)
		require.Equal(t, readiness.Current, res.Status, res.String())
		require.Equal(t, readiness.Reason("Established"), res.Reason)
	})

	t.Run("new CRD becomes Current", func(t *testing.T) {
		suffix := uniqueSuffix(t)
		crd := newCRD("sprites"+suffix, "Sprite"+suffix)
		made, err := crds.Create(t.Context(), crd, metav1.CreateOptions{})
		require.NoError(t, err)
		report, err := readiness.Wait(t.Context(), getter(t, c.RESTConfig()), []readiness.ObjectRef{readiness.RefOf(made)},
			fastPolling, readiness.WithTimeout(time.Minute))
		require.NoError(t, err)
		require.Equal(t, readiness.Reason("Established"), report.Items[0].Result.Reason)
	})

	t.Run("CRD whose kind clashes fails with NamesNotAccepted", func(t *testing.T) {
		// Same group, another plural, the kind widgets already hold.
		crd := newCRD("clashes"+uniqueSuffix(t), "Widget")
		made, err := crds.Create(t.Context(), crd, metav1.CreateOptions{})
		require.NoError(t, err)
		report, err := readiness.Wait(t.Context(), getter(t, c.RESTConfig()), []readiness.ObjectRef{readiness.RefOf(made)},
			fastPolling, readiness.WithTimeout(time.Minute))
		require.ErrorIs(t, err, readiness.ErrFailed)
		require.Equal(t, readiness.Failed, report.Items[0].Result.Status)
		require.Equal(t, readiness.Reason("NamesNotAccepted"), report.Items[0].Result.Reason)
	})
}

func TestReadinessCustomResourceWithoutRule(t *testing.T) {
	c := env.Cluster(t)
	dyn, _ := clients(t, c)
	made, err := dyn.Resource(widgetsGVR).Namespace(c.Namespace(t)).Create(t.Context(), newWidget("w"), metav1.CreateOptions{})
	require.NoError(t, err)
	res := readiness.Compute(made)
	require.Equal(t, readiness.Current, res.Status, "no rule and no conditions: nothing to wait for")
	require.Equal(t, readiness.ReasonNoConditions, res.Reason)
	res = readiness.Compute(made, readiness.WithRegistry(widgetRules()))
	require.Equal(t, readiness.InProgress, res.Status, "with the user's rule, no status yet is not ready")
	require.Equal(t, readiness.ReasonNoStatus, res.Reason)
}

func TestReadinessObjectDeletedMidWait(t *testing.T) {
	c := env.Cluster(t)
	dyn, _ := clients(t, c)
	g := getter(t, c.RESTConfig())

	t.Run("deleted and recreated: replaced", func(t *testing.T) {
		ri := dyn.Resource(widgetsGVR).Namespace(c.Namespace(t))
		made, err := ri.Create(t.Context(), newWidget("w"), metav1.CreateOptions{})
		require.NoError(t, err)
		run := startWait(t.Context(), g, []readiness.ObjectRef{readiness.RefOf(made)})
		run.expect(t, readiness.InProgress)
		require.NoError(t, ri.Delete(t.Context(), "w", metav1.DeleteOptions{}))
		run.expect(t, readiness.NotFound)
		again, err := ri.Create(t.Context(), newWidget("w"), metav1.CreateOptions{})
		require.NoError(t, err)
		require.NotEqual(t, made.GetUID(), again.GetUID())
		report, err := run.finish(t)
		require.ErrorIs(t, err, readiness.ErrReplaced)
		require.Equal(t, again.GetUID(), report.Items[0].UID)
	})

	t.Run("deleted for good: NotFound at the deadline", func(t *testing.T) {
		ri := dyn.Resource(widgetsGVR).Namespace(c.Namespace(t))
		made, err := ri.Create(t.Context(), newWidget("w"), metav1.CreateOptions{})
		require.NoError(t, err)
		run := startWait(t.Context(), g, []readiness.ObjectRef{readiness.RefOf(made)}, readiness.WithTimeout(3*time.Second))
		run.expect(t, readiness.InProgress)
		require.NoError(t, ri.Delete(t.Context(), "w", metav1.DeleteOptions{}))
		run.expect(t, readiness.NotFound)
		report, err := run.finish(t)
		require.ErrorIs(t, err, readiness.ErrTimeout)
		require.Equal(t, readiness.NotFound, report.Items[0].Result.Status)
	})
}

func TestReadinessPermissionErrorSurfacesAtOnce(t *testing.T) {
	c := env.Cluster(t)
	dyn, _ := clients(t, c)
	ri := dyn.Resource(widgetsGVR).Namespace(c.Namespace(t))
	made, err := ri.Create(t.Context(), newWidget("w"), metav1.CreateOptions{})
	require.NoError(t, err)

	// An hour's deadline: only a permanent error can end this wait.
	report, err := readiness.Wait(t.Context(), getter(t, c.UnprivilegedRESTConfig()), []readiness.ObjectRef{readiness.RefOf(made)},
		fastPolling, readiness.WithTimeout(time.Hour))
	require.Error(t, err)
	require.True(t, apierrors.IsForbidden(err), "the API server's 403 is reachable through the wait error: %v", err)
	require.ErrorContains(t, err, testcluster.UnprivilegedUser)
	require.Equal(t, 1, report.Items[0].Checks, "a permission error is not retried")
	require.NotErrorIs(t, err, readiness.ErrTimeout)
}

func TestReadinessCancellation(t *testing.T) {
	c := env.Cluster(t)
	dyn, _ := clients(t, c)
	ri := dyn.Resource(widgetsGVR).Namespace(c.Namespace(t))
	made, err := ri.Create(t.Context(), newWidget("w"), metav1.CreateOptions{})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	run := startWait(ctx, getter(t, c.RESTConfig()), []readiness.ObjectRef{readiness.RefOf(made)}, readiness.WithTimeout(time.Hour))
	run.expect(t, readiness.InProgress)
	cancel()
	report, err := run.finish(t)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, report.Items[0].Err, context.Canceled)
	require.Equal(t, readiness.InProgress, report.Items[0].Result.Status, "the last status seen is kept")
	require.False(t, errors.Is(err, readiness.ErrTimeout))
}
