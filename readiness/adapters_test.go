package readiness_test

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/backupkit/backupkit/readiness"
)

// veleroID stands in for velero.ResourceIdentifier.
type veleroID struct {
	GroupResource   schema.GroupResource
	Namespace, Name string
}

func toRef(id veleroID) readiness.ObjectRef {
	return readiness.ObjectRef{GroupKind: schema.GroupKind{Group: id.GroupResource.Group, Kind: "Deployment"}, Namespace: id.Namespace, Name: id.Name}
}

func TestAreItemsReady(t *testing.T) {
	ids := []veleroID{{deployGR, "shop", "web"}, {deployGR, "shop", "api"}}
	tests := []struct {
		name    string
		web     resp
		want    bool
		wantErr error
	}{
		{"all ready", resp{obj: deploy("shop", "web", "u1", "ready")}, true, nil},
		{"one progressing", resp{obj: deploy("shop", "web", "u1", "progressing")}, false, nil},
		{"one missing", resp{err: apierrors.NewNotFound(deployGR, "web")}, false, nil},
		{"transient", resp{err: apierrors.NewServiceUnavailable("x")}, false, nil},
		{"failed", resp{obj: deploy("shop", "web", "u1", "deadline")}, false, readiness.ErrFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newFake()
			g.add("shop", "web", tc.web)
			g.add("shop", "api", resp{obj: deploy("shop", "api", "u2", "ready")})
			areReady := readiness.AreItemsReady(context.Background(), g, toRef)
			ok, err := areReady(ids)
			require.Equal(t, tc.want, ok)
			if tc.wantErr == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tc.wantErr)
			}
			require.Equal(t, 2, g.gets, "one read per item, no waiting")
		})
	}
	t.Run("forbidden", func(t *testing.T) {
		g := newFake()
		g.add("shop", "web", resp{err: apierrors.NewForbidden(deployGR, "web", errors.New("rbac"))})
		ok, err := readiness.AreItemsReady(context.Background(), g, toRef)(ids[:1])
		require.False(t, ok)
		require.True(t, apierrors.IsForbidden(err))
	})
}

func TestCheckerFromItemsReady(t *testing.T) {
	toID := func(u *unstructured.Unstructured) veleroID {
		return veleroID{deployGR, u.GetNamespace(), u.GetName()}
	}
	tests := []struct {
		name   string
		ok     bool
		err    error
		status readiness.Status
		reason readiness.Reason
	}{
		{"ready", true, nil, readiness.Current, readiness.ReasonPluginReady},
		{"not ready", false, nil, readiness.InProgress, readiness.ReasonPluginNotReady},
		{"error", false, errors.New("plugin broke"), readiness.Failed, readiness.ReasonPluginError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []veleroID
			plugin := func(ids []veleroID) (bool, error) { got = ids; return tc.ok, tc.err }
			reg := readiness.NewRegistry()
			reg.Register(deployGK, readiness.CheckerFromItemsReady(plugin, toID))
			r := readiness.Compute(deploy("shop", "web", "u1", "ready"), readiness.WithRegistry(reg))
			require.Equal(t, tc.status, r.Status)
			require.Equal(t, tc.reason, r.Reason)
			require.Equal(t, []veleroID{{deployGR, "shop", "web"}}, got)
		})
	}
}

func newDynamic(t *testing.T, objs ...runtime.Object) (*dynamicfake.FakeDynamicClient, meta.RESTMapper) {
	t.Helper()
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	nsGVR := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{gvr: "DeploymentList", nsGVR: "NamespaceList"}, objs...)
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Group: "apps", Version: "v1"}, {Version: "v1"}})
	mapper.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, meta.RESTScopeNamespace)
	mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, meta.RESTScopeRoot)
	return client, mapper
}

func TestDynamicGetter(t *testing.T) {
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": "shop", "uid": "ns1"}, "status": map[string]any{"phase": "Active"}}}
	client, mapper := newDynamic(t, deploy("shop", "web", "u1", "ready"), deploy("shop", "api", "u2", "progressing"), deploy("other", "web", "u3", "ready"), ns)
	g := readiness.NewDynamicGetter(client, mapper)
	ctx := context.Background()

	u, err := g.Get(ctx, ref("shop", "web"))
	require.NoError(t, err)
	require.Equal(t, "u1", string(u.GetUID()))

	nsObj, err := g.Get(ctx, readiness.ObjectRef{GroupKind: schema.GroupKind{Kind: "Namespace"}, Name: "shop"})
	require.NoError(t, err)
	require.Equal(t, readiness.Current, readiness.Compute(nsObj).Status)

	_, err = g.Get(ctx, ref("shop", "ghost"))
	require.True(t, apierrors.IsNotFound(err))

	_, err = g.Get(ctx, readiness.ObjectRef{GroupKind: schema.GroupKind{Group: "example.com", Kind: "Widget"}, Name: "w"})
	require.True(t, meta.IsNoMatchError(err), "an unknown kind: %v", err)

	list, err := g.List(ctx, deployGK, "shop")
	require.NoError(t, err)
	var names []string
	for _, o := range list.Items {
		names = append(names, o.GetName())
	}
	require.ElementsMatch(t, []string{"web", "api"}, names)

	// A kind not served yet waits as NotFound until the deadline.
	widget := readiness.ObjectRef{GroupKind: schema.GroupKind{Group: "example.com", Kind: "Widget"}, Name: "w"}
	rep, _, err := runWait(t, ctx, g, []readiness.ObjectRef{widget}, readiness.WithTimeout(2*time.Second))
	require.ErrorIs(t, err, readiness.ErrTimeout)
	require.Equal(t, readiness.NotFound, rep.Items[0].Result.Status)

	// Through Wait: the LIST path (threshold 1).
	rep, err = readiness.Wait(ctx, g, []readiness.ObjectRef{ref("shop", "web"), ref("other", "web")}, readiness.WithListThreshold(1))
	require.NoError(t, err)
	require.Equal(t, 2, rep.Calls, "one LIST per namespace")

	var gets, lists int
	client.PrependReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		switch a.GetVerb() {
		case "get":
			gets++
		case "list":
			lists++
			return true, nil, apierrors.NewForbidden(deployGR, "", fmt.Errorf("no list"))
		}
		return false, nil, nil
	})
	rep, err = readiness.Wait(ctx, g, []readiness.ObjectRef{ref("shop", "web"), ref("other", "web")}, readiness.WithListThreshold(1))
	require.NoError(t, err)
	require.Equal(t, 2, lists)
	require.Equal(t, 2, gets, "GET after LIST was forbidden")
	require.Equal(t, 4, rep.Calls)
}

func TestDynamicGetterWatch(t *testing.T) {
	client, mapper := newDynamic(t, deploy("shop", "web", "u-web", "progressing"), deploy("shop", "api", "u-api", "progressing"))
	var watches atomic.Int32
	client.PrependWatchReactor("*", func(k8stesting.Action) (bool, watch.Interface, error) {
		watches.Add(1)
		return false, nil, nil // let the tracker serve it
	})
	g := readiness.NewDynamicGetter(client, mapper)
	fc, result := startWait(context.Background(), g, refsIn("shop", "web", "api"), readiness.WithListThreshold(1))
	// The waiter sleeps only once its watch is open.
	for watches.Load() == 0 || !fc.HasWaiters() {
		goruntime.Gosched()
	}
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	for _, name := range []string{"web", "api"} {
		_, err := client.Resource(gvr).Namespace("shop").Update(context.Background(), deploy("shop", name, "u-"+name, "ready"), metav1.UpdateOptions{})
		require.NoError(t, err)
	}
	rep, err := result()
	require.NoError(t, err)
	require.Equal(t, 2, rep.Ready())
	require.Equal(t, 2, rep.Calls, "one LIST and one WATCH, no polling")
	require.Equal(t, t0, fc.Now())
}

func TestRefForResource(t *testing.T) {
	_, mapper := newDynamic(t)
	r, err := readiness.RefForResource(mapper, deployGR, "shop", "web")
	require.NoError(t, err)
	require.Equal(t, ref("shop", "web"), r)

	_, err = readiness.RefForResource(mapper, schema.GroupResource{Group: "example.com", Resource: "widgets"}, "", "w")
	require.True(t, meta.IsNoMatchError(err))
	require.ErrorContains(t, err, "readiness: kind of widgets.example.com w: ")
}
