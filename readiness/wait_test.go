package readiness_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/backupkit/backupkit/readiness"
)

var (
	deployGK = schema.GroupKind{Group: "apps", Kind: "Deployment"}
	deployGR = schema.GroupResource{Group: "apps", Resource: "deployments"}
	t0       = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
)

// deploy returns a Deployment in namespace ns named name with the given UID whose status is
// ready (Current), progressing (InProgress) or "deadline" (Failed).
func deploy(ns, name, uid, state string) *unstructured.Unstructured {
	status := map[string]any{"observedGeneration": int64(1), "replicas": int64(1), "updatedReplicas": int64(1), "readyReplicas": int64(1), "availableReplicas": int64(1)}
	switch state {
	case "progressing":
		status["readyReplicas"], status["availableReplicas"] = int64(0), int64(0)
	case "deadline":
		status["conditions"] = []any{map[string]any{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "namespace": ns, "uid": uid, "generation": int64(1)},
		"spec":     map[string]any{"replicas": int64(1)},
		"status":   status,
	}}
}

type resp struct {
	obj *unstructured.Unstructured
	err error
}

// fakeGetter serves a script of responses per "namespace/name": the n-th read gets the n-th
// response, the last one repeats. It counts GETs and LISTs.
type fakeGetter struct {
	mu     sync.Mutex
	script map[string][]resp
	reads  map[string]int
	gets   int
	lists  int
	// listErr, if set, is returned by every LIST.
	listErr error
}

func newFake() *fakeGetter {
	return &fakeGetter{script: map[string][]resp{}, reads: map[string]int{}}
}

func (f *fakeGetter) add(ns, name string, rs ...resp) { f.script[ns+"/"+name] = rs }

func (f *fakeGetter) next(key string) resp {
	rs := f.script[key]
	if len(rs) == 0 {
		return resp{err: apierrors.NewNotFound(deployGR, key)}
	}
	n := f.reads[key]
	f.reads[key]++
	return rs[min(n, len(rs)-1)]
}

func (f *fakeGetter) Get(_ context.Context, ref readiness.ObjectRef) (*unstructured.Unstructured, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	r := f.next(ref.Namespace + "/" + ref.Name)
	return r.obj, r.err
}

// listingGetter adds List to fakeGetter.
type listingGetter struct{ *fakeGetter }

func (f listingGetter) List(_ context.Context, _ schema.GroupKind, ns string) (*unstructured.UnstructuredList, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists++
	if f.listErr != nil {
		return nil, f.listErr
	}
	out := &unstructured.UnstructuredList{}
	out.SetResourceVersion("100")
	for key := range f.script {
		if len(key) > len(ns) && key[:len(ns)+1] == ns+"/" {
			if r := f.next(key); r.obj != nil {
				out.Items = append(out.Items, *r.obj)
			}
		}
	}
	return out, nil
}

// runWait runs Wait on a fake clock stepped by one second whenever the waiter sleeps; the
// default backoff is replaced by a fixed one-second period so ticks fall on whole seconds.
func runWait(t *testing.T, ctx context.Context, g readiness.Getter, refs []readiness.ObjectRef, opts ...readiness.WaitOption) (*readiness.Report, time.Duration, error) {
	t.Helper()
	return runWaitFunc(t, func(_ context.Context, opts ...readiness.WaitOption) (*readiness.Report, error) {
		return readiness.Wait(ctx, g, refs, opts...)
	}, opts...)
}

// runWaitFunc runs a waiting function as runWait runs Wait.
func runWaitFunc(t *testing.T, waitFn func(context.Context, ...readiness.WaitOption) (*readiness.Report, error), opts ...readiness.WaitOption) (*readiness.Report, time.Duration, error) {
	t.Helper()
	fc := testingclock.NewFakeClock(t0)
	opts = append([]readiness.WaitOption{readiness.WithBackoff(wait.Backoff{Duration: time.Second}), readiness.WithClock(fc)}, opts...)
	var rep *readiness.Report
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		rep, err = waitFn(context.Background(), opts...)
	}()
	for {
		select {
		case <-done:
			return rep, fc.Since(t0), err
		default:
			if fc.HasWaiters() {
				fc.Step(time.Second)
			} else {
				runtime.Gosched()
			}
		}
	}
}

func ref(ns, name string) readiness.ObjectRef {
	return readiness.ObjectRef{GroupKind: deployGK, Namespace: ns, Name: name}
}

func TestWaitTransientThenReady(t *testing.T) {
	g := newFake()
	g.add("shop", "web",
		resp{err: apierrors.NewServiceUnavailable("etcd leader change")},
		resp{err: apierrors.NewTooManyRequests("slow down", 1)},
		resp{err: fmt.Errorf("dial: %w", syscall.ECONNREFUSED)},
		resp{err: apierrors.NewInternalError(errors.New("boom"))},
		resp{obj: deploy("shop", "web", "u1", "ready")})
	rep, elapsed, err := runWait(t, context.Background(), g, []readiness.ObjectRef{ref("shop", "web")})
	require.NoError(t, err)
	require.Equal(t, 1, rep.Ready())
	require.Equal(t, 5, rep.Calls)
	require.Equal(t, 5, g.gets)
	require.Equal(t, 5, rep.Ticks)
	require.Equal(t, 4*time.Second, elapsed)
	it := rep.Items[0]
	require.Equal(t, readiness.Current, it.Result.Status)
	require.Equal(t, "u1", string(it.UID))
	require.True(t, apierrors.IsInternalError(it.LastTransient))
}

func TestWaitPermanentError(t *testing.T) {
	for name, perm := range map[string]error{
		"forbidden":   apierrors.NewForbidden(deployGR, "web", errors.New("rbac")),
		"bad request": apierrors.NewBadRequest("nope"),
	} {
		t.Run(name, func(t *testing.T) {
			g := newFake()
			g.add("shop", "web", resp{err: perm})
			g.add("shop", "api", resp{obj: deploy("shop", "api", "u2", "progressing")})
			rep, elapsed, err := runWait(t, context.Background(), g, []readiness.ObjectRef{ref("shop", "web"), ref("shop", "api")})
			require.Error(t, err)
			require.Equal(t, time.Duration(0), elapsed, "surfaced at once")
			require.Equal(t, 2, rep.Calls)
			require.ErrorIs(t, rep.Items[0].Err, perm)
			require.ErrorIs(t, rep.Items[1].Err, readiness.ErrStopped)
			require.NotErrorIs(t, err, readiness.ErrTimeout)
			var we *readiness.WaitError
			require.ErrorAs(t, err, &we)
			require.Len(t, we.Items, 2)
		})
	}
	t.Run("forbidden message", func(t *testing.T) {
		g := newFake()
		g.add("shop", "web", resp{err: apierrors.NewForbidden(deployGR, "web", errors.New("rbac"))})
		_, _, err := runWait(t, context.Background(), g, []readiness.ObjectRef{ref("shop", "web")})
		require.True(t, apierrors.IsForbidden(err))
		require.EqualError(t, err, `readiness: 0 of 1 objects ready; Deployment.apps shop/web: deployments.apps "web" is forbidden: rbac: last status Unknown (PermanentError): no read succeeded`)
	})
}

func TestWaitFailedMidway(t *testing.T) {
	setup := func() *fakeGetter {
		g := newFake()
		g.add("shop", "web", resp{obj: deploy("shop", "web", "u1", "progressing")}, resp{obj: deploy("shop", "web", "u1", "deadline")})
		g.add("shop", "api", resp{obj: deploy("shop", "api", "u2", "progressing")}, resp{obj: deploy("shop", "api", "u2", "progressing")}, resp{obj: deploy("shop", "api", "u2", "ready")})
		return g
	}
	refs := []readiness.ObjectRef{ref("shop", "web"), ref("shop", "api")}
	t.Run("ends the wait", func(t *testing.T) {
		rep, elapsed, err := runWait(t, context.Background(), setup(), refs)
		require.ErrorIs(t, err, readiness.ErrFailed)
		require.Equal(t, time.Second, elapsed)
		require.ErrorIs(t, rep.Items[0].Err, readiness.ErrFailed)
		require.Equal(t, readiness.Reason("ProgressDeadlineExceeded"), rep.Items[0].Result.Reason)
		require.ErrorIs(t, rep.Items[1].Err, readiness.ErrStopped)
	})
	t.Run("keep going", func(t *testing.T) {
		rep, elapsed, err := runWait(t, context.Background(), setup(), refs, readiness.WithKeepGoing())
		require.ErrorIs(t, err, readiness.ErrFailed)
		require.NotErrorIs(t, err, readiness.ErrStopped)
		require.Equal(t, 2*time.Second, elapsed)
		require.NoError(t, rep.Items[1].Err)
		require.Equal(t, 1, rep.Ready())
	})
}

func TestWaitTimeouts(t *testing.T) {
	g := newFake()
	g.add("shop", "slow", resp{obj: deploy("shop", "slow", "u1", "progressing")})
	g.add("shop", "late", resp{obj: deploy("shop", "late", "u2", "progressing")}, resp{obj: deploy("shop", "late", "u2", "progressing")}, resp{obj: deploy("shop", "late", "u2", "progressing")}, resp{obj: deploy("shop", "late", "u2", "ready")})
	refs := []readiness.ObjectRef{ref("shop", "slow"), ref("shop", "late")}
	t.Run("global deadline", func(t *testing.T) {
		g := newFake()
		g.add("shop", "slow", resp{obj: deploy("shop", "slow", "u1", "progressing")})
		rep, elapsed, err := runWait(t, context.Background(), g, refs[:1], readiness.WithTimeout(10*time.Second))
		require.ErrorIs(t, err, readiness.ErrTimeout)
		require.Equal(t, 10*time.Second, elapsed)
		require.Equal(t, 11, rep.Calls, "a read at 0s..10s")
		require.Equal(t, readiness.Reason("LessAvailable"), rep.Items[0].Result.Reason)
	})
	t.Run("per item inside the global deadline", func(t *testing.T) {
		rep, elapsed, err := runWait(t, context.Background(), g, refs,
			readiness.WithTimeout(time.Minute), readiness.WithItemTimeout(2*time.Second), readiness.WithKeepGoing())
		require.ErrorIs(t, err, readiness.ErrTimeout)
		require.Equal(t, 2*time.Second, elapsed, "well before the global minute")
		require.ErrorIs(t, rep.Items[0].Err, readiness.ErrTimeout)
		require.ErrorIs(t, rep.Items[1].Err, readiness.ErrTimeout, "late would be ready at 3s")
	})
	t.Run("an item timeout beyond the global deadline has no effect", func(t *testing.T) {
		g := newFake()
		g.add("shop", "slow", resp{obj: deploy("shop", "slow", "u1", "progressing")})
		rep, elapsed, err := runWait(t, context.Background(), g, refs[:1],
			readiness.WithTimeout(10*time.Second), readiness.WithItemTimeout(time.Hour))
		require.ErrorIs(t, err, readiness.ErrTimeout)
		require.Equal(t, 10*time.Second, elapsed, "the item timeout cannot lengthen the wait")
		require.ErrorIs(t, rep.Items[0].Err, readiness.ErrTimeout)
	})
}

func TestWaitCancel(t *testing.T) {
	g := newFake()
	g.add("shop", "web", resp{obj: deploy("shop", "web", "u1", "progressing")})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	rep, _, err := runWait(t, ctx, g, []readiness.ObjectRef{ref("shop", "web")},
		readiness.WithProgress(func(readiness.Event) { calls++; cancel() }))
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 1, calls)
	require.Equal(t, 1, rep.Calls)
	require.Equal(t, readiness.InProgress, rep.Items[0].Result.Status)

	// Already cancelled: no API call at all.
	rep, _, err = runWait(t, ctx, g, []readiness.ObjectRef{ref("shop", "web")})
	require.ErrorIs(t, err, context.Canceled)
	require.Zero(t, rep.Calls)
}

func TestWaitNotFoundThenCreated(t *testing.T) {
	g := newFake()
	nf := apierrors.NewNotFound(deployGR, "web")
	g.add("shop", "web", resp{err: nf}, resp{err: nf}, resp{obj: deploy("shop", "web", "u1", "progressing")}, resp{obj: deploy("shop", "web", "u1", "ready")})
	var events []readiness.Event
	rep, elapsed, err := runWait(t, context.Background(), g, []readiness.ObjectRef{ref("shop", "web")},
		readiness.WithProgress(func(e readiness.Event) { events = append(events, e) }))
	require.NoError(t, err)
	require.Equal(t, 3*time.Second, elapsed)
	require.Equal(t, 4, rep.Items[0].Checks)
	require.Len(t, events, 3)
	require.Equal(t, readiness.Status(""), events[0].Previous.Status)
	require.Equal(t, readiness.NotFound, events[0].Result.Status)
	require.Equal(t, readiness.InProgress, events[1].Result.Status)
	require.Equal(t, readiness.Current, events[2].Result.Status)
	require.Equal(t, 1, events[2].Ready)
	require.Equal(t, 1, events[2].Total)

	t.Run("never created", func(t *testing.T) {
		rep, _, err := runWait(t, context.Background(), newFake(), []readiness.ObjectRef{ref("shop", "ghost")}, readiness.WithTimeout(3*time.Second))
		require.ErrorIs(t, err, readiness.ErrTimeout)
		require.Equal(t, readiness.NotFound, rep.Items[0].Result.Status)
	})
}

func TestWaitReplaced(t *testing.T) {
	t.Run("uid changes between reads", func(t *testing.T) {
		g := newFake()
		g.add("shop", "web", resp{obj: deploy("shop", "web", "old", "progressing")}, resp{obj: deploy("shop", "web", "new", "ready")})
		rep, _, err := runWait(t, context.Background(), g, []readiness.ObjectRef{ref("shop", "web")})
		require.ErrorIs(t, err, readiness.ErrReplaced)
		require.Equal(t, "new", string(rep.Items[0].UID))
		require.NotEqual(t, readiness.Current, rep.Items[0].Result.Status, "the new object's status is not reported as the old one's")
	})
	t.Run("expected uid given", func(t *testing.T) {
		g := newFake()
		g.add("shop", "web", resp{obj: deploy("shop", "web", "other", "ready")})
		r := ref("shop", "web")
		r.UID = "mine"
		_, _, err := runWait(t, context.Background(), g, []readiness.ObjectRef{r})
		require.ErrorIs(t, err, readiness.ErrReplaced)
	})
	t.Run("deleted and recreated", func(t *testing.T) {
		g := newFake()
		g.add("shop", "web", resp{obj: deploy("shop", "web", "a", "progressing")}, resp{err: apierrors.NewNotFound(deployGR, "web")}, resp{obj: deploy("shop", "web", "b", "ready")})
		_, _, err := runWait(t, context.Background(), g, []readiness.ObjectRef{ref("shop", "web")})
		require.ErrorIs(t, err, readiness.ErrReplaced)
	})
}

func TestWaitAPICalls(t *testing.T) {
	build := func() *fakeGetter {
		g := newFake()
		for i := range 6 {
			name := fmt.Sprintf("d%d", i)
			state := "progressing"
			if i%2 == 0 {
				state = "ready"
			}
			g.add("a", name, resp{obj: deploy("a", name, "ua"+name, state)}, resp{obj: deploy("a", name, "ua"+name, "ready")})
		}
		g.add("b", "x", resp{obj: deploy("b", "x", "ubx", "progressing")}, resp{obj: deploy("b", "x", "ubx", "ready")})
		return g
	}
	var refs []readiness.ObjectRef
	for i := range 6 {
		refs = append(refs, ref("a", fmt.Sprintf("d%d", i)))
	}
	refs = append(refs, ref("b", "x"))

	t.Run("get only", func(t *testing.T) {
		g := build()
		rep, _, err := runWait(t, context.Background(), g, refs)
		require.NoError(t, err)
		require.Equal(t, 7+4, g.gets, "7 GETs, then 4 for the objects still pending")
		require.Equal(t, g.gets, rep.Calls)
	})
	t.Run("list per kind and namespace", func(t *testing.T) {
		g := build()
		rep, _, err := runWait(t, context.Background(), listingGetter{g}, refs)
		require.NoError(t, err)
		require.Equal(t, 2, g.lists, "one LIST of namespace a per tick")
		require.Equal(t, 2, g.gets, "b holds one object, below the threshold: a GET per tick")
		require.Equal(t, 4, rep.Calls)
		require.Equal(t, 7, rep.Ready())
	})
	t.Run("list forbidden falls back to get", func(t *testing.T) {
		g := build()
		g.listErr = apierrors.NewForbidden(deployGR, "", errors.New("no list"))
		rep, _, err := runWait(t, context.Background(), listingGetter{g}, refs)
		require.NoError(t, err)
		require.Equal(t, 1, g.lists, "not retried once forbidden")
		require.Equal(t, 11, g.gets)
		require.Equal(t, 12, rep.Calls)
	})
	t.Run("list threshold disables list", func(t *testing.T) {
		g := build()
		_, _, err := runWait(t, context.Background(), listingGetter{g}, refs, readiness.WithListThreshold(100))
		require.NoError(t, err)
		require.Zero(t, g.lists)
	})
}

func TestWaitInvalidRefs(t *testing.T) {
	for name, refs := range map[string][]readiness.ObjectRef{
		"no name":   {{GroupKind: deployGK, Namespace: "a"}},
		"no kind":   {{Namespace: "a", Name: "x"}},
		"duplicate": {ref("a", "x"), ref("a", "x")},
	} {
		t.Run(name, func(t *testing.T) {
			g := newFake()
			rep, err := readiness.Wait(context.Background(), g, refs)
			require.ErrorIs(t, err, readiness.ErrInvalidRef)
			require.Nil(t, rep)
			require.Zero(t, g.gets)
		})
	}
}

func TestWaitEmpty(t *testing.T) {
	rep, err := readiness.Wait(context.Background(), newFake(), nil)
	require.NoError(t, err)
	require.Empty(t, rep.Items)
}

func TestTransient(t *testing.T) {
	for name, tc := range map[string]struct {
		err  error
		want bool
	}{
		"429":          {apierrors.NewTooManyRequests("x", 1), true},
		"500":          {apierrors.NewInternalError(errors.New("x")), true},
		"503":          {apierrors.NewServiceUnavailable("x"), true},
		"504":          {apierrors.NewTimeoutError("x", 1), true},
		"server 502":   {apierrors.NewGenericServerResponse(502, "get", deployGR, "x", "", 0, true), true},
		"refused":      {fmt.Errorf("dial tcp: %w", syscall.ECONNREFUSED), true},
		"reset":        {fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		"ctx deadline": {context.DeadlineExceeded, false},
		"403":          {apierrors.NewForbidden(deployGR, "x", errors.New("x")), false},
		"400":          {apierrors.NewBadRequest("x"), false},
		"401":          {apierrors.NewUnauthorized("x"), false},
		"other":        {errors.New("something"), false},
		"nil":          {nil, false},
	} {
		t.Run(name, func(t *testing.T) { require.Equal(t, tc.want, readiness.Transient(tc.err)) })
	}
}

func TestWaitDefaultBackoff(t *testing.T) {
	g := newFake()
	g.add("shop", "web", resp{obj: deploy("shop", "web", "u1", "progressing")}, resp{obj: deploy("shop", "web", "u1", "progressing")}, resp{obj: deploy("shop", "web", "u1", "ready")})
	fc := testingclock.NewFakeClock(t0)
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		_, err = readiness.Wait(context.Background(), g, []readiness.ObjectRef{ref("shop", "web")}, readiness.WithClock(fc))
	}()
	for stepped := false; !stepped; {
		select {
		case <-done:
			stepped = true
		default:
			if fc.HasWaiters() {
				fc.Step(100 * time.Millisecond)
			} else {
				runtime.Gosched()
			}
		}
	}
	require.NoError(t, err)
	// 500ms then 750ms, each jittered by up to 20%.
	elapsed := fc.Since(t0)
	require.GreaterOrEqual(t, elapsed, 1250*time.Millisecond)
	require.LessOrEqual(t, elapsed, 1600*time.Millisecond)
}

func TestWaitUnschedulableUsesClock(t *testing.T) {
	pod := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "p", "namespace": "shop", "uid": "u1"},
		"status": map[string]any{"phase": "Pending", "conditions": []any{map[string]any{
			"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "lastTransitionTime": t0.Format(time.RFC3339)}}}}}
	g := newFake()
	g.add("shop", "p", resp{obj: pod})
	r := readiness.ObjectRef{GroupKind: schema.GroupKind{Kind: "Pod"}, Namespace: "shop", Name: "p"}
	rep, elapsed, err := runWait(t, context.Background(), g, []readiness.ObjectRef{r}, readiness.WithUnschedulableWindow(3*time.Second))
	require.ErrorIs(t, err, readiness.ErrFailed)
	require.Equal(t, 4*time.Second, elapsed, "failed at the first read past the 3s window")
	require.Equal(t, readiness.Reason("Unschedulable"), rep.Items[0].Result.Reason)
}
