package readiness_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/backupkit/backupkit/readiness"
)

// watchingGetter adds Watch to listingGetter: each watch is a watch.FakeWatcher handed to
// the test on opened.
type watchingGetter struct {
	listingGetter
	wmu      sync.Mutex
	watchErr error
	watches  int
	rvs      []string
	opened   chan *trackedWatcher
}

// trackedWatcher tells the test when the waiter stops it.
type trackedWatcher struct {
	*watch.FakeWatcher
	stopped chan struct{}
	once    sync.Once
}

func (w *trackedWatcher) Stop() {
	w.FakeWatcher.Stop()
	w.once.Do(func() { close(w.stopped) })
}

func (g *watchingGetter) Watch(_ context.Context, _ schema.GroupKind, _, rv string) (watch.Interface, error) {
	g.wmu.Lock()
	g.watches++
	g.rvs = append(g.rvs, rv)
	err := g.watchErr
	g.wmu.Unlock()
	if err != nil {
		return nil, err
	}
	fw := &trackedWatcher{FakeWatcher: watch.NewFake(), stopped: make(chan struct{})}
	g.opened <- fw
	return fw, nil
}

func newWatching(names ...string) *watchingGetter {
	g := newFake()
	for _, n := range names {
		g.add("a", n, resp{obj: deploy("a", n, "u-"+n, "progressing")})
	}
	return &watchingGetter{listingGetter: listingGetter{g}, opened: make(chan *trackedWatcher, 4)}
}

func refsIn(ns string, names ...string) []readiness.ObjectRef {
	out := make([]readiness.ObjectRef, len(names))
	for i, n := range names {
		out[i] = ref(ns, n)
	}
	return out
}

// startWait runs Wait on a fake clock that the test steps itself.
func startWait(ctx context.Context, g readiness.Getter, refs []readiness.ObjectRef, opts ...readiness.WaitOption) (*testingclock.FakeClock, func() (*readiness.Report, error)) {
	fc := testingclock.NewFakeClock(t0)
	opts = append([]readiness.WaitOption{readiness.WithClock(fc)}, opts...)
	var rep *readiness.Report
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		rep, err = readiness.Wait(ctx, g, refs, opts...)
	}()
	return fc, func() (*readiness.Report, error) { <-done; return rep, err }
}

func TestWaitWatch(t *testing.T) {
	names := []string{"d0", "d1", "d2"}
	t.Run("events make objects ready without more calls", func(t *testing.T) {
		g := newWatching(names...)
		var events []readiness.Event
		fc, result := startWait(context.Background(), g, refsIn("a", names...),
			readiness.WithProgress(func(e readiness.Event) { events = append(events, e) }))
		fw := <-g.opened
		fw.Add(deploy("a", "other", "x", "ready")) // not waited for: ignored
		fw.Action(watch.Bookmark, deploy("a", "d0", "u-d0", "ready"))
		for _, n := range names {
			fw.Modify(deploy("a", n, "u-"+n, "ready"))
		}
		rep, err := result()
		require.NoError(t, err)
		require.Equal(t, 3, rep.Ready())
		require.Equal(t, 2, rep.Calls, "one LIST, one WATCH")
		require.Equal(t, 1, g.lists)
		require.Zero(t, g.gets)
		require.Equal(t, []string{"100"}, g.rvs, "watch starts at the list's resourceVersion")
		require.Equal(t, t0, fc.Now(), "no time passed")
		require.Equal(t, 3, events[len(events)-1].Ready)
	})
	t.Run("failed and replaced through the watch", func(t *testing.T) {
		g := newWatching(names...)
		_, result := startWait(context.Background(), g, refsIn("a", names...), readiness.WithKeepGoing())
		fw := <-g.opened
		fw.Modify(deploy("a", "d0", "u-d0", "deadline"))
		fw.Delete(deploy("a", "d1", "u-d1", "progressing"))
		fw.Add(deploy("a", "d1", "new", "ready"))
		fw.Modify(deploy("a", "d2", "u-d2", "ready"))
		rep, err := result()
		require.ErrorIs(t, err, readiness.ErrFailed)
		require.ErrorIs(t, err, readiness.ErrReplaced)
		require.ErrorIs(t, rep.Items[0].Err, readiness.ErrFailed)
		require.ErrorIs(t, rep.Items[1].Err, readiness.ErrReplaced)
		require.NoError(t, rep.Items[2].Err)
	})
	t.Run("watch forbidden falls back to polling", func(t *testing.T) {
		g := newWatching()
		for _, n := range names {
			g.add("a", n, resp{obj: deploy("a", n, "u-"+n, "progressing")}, resp{obj: deploy("a", n, "u-"+n, "ready")})
		}
		g.watchErr = apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "", errors.New("no watch"))
		rep, _, err := runWait(t, context.Background(), g, refsIn("a", names...))
		require.NoError(t, err)
		require.Equal(t, 1, g.watches, "not tried again")
		require.Equal(t, 2, g.lists)
		require.Equal(t, 3, rep.Calls)
	})
	t.Run("watch ends: list again, then watch again", func(t *testing.T) {
		g := newWatching(names...)
		fc, result := startWait(context.Background(), g, refsIn("a", names...), readiness.WithBackoff(wait.Backoff{Duration: time.Second}), readiness.WithListThreshold(1))
		fw := <-g.opened
		fw.Modify(deploy("a", "d0", "u-d0", "ready"))
		fw.FakeWatcher.Stop() // the server closed the watch
		<-fw.stopped          // the waiter saw it
		fw2 := stepUntilOpened(fc, g)
		fw2.Modify(deploy("a", "d1", "u-d1", "ready"))
		fw2.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonGone, Message: "too old"})
		<-fw2.stopped
		fw3 := stepUntilOpened(fc, g)
		fw3.Modify(deploy("a", "d2", "u-d2", "ready"))
		rep, err := result()
		require.NoError(t, err)
		require.Equal(t, 3, g.lists)
		require.Equal(t, 3, g.watches)
		require.Equal(t, 6, rep.Calls)
	})
	t.Run("item timeout while watching", func(t *testing.T) {
		g := newWatching(names...)
		fc, result := startWait(context.Background(), g, refsIn("a", names...), readiness.WithItemTimeout(5*time.Second))
		<-g.opened
		done := make(chan struct{})
		var rep *readiness.Report
		var err error
		go func() { rep, err = result(); close(done) }()
		stepUntil(fc, done)
		require.ErrorIs(t, err, readiness.ErrTimeout)
		require.Equal(t, 2, rep.Calls, "the deadline came from the clock, not from polling")
		require.Equal(t, t0.Add(5*time.Second), fc.Now())
	})
	t.Run("without watch", func(t *testing.T) {
		g := newWatching()
		for _, n := range names {
			g.add("a", n, resp{obj: deploy("a", n, "u-"+n, "progressing")}, resp{obj: deploy("a", n, "u-"+n, "ready")})
		}
		_, _, err := runWait(t, context.Background(), g, refsIn("a", names...), readiness.WithoutWatch())
		require.NoError(t, err)
		require.Zero(t, g.watches)
	})
}

// stepUntilOpened steps fc by a second whenever the waiter sleeps, until a new watch opens.
func stepUntilOpened(fc *testingclock.FakeClock, g *watchingGetter) *trackedWatcher {
	for {
		select {
		case fw := <-g.opened:
			return fw
		default:
			if fc.HasWaiters() {
				fc.Step(time.Second)
			}
			runtime.Gosched()
		}
	}
}

// stepUntil steps fc by a second whenever the waiter sleeps, until done is closed.
func stepUntil(fc *testingclock.FakeClock, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		default:
			if fc.HasWaiters() {
				fc.Step(time.Second)
			}
			runtime.Gosched()
		}
	}
}

func TestAreItemsReadyNeverWatches(t *testing.T) {
	g := newWatching("d0", "d1")
	ok, err := readiness.AreItemsReady(context.Background(), g, func(r readiness.ObjectRef) readiness.ObjectRef { return r },
		readiness.WithListThreshold(1))(refsIn("a", "d0", "d1"))
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, 1, g.lists)
	require.Zero(t, g.watchCount(), "a single read leaves no watch behind")
}

func TestWaitErrorMessage(t *testing.T) {
	names := []string{"d0", "d1", "d2", "d3", "d4"}
	g := newFake()
	for _, n := range names {
		g.add("a", n, resp{obj: deploy("a", n, "u-"+n, "progressing")})
	}
	_, _, err := runWait(t, context.Background(), g, refsIn("a", names...), readiness.WithTimeout(time.Second))
	require.EqualError(t, err, "readiness: 0 of 5 objects ready"+
		"; Deployment.apps a/d0: timed out: last status InProgress (LessAvailable): 0/1 replicas available"+
		"; Deployment.apps a/d1: timed out: last status InProgress (LessAvailable): 0/1 replicas available"+
		"; Deployment.apps a/d2: timed out: last status InProgress (LessAvailable): 0/1 replicas available"+
		"; and 2 more")
	var we *readiness.WaitError
	require.ErrorAs(t, err, &we)
	require.Len(t, we.Unwrap(), 5)
	var ie *readiness.ItemError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, "d0", ie.Ref.Name)
}

func (g *watchingGetter) watchCount() int {
	g.wmu.Lock()
	defer g.wmu.Unlock()
	return g.watches
}
