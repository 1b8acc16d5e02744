package readiness_test

import (
	"math"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/internal/faultproxy"
	"github.com/backupkit/backupkit/internal/testcluster"
	"github.com/backupkit/backupkit/readiness"
)

// liveEnv is a real API server for the tests of Wait behind internal/faultproxy; the other
// tests of the package do not use it.
var liveEnv testcluster.Env

func TestMain(m *testing.M) { os.Exit(liveEnv.Main(m, nil)) }

// configMapGetter is a DynamicGetter through cfg with a fixed RESTMapper, so that only the
// reads of the objects cross the proxy (no discovery).
func configMapGetter(t *testing.T, cfg *rest.Config) *readiness.DynamicGetter {
	t.Helper()
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Version: "v1"}})
	mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	return readiness.NewDynamicGetter(dyn, mapper)
}

// configMapReads matches the GETs and LISTs of ConfigMaps (not watches).
func configMapReads(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/configmaps") && !faultproxy.IsWatch(r)
}

// TestWaitBehindFaultProxy: reads answered with 429 (Retry-After), 5xx, bodies cut or
// corrupt, connections reset, or hanging past the request timeout are retried until the
// object's true status; a 403 is reported at once; an object that does not exist is never
// reported ready.
func TestWaitBehindFaultProxy(t *testing.T) {
	c := liveEnv.Cluster(t)
	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	ns := c.Namespace(t)
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "settings", "namespace": ns}}}
	made, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(ns).
		Create(t.Context(), cm, metav1.CreateOptions{})
	require.NoError(t, err)
	existing := readiness.RefOf(made)
	missing := readiness.ObjectRef{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespace: ns, Name: "missing"}

	transient := [][]faultproxy.Fault{
		{faultproxy.Status429},
		{faultproxy.Status500},
		{faultproxy.Status503, faultproxy.Status504},
		{faultproxy.CutBodyFIN},
		{faultproxy.CutBodyRST},
		{faultproxy.CorruptBody, faultproxy.CorruptBody},
		{faultproxy.Hang},
		{faultproxy.ResetBeforeAnswer, faultproxy.ForwardThenReset, faultproxy.ForwardThenStatus503},
		{faultproxy.Status429, faultproxy.Status500, faultproxy.Status503, faultproxy.CutBodyFIN, faultproxy.Hang,
			faultproxy.CutBodyRST, faultproxy.ResetBeforeAnswer, faultproxy.CorruptBody, faultproxy.Status504},
	}
	opts := func(extra ...readiness.WaitOption) []readiness.WaitOption {
		return append([]readiness.WaitOption{
			readiness.WithRequestTimeout(2 * time.Second), readiness.WithTimeout(90 * time.Second),
			readiness.WithBackoff(wait.Backoff{Duration: 10 * time.Millisecond, Factor: 1, Steps: math.MaxInt32}),
		}, extra...)
	}
	modes := []struct {
		name string
		opts []readiness.WaitOption
	}{
		{"get", []readiness.WaitOption{readiness.WithListThreshold(math.MaxInt)}},
		{"list", []readiness.WaitOption{readiness.WithoutWatch(), readiness.WithListThreshold(1)}},
	}
	for _, mode := range modes {
		for _, faults := range transient {
			name := mode.name
			for _, f := range faults {
				name += "/" + string(f)
			}
			t.Run(name, func(t *testing.T) {
				p, err := faultproxy.Start(c.RESTConfig(), faultproxy.When(configMapReads, faultproxy.Sequence(faults...)))
				require.NoError(t, err)
				defer func() { require.NoError(t, p.Close()) }()
				rep, err := readiness.Wait(t.Context(), configMapGetter(t, p.RESTConfig()), []readiness.ObjectRef{existing},
					opts(mode.opts...)...)
				require.NoError(t, err)
				require.Equal(t, readiness.Current, rep.Items[0].Result.Status)
				require.Equal(t, made.GetUID(), rep.Items[0].UID)
				n := 0
				for _, k := range p.Counts() {
					n += k
				}
				require.Equal(t, len(faults), n, "every fault was met: %v", p.Counts())
			})
		}
		t.Run(mode.name+"/forbidden after transient faults", func(t *testing.T) {
			p, err := faultproxy.Start(c.UnprivilegedRESTConfig(), faultproxy.When(configMapReads,
				faultproxy.Sequence(faultproxy.Status503, faultproxy.CutBodyFIN)))
			require.NoError(t, err)
			defer func() { require.NoError(t, p.Close()) }()
			rep, err := readiness.Wait(t.Context(), configMapGetter(t, p.RESTConfig()), []readiness.ObjectRef{existing},
				opts(mode.opts...)...)
			require.Error(t, err)
			require.True(t, apierrors.IsForbidden(err), "%v", err)
			require.True(t, apierrors.IsForbidden(rep.Items[0].Err), "%v", rep.Items[0].Err)
			require.NotEqual(t, readiness.Current, rep.Items[0].Result.Status)
			require.Equal(t, 3, rep.Items[0].Checks, "two transient faults, then the 403")
		})
		t.Run(mode.name+"/missing object under faults", func(t *testing.T) {
			p, err := faultproxy.Start(c.RESTConfig(), faultproxy.When(configMapReads, faultproxy.Random(3, 0.5,
				faultproxy.Status429, faultproxy.Status503, faultproxy.CutBodyFIN, faultproxy.CorruptBody)))
			require.NoError(t, err)
			defer func() { require.NoError(t, p.Close()) }()
			rep, err := readiness.Wait(t.Context(), configMapGetter(t, p.RESTConfig()), []readiness.ObjectRef{missing, existing},
				append(opts(mode.opts...), readiness.WithTimeout(5*time.Second))...)
			require.ErrorIs(t, err, readiness.ErrTimeout)
			require.Equal(t, readiness.NotFound, rep.Items[0].Result.Status, "never reported ready")
			require.ErrorIs(t, rep.Items[0].Err, readiness.ErrTimeout)
			require.Equal(t, readiness.Current, rep.Items[1].Result.Status)
			require.NoError(t, rep.Items[1].Err)
		})
	}
}
