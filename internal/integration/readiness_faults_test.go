package integration_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/internal/faultproxy"
	"github.com/backupkit/backupkit/readiness"
)

// The waiter behind a fault-injecting proxy, against the real API server (issue 15). The
// test itself writes straight to the API server; only the waiter's reads cross the proxy.

// readFaults is what the proxy does to 30% of the waiter's requests: every fault a read can
// meet. The Forward* faults forward a read, then lose its answer.
var readFaults = []faultproxy.Fault{
	faultproxy.Status429, faultproxy.Status500, faultproxy.Status503, faultproxy.Status504,
	faultproxy.Hang, faultproxy.ResetBeforeAnswer, faultproxy.ForwardThenStatus503, faultproxy.ForwardThenReset,
	faultproxy.CutBodyFIN, faultproxy.CutBodyRST, faultproxy.CorruptBody, faultproxy.WatchCutAfterOneEvent,
}

// Statuses of a Deployment with one replica: rolling out, then available.
var (
	deployRolling = map[string]any{"observedGeneration": int64(1), "replicas": int64(1), "updatedReplicas": int64(1)}
	deployReady   = map[string]any{
		"observedGeneration": int64(1), "replicas": int64(1), "updatedReplicas": int64(1),
		"readyReplicas": int64(1), "availableReplicas": int64(1),
		"conditions": []any{condition("Available", "True", "MinimumReplicasAvailable")},
	}
	widgetNotReady = map[string]any{"observedGeneration": int64(1), "conditions": []any{condition("Ready", "False", "Starting")}}
	widgetReady    = map[string]any{"observedGeneration": int64(1), "conditions": []any{condition("Ready", "True", "Started")}}
)

// setStatus plays the controller, straight to the API server.
func setStatus(ctx context.Context, ri dynamic.ResourceInterface, name string, status map[string]any) error {
	obj, err := ri.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	obj.Object["status"] = status
	_, err = ri.UpdateStatus(ctx, obj, metav1.UpdateOptions{})
	return err
}

// faultyGetter starts a proxy deciding with d in front of the cluster and returns a getter
// through it.
func faultyGetter(t *testing.T, d faultproxy.Decider) (*faultproxy.Proxy, readiness.Getter) {
	t.Helper()
	p, err := faultproxy.Start(env.Cluster(t).RESTConfig(), d)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	return p, getter(t, p.RESTConfig())
}

// underFaults is the proxy's decider for TestReadinessUnderFaults: 30% of plain reads get
// one of readFaults; the first watch is cut after one event, and half the others get a
// watch's faults.
func underFaults() faultproxy.Decider {
	reads := faultproxy.Random(15, 0.3, readFaults...)
	firstWatch := faultproxy.Sequence(faultproxy.WatchCutAfterOneEvent)
	watches := faultproxy.Random(16, 0.5, faultproxy.WatchCutAfterOneEvent, faultproxy.WatchCutAfterOneEvent,
		faultproxy.Hang, faultproxy.Status503, faultproxy.ResetBeforeAnswer, faultproxy.CutBodyFIN)
	return func(r *http.Request, n int64) faultproxy.Fault {
		if !faultproxy.IsWatch(r) {
			return reads(r, n)
		}
		if f := firstWatch(r, n); f != faultproxy.None {
			return f
		}
		return watches(r, n)
	}
}

func TestReadinessUnderFaults(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts []readiness.WaitOption
	}{
		{"watch", nil},
		{"list", []readiness.WaitOption{readiness.WithoutWatch()}},
		{"get", []readiness.WaitOption{readiness.WithListThreshold(math.MaxInt)}},
	} {
		t.Run(mode.name, func(t *testing.T) { testUnderFaults(t, mode.opts == nil, mode.opts...) })
	}
}

func testUnderFaults(t *testing.T, watching bool, opts ...readiness.WaitOption) {
	c := env.Cluster(t)
	dyn, _ := clients(t, c)
	p, g := faultyGetter(t, underFaults())

	// 30 Deployments in one namespace (read with LISTs and a watch), 3 Widgets in another
	// (GETs, under the list threshold of 4).
	type obj struct {
		ri           dynamic.ResourceInterface
		name         string
		mid, ready   map[string]any
		madeReadyYet *atomic.Bool
	}
	var objs []obj
	var refs []readiness.ObjectRef
	deploys := dyn.Resource(deploymentsGVR).Namespace(c.Namespace(t))
	widgets := dyn.Resource(widgetsGVR).Namespace(c.Namespace(t))
	for i := range 33 {
		o := obj{ri: deploys, name: fmt.Sprintf("d%02d", i), mid: deployRolling, ready: deployReady, madeReadyYet: new(atomic.Bool)}
		made := newDeployment(o.name)
		if i >= 30 {
			o = obj{ri: widgets, name: fmt.Sprintf("w%d", i), mid: widgetNotReady, ready: widgetReady, madeReadyYet: new(atomic.Bool)}
			made = newWidget(o.name)
		}
		created, err := o.ri.Create(t.Context(), made, metav1.CreateOptions{})
		require.NoError(t, err)
		objs = append(objs, o)
		refs = append(refs, readiness.RefOf(created))
	}
	byName := map[string]obj{}
	for _, o := range objs {
		byName[o.name] = o
	}

	// Nothing is reported Current before the test made it ready (the flag is set before the
	// write, so a fast waiter cannot beat it).
	var mu sync.Mutex
	var falseCurrent []string
	progress := func(e readiness.Event) {
		if e.Result.Status == readiness.Current && !byName[e.Ref.Name].madeReadyYet.Load() {
			mu.Lock()
			falseCurrent = append(falseCurrent, e.Ref.Name+": "+e.Result.String())
			mu.Unlock()
		}
	}

	// The controller: every object rolling out at once, then ready one by one over 3 s.
	var lastReady atomic.Int64 // UnixNano of the last ready write
	writes := make(chan error, 1)
	go func() {
		ctx := t.Context()
		for _, o := range objs {
			if err := setStatus(ctx, o.ri, o.name, o.mid); err != nil {
				writes <- err
				return
			}
		}
		for _, o := range objs {
			time.Sleep(3 * time.Second / time.Duration(len(objs)))
			o.madeReadyYet.Store(true)
			if err := setStatus(ctx, o.ri, o.name, o.ready); err != nil {
				writes <- err
				return
			}
			lastReady.Store(time.Now().UnixNano())
		}
		writes <- nil
	}()

	backoff := wait.Backoff{Duration: 100 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: math.MaxInt32, Cap: time.Second}
	opts = append([]readiness.WaitOption{readiness.WithRegistry(widgetRules()), readiness.WithTimeout(2 * time.Minute),
		readiness.WithRequestTimeout(time.Second), readiness.WithBackoff(backoff), readiness.WithListThreshold(4),
		readiness.WithProgress(progress)}, opts...)
	report, err := readiness.Wait(t.Context(), g, refs, opts...)
	returned := time.Now()
	require.NoError(t, <-writes)
	require.NoError(t, err)
	require.Equal(t, len(refs), report.Ready())
	require.Empty(t, falseCurrent, "reported Current before it was")

	// Within a few backoff steps of the last object becoming ready: a round or two of
	// backoff at its cap (1 s), a hung request cut by the request timeout (1 s), a 429 that
	// client-go waits out (1 s each) and a retry after it.
	late := returned.Sub(time.Unix(0, lastReady.Load()))
	t.Logf("returned %v after the last object became ready; %d requests, faults %v; report: %d rounds, %d calls",
		late, p.Requests(), p.Counts(), report.Ticks, report.Calls)
	require.Less(t, late, 8*time.Second)

	counts := p.Counts()
	faulted := 0
	for _, n := range counts {
		faulted += n
	}
	require.GreaterOrEqual(t, faulted, 5, "the proxy did fault the waiter's requests: %v", counts)
	if watching {
		require.Positive(t, counts[faultproxy.WatchCutAfterOneEvent], "a watch was cut: %v", counts)
	}
}

// hangSwitch is a Decider that forwards until on is set, then hangs every request.
type hangSwitch struct{ on atomic.Bool }

func (h *hangSwitch) decide(*http.Request, int64) faultproxy.Fault {
	if h.on.Load() {
		return faultproxy.Hang
	}
	return faultproxy.None
}

// lateness allows for the scheduling of a loaded machine (2 cores shared with other test
// runs): the issue asks for the wait to end within 100 ms of the deadline or the cancel;
// measured on such a machine it ends within a few ms, and 150 ms more of slack keeps the
// test from flaking when the machine is busy.
const lateness = 100*time.Millisecond + 150*time.Millisecond

// startHangingWait creates two Widgets, waits behind a proxy until both are seen InProgress,
// then makes the proxy hang every request and waits until one hangs in flight. started is
// taken just before Wait is called.
func startHangingWait(t *testing.T, ctx context.Context, opts ...readiness.WaitOption) (run *waitRun, started time.Time) {
	t.Helper()
	c := env.Cluster(t)
	dyn, _ := clients(t, c)
	ri := dyn.Resource(widgetsGVR).Namespace(c.Namespace(t))
	var refs []readiness.ObjectRef
	for _, name := range []string{"a", "b"} {
		made, err := ri.Create(t.Context(), newWidget(name), metav1.CreateOptions{})
		require.NoError(t, err)
		require.NoError(t, setStatus(t.Context(), ri, name, widgetNotReady))
		refs = append(refs, readiness.RefOf(made))
	}
	sw := &hangSwitch{}
	p, g := faultyGetter(t, sw.decide)
	started = time.Now() // just before Wait's own start: lateness is over-estimated
	run = startWait(ctx, g, refs, append([]readiness.WaitOption{readiness.WithRequestTimeout(time.Hour)}, opts...)...)
	run.expect(t, readiness.InProgress)
	run.expect(t, readiness.InProgress)
	sw.on.Store(true)
	require.Eventually(t, func() bool { return p.Counts()[faultproxy.Hang] > 0 }, eventTimeout, 5*time.Millisecond)
	return run, started
}

// hangModes: the request hanging in flight is a GET, or a LIST.
var hangModes = []struct {
	name string
	opts []readiness.WaitOption
}{
	{"GET", nil},
	{"LIST", []readiness.WaitOption{readiness.WithListThreshold(1), readiness.WithoutWatch()}},
}

func TestReadinessCancelWithARequestHanging(t *testing.T) {
	for _, mode := range hangModes {
		t.Run(mode.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			run, _ := startHangingWait(t, ctx, mode.opts...)
			time.Sleep(50 * time.Millisecond) // the request is in flight, not just arriving
			cancelled := time.Now()
			cancel()
			report, err := run.finish(t)
			took := time.Since(cancelled)
			t.Logf("Wait returned %v after the cancel", took)
			require.Less(t, took, lateness)
			require.ErrorIs(t, err, context.Canceled)
			for _, it := range report.Items {
				require.ErrorIs(t, it.Err, context.Canceled, it.Ref.String())
				require.NotErrorIs(t, it.Err, readiness.ErrStopped, it.Ref.String())
				require.Equal(t, readiness.InProgress, it.Result.Status, "%s keeps the last status computed", it.Ref)
				require.Equal(t, readiness.Reason("WidgetNotReady"), it.Result.Reason)
			}
		})
	}
}

func TestReadinessTimeoutWithARequestHanging(t *testing.T) {
	const timeout = 2 * time.Second
	for _, mode := range hangModes {
		t.Run(mode.name, func(t *testing.T) {
			run, started := startHangingWait(t, t.Context(), append([]readiness.WaitOption{readiness.WithTimeout(timeout)}, mode.opts...)...)
			report, err := run.finish(t)
			late := time.Since(started.Add(timeout))
			t.Logf("Wait returned %v after its deadline", late)
			require.Less(t, late, lateness)
			require.ErrorIs(t, err, readiness.ErrTimeout)
			for _, it := range report.Items {
				require.ErrorIs(t, it.Err, readiness.ErrTimeout, it.Ref.String())
				require.Equal(t, readiness.InProgress, it.Result.Status, "%s keeps the last status computed", it.Ref)
			}
		})
	}
}
