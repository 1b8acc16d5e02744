package faultproxy_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/internal/faultproxy"
)

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

func configMap(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name},
		"data":     map[string]any{"k": "v"},
	}}
}

// setup starts a proxy in front of the package's cluster and returns a client through it, a
// client straight to the API server, and a fresh namespace holding the ConfigMap "present".
func setup(t *testing.T, d faultproxy.Decider) (p *faultproxy.Proxy, via, direct dynamic.ResourceInterface) {
	t.Helper()
	c := env.Cluster(t)
	ns := c.Namespace(t)
	d0, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	direct = d0.Resource(configMaps).Namespace(ns)
	_, err = direct.Create(t.Context(), configMap("present"), metav1.CreateOptions{})
	require.NoError(t, err)
	p, err = faultproxy.Start(c.RESTConfig(), d)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	d1, err := dynamic.NewForConfig(p.RESTConfig())
	require.NoError(t, err)
	return p, d1.Resource(configMaps).Namespace(ns), direct
}

func TestFaultsAsClientGoSeesThem(t *testing.T) {
	get := func(ctx context.Context, ri dynamic.ResourceInterface) error {
		_, err := ri.Get(ctx, "present", metav1.GetOptions{})
		return err
	}
	create := func(ctx context.Context, ri dynamic.ResourceInterface) error {
		_, err := ri.Create(ctx, configMap("made"), metav1.CreateOptions{})
		return err
	}
	tests := []struct {
		name  string
		fault faultproxy.Fault
		call  func(context.Context, dynamic.ResourceInterface) error
		check func(t *testing.T, err error)
		// applied: whether the API server holds "made" afterwards (create calls only).
		applied bool
	}{
		{name: "None", fault: faultproxy.None, call: get, check: func(t *testing.T, err error) { require.NoError(t, err) }},
		{name: "500", fault: faultproxy.Status500, call: get, check: func(t *testing.T, err error) { require.True(t, apierrors.IsInternalError(err), "%v", err) }},
		{name: "503", fault: faultproxy.Status503, call: get, check: func(t *testing.T, err error) { require.True(t, apierrors.IsServiceUnavailable(err), "%v", err) }},
		{name: "504", fault: faultproxy.Status504, call: get, check: func(t *testing.T, err error) { require.True(t, apierrors.IsTimeout(err), "%v", err) }},
		{name: "reset before answer", fault: faultproxy.ResetBeforeAnswer, call: create, check: func(t *testing.T, err error) {
			require.True(t, utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err), "%v", err)
		}},
		{name: "forward then 503", fault: faultproxy.ForwardThenStatus503, call: create, applied: true, check: func(t *testing.T, err error) {
			require.True(t, apierrors.IsServiceUnavailable(err), "%v", err)
		}},
		{name: "forward then reset", fault: faultproxy.ForwardThenReset, call: create, applied: true, check: func(t *testing.T, err error) {
			require.True(t, utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err), "%v", err)
		}},
		{name: "cut body FIN", fault: faultproxy.CutBodyFIN, call: get, check: func(t *testing.T, err error) {
			require.ErrorIs(t, err, io.ErrUnexpectedEOF)
			require.ErrorContains(t, err, "unexpected error when reading response body. Please retry.")
		}},
		{name: "cut body RST", fault: faultproxy.CutBodyRST, call: get, check: func(t *testing.T, err error) {
			require.True(t, utilnet.IsConnectionReset(err), "%v", err)
			require.ErrorContains(t, err, "unexpected error when reading response body. Please retry.")
		}},
		{name: "corrupt body", fault: faultproxy.CorruptBody, call: get, check: func(t *testing.T, err error) {
			require.Error(t, err)
			var st apierrors.APIStatus
			require.False(t, errors.As(err, &st), "not an API error: %v", err)
		}},
		{name: "watch cut on a GET is no fault", fault: faultproxy.WatchCutAfterOneEvent, call: get, check: func(t *testing.T, err error) { require.NoError(t, err) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, via, direct := setup(t, faultproxy.Sequence(tt.fault))
			tt.check(t, tt.call(t.Context(), via))
			want := map[faultproxy.Fault]int{}
			if tt.fault != faultproxy.None && tt.fault != faultproxy.WatchCutAfterOneEvent {
				want[tt.fault] = 1
			}
			require.Equal(t, want, p.Counts())
			require.EqualValues(t, 1, p.Requests(), "client-go did not retry")
			_, err := direct.Get(t.Context(), "made", metav1.GetOptions{})
			if tt.applied {
				require.NoError(t, err, "the API server applied the create")
			} else {
				require.True(t, apierrors.IsNotFound(err), "nothing was created: %v", err)
			}
		})
	}
}

func TestStatus429IsRetriedByClientGo(t *testing.T) {
	p, via, _ := setup(t, faultproxy.Sequence(faultproxy.Status429))
	_, err := via.Get(t.Context(), "present", metav1.GetOptions{})
	require.NoError(t, err, "client-go waits Retry-After and tries again")
	require.EqualValues(t, 2, p.Requests())
	require.Equal(t, map[faultproxy.Fault]int{faultproxy.Status429: 1}, p.Counts())
}

func TestHangLastsUntilTheClientGivesUp(t *testing.T) {
	_, via, _ := setup(t, faultproxy.Sequence(faultproxy.Hang))
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err := via.Get(ctx, "present", metav1.GetOptions{})
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestCloseEndsHungRequests(t *testing.T) {
	p, via, _ := setup(t, faultproxy.Sequence(faultproxy.Hang))
	done := make(chan error, 1)
	go func() {
		_, err := via.Get(t.Context(), "present", metav1.GetOptions{}) // no deadline of its own
		done <- err
	}()
	require.Eventually(t, func() bool { return p.Requests() == 1 }, 30*time.Second, 10*time.Millisecond)
	require.NoError(t, p.Close())
	select {
	case err := <-done:
		require.Error(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the hung request did not end when the proxy closed")
	}
	require.NoError(t, p.Close(), "a second Close")
}

func TestWatchCutAfterOneEvent(t *testing.T) {
	_, via, _ := setup(t, faultproxy.OnlyWatches(faultproxy.Sequence(faultproxy.WatchCutAfterOneEvent)))
	list, err := via.List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	w, err := via.Watch(t.Context(), metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	require.NoError(t, err)
	defer w.Stop()
	for _, name := range []string{"one", "two"} {
		_, err := via.Create(t.Context(), configMap(name), metav1.CreateOptions{})
		require.NoError(t, err)
	}
	var got []watch.EventType
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				require.Equal(t, []watch.EventType{watch.Added}, got, "one event, then the stream ended")
				return
			}
			got = append(got, ev.Type)
		case <-timeout:
			t.Fatalf("the watch did not end; events %v", got)
		}
	}
}

func TestRESTConfigSpeaksPlainHTTP(t *testing.T) {
	p, _, _ := setup(t, nil)
	cfg := p.RESTConfig()
	require.Equal(t, p.URL(), cfg.Host)
	require.Empty(t, cfg.CAData)
	resp, err := http.Get(p.URL() + "/readyz")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "the proxy adds the target's credentials")
}

// Close leaves none of the proxy's goroutines behind, hung requests and open watches
// included. The clients here keep no idle connections, so what remains is the proxy's.
func TestCloseLeavesNoGoroutine(t *testing.T) {
	c := env.Cluster(t)
	before := runtime.NumGoroutine()
	p, err := faultproxy.Start(c.RESTConfig(), faultproxy.Sequence(faultproxy.None, faultproxy.Hang))
	require.NoError(t, err)
	cfg := p.RESTConfig()
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if tr, ok := rt.(*http.Transport); ok {
			tr = tr.Clone()
			tr.DisableKeepAlives = true
			return tr
		}
		return rt
	}
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	ri := client.Resource(configMaps).Namespace("default")
	w, err := ri.Watch(t.Context(), metav1.ListOptions{}) // forwarded: a stream held open
	require.NoError(t, err)
	hung := make(chan error, 1)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		_, err := ri.Get(ctx, "any", metav1.GetOptions{})
		hung <- err
	}()
	require.Eventually(t, func() bool { return p.Requests() == 2 }, 30*time.Second, 5*time.Millisecond)
	require.NoError(t, p.Close())
	w.Stop()
	cancel()
	<-hung
	// Polled by hand: assert.Eventually runs its condition in goroutines of its own.
	for end := time.Now().Add(30 * time.Second); runtime.NumGoroutine() > before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before Start:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
	}
}

// StartPlain passes the Host header on as the client sent it; StallBody delivers the
// headers and half the body, then nothing until the client gives up.
func TestStartPlainStallBody(t *testing.T) {
	body := strings.Repeat("x", 1000)
	var hosts []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	p, err := faultproxy.StartPlain(srv.URL, faultproxy.Sequence(faultproxy.None, faultproxy.StallBody))
	require.NoError(t, err)
	defer p.Close()

	resp, err := http.Get(p.URL() + "/a")
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, body, string(got))

	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL()+"/b", nil)
	require.NoError(t, err)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err, "the headers arrive")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	got, err = io.ReadAll(resp.Body)
	require.ErrorIs(t, err, context.DeadlineExceeded, "the body stalls until the client gives up")
	require.Equal(t, body[:len(body)/2], string(got))
	_ = resp.Body.Close()

	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{p.URL()[len("http://"):], p.URL()[len("http://"):]}, hosts)
	require.Equal(t, map[faultproxy.Fault]int{faultproxy.StallBody: 1}, p.Counts())
}
