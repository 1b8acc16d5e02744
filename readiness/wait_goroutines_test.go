package readiness_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/backupkit/backupkit/readiness"
)

// overlapGetter serves a listingGetter's script and counts the calls in flight: a call
// that starts while another is in flight, or a progress callback that runs during one, is
// an overlap.
type overlapGetter struct {
	listingGetter
	inFlight, overlaps atomic.Int32
	watches            atomic.Int32
}

func (g *overlapGetter) enter() func() {
	if g.inFlight.Add(1) > 1 {
		g.overlaps.Add(1)
	}
	time.Sleep(100 * time.Microsecond) // widen the window another call could fall into
	return func() { g.inFlight.Add(-1) }
}

func (g *overlapGetter) Get(ctx context.Context, ref readiness.ObjectRef) (*unstructured.Unstructured, error) {
	defer g.enter()()
	return g.listingGetter.Get(ctx, ref)
}

func (g *overlapGetter) List(ctx context.Context, gk schema.GroupKind, ns string) (*unstructured.UnstructuredList, error) {
	defer g.enter()()
	return g.listingGetter.List(ctx, gk, ns)
}

func (g *overlapGetter) Watch(context.Context, schema.GroupKind, string, string) (watch.Interface, error) {
	defer g.enter()()
	g.watches.Add(1)
	return nil, apierrors.NewForbidden(deployGR, "", fmt.Errorf("no watch here"))
}

// TestWaitCallsItsGetterOneAtATime: one call of Wait makes its requests (GETs, LISTs,
// watches) one at a time and runs its progress callback between them, as Wait's doc says.
func TestWaitCallsItsGetterOneAtATime(t *testing.T) {
	f := newFake()
	var refs []readiness.ObjectRef
	for i, ns := range []string{"a", "a", "a", "b", "c"} { // a: LISTs; b and c: GETs
		name := fmt.Sprintf("d%d", i)
		var rs []resp
		for range i + 1 {
			rs = append(rs, resp{obj: deploy(ns, name, "u-"+name, "progressing")})
		}
		f.add(ns, name, append(rs, resp{obj: deploy(ns, name, "u-"+name, "ready")})...)
		refs = append(refs, ref(ns, name))
	}
	g := &overlapGetter{listingGetter: listingGetter{f}}
	progress := 0
	rep, err := readiness.Wait(context.Background(), g, refs,
		readiness.WithBackoff(wait.Backoff{Duration: time.Millisecond}), readiness.WithListThreshold(2),
		readiness.WithProgress(func(readiness.Event) {
			if g.inFlight.Load() != 0 {
				g.overlaps.Add(1)
			}
			progress++
		}))
	require.NoError(t, err)
	require.Equal(t, len(refs), rep.Ready())
	require.Positive(t, f.lists)
	require.Positive(t, f.gets)
	require.Positive(t, g.watches.Load())
	require.Positive(t, progress)
	require.Zero(t, g.overlaps.Load(), "a request or the callback overlapped another request")
}

// TestWaitConcurrentCalls: calls of Wait may run at once, sharing a getter that is safe for
// concurrent use (run with -race).
func TestWaitConcurrentCalls(t *testing.T) {
	f := newFake()
	const calls = 8
	for i := range calls {
		for j := range 3 {
			name := fmt.Sprintf("d%d-%d", i, j)
			f.add("shop", name, resp{obj: deploy("shop", name, "u-"+name, "progressing")}, resp{obj: deploy("shop", name, "u-"+name, "ready")})
		}
	}
	g := listingGetter{f}
	reg := readiness.NewRegistry()
	var wg sync.WaitGroup
	reports := make([]*readiness.Report, calls)
	errs := make([]error, calls)
	for i := range calls {
		wg.Go(func() {
			refs := refsIn("shop", fmt.Sprintf("d%d-0", i), fmt.Sprintf("d%d-1", i), fmt.Sprintf("d%d-2", i))
			reports[i], errs[i] = readiness.Wait(context.Background(), g, refs, readiness.WithRegistry(reg),
				readiness.WithBackoff(wait.Backoff{Duration: time.Millisecond}), readiness.WithListThreshold(1+i%3))
		})
	}
	wg.Wait()
	for i := range calls {
		require.NoError(t, errs[i], "call %d", i)
		require.Equal(t, 3, reports[i].Ready(), "call %d", i)
	}
}
