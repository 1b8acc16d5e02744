package backup

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/pager"

	"github.com/backupkit/backupkit/readiness"
)

// page is a page of a listing as it is written: its size, and what was written from it.
type page struct {
	n, left        int
	objects, files int
	expected       int64
}

// listing lists resource r at version v in namespace ns in pages of pageSize, each page
// retried with backoff when the connection breaks or the server is overloaded, calls fn for
// every object, and pageDone once the objects of a page are handled (fn says whether it
// wrote the object). It lists through raw when it is not nil (rawPage: fn is given each
// object's JSON to write, valid until fn returns), else through dyn (fn is given nil).
type listing struct {
	dyn      dynamic.Interface
	raw      rest.Interface
	r        Resource
	v, ns    string
	selector string
	pageSize int64
	retry    func(context.Context, func() error) error
	fn       func(it *item, data []byte) (wrote bool, err error)
	pageDone func(n int, p page)
}

func (l *listing) run(ctx context.Context) error {
	if l.raw != nil {
		return l.runRaw(ctx)
	}
	gvr := schema.GroupVersionResource{Group: l.r.Group, Version: l.v, Resource: l.r.Resource}
	var ri dynamic.ResourceInterface = l.dyn.Resource(gvr)
	if l.ns != "" {
		ri = l.dyn.Resource(gvr).Namespace(l.ns)
	}
	// The pager reads the next page while this one is written: pages fetched wait here.
	var (
		mu      sync.Mutex
		fetched []*page
		cur     *page
		done    int
	)
	finish := func(p *page) {
		done++
		l.pageDone(done, *p)
	}
	pg := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		var list *unstructured.UnstructuredList
		err := l.retry(ctx, func() (err error) { list, err = ri.List(ctx, opts); return err })
		if err != nil {
			return nil, err
		}
		p := &page{n: len(list.Items), left: len(list.Items)}
		if opts.Continue == "" && l.v == l.r.Preferred() {
			p.expected = int64(len(list.Items))
			if r := list.GetRemainingItemCount(); r != nil {
				p.expected += *r
			}
		}
		mu.Lock()
		fetched = append(fetched, p)
		mu.Unlock()
		return list, nil
	})
	pg.PageSize = l.pageSize
	pg.FullListIfExpired = false // a full list would hold the whole resource in memory
	pg.PageBufferSize = 1
	// next takes the oldest page fetched, finishing the empty ones before it.
	next := func() *page {
		mu.Lock()
		defer mu.Unlock()
		for len(fetched) > 0 {
			p := fetched[0]
			fetched = fetched[1:]
			if p.n > 0 {
				return p
			}
			finish(p)
		}
		return nil
	}
	err := pg.EachListItem(ctx, metav1.ListOptions{LabelSelector: l.selector}, func(obj runtime.Object) error {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return fmt.Errorf("backup: %s: unexpected %T in list", l.r.Name, obj)
		}
		if cur == nil {
			if cur = next(); cur == nil { // cannot happen: the page was fetched first
				cur = &page{n: 1, left: 1}
			}
		}
		wrote, err := l.fn(itemOf(u), nil)
		if wrote {
			cur.files++
			if l.v == l.r.Preferred() {
				cur.objects++
			}
		}
		if cur.left--; cur.left == 0 {
			finish(cur)
			cur = nil
		}
		return err
	})
	// What was written of a page cut short, and the empty pages left, are reported too.
	if cur != nil {
		finish(cur)
	}
	for next() != nil {
	}
	return err
}

// runRaw is run through l.raw: one goroutine sends the requests, a page ahead of the
// objects being written, and the items of each page are decoded one at a time as they are
// written, so that the server answers the next page while this one is written.
func (l *listing) runRaw(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type fetched struct {
		p   *rawPage
		err error
	}
	pages := make(chan fetched, 1)
	go func() {
		defer close(pages)
		cont := ""
		for {
			var p *rawPage
			err := l.retry(ctx, func() (err error) {
				p, err = listRaw(ctx, l.raw, l.r.Group, l.v, l.r.Resource, l.ns, l.pageSize, cont, l.selector)
				return err
			})
			select {
			case pages <- fetched{p, err}:
			case <-ctx.Done():
				return
			}
			if err != nil || p.Metadata.Continue == "" {
				return
			}
			cont = p.Metadata.Continue
		}
	}()
	var (
		buf   bytes.Buffer // the object's JSON as written
		done  int
		first = true
	)
	finish := func(p page) {
		done++
		l.pageDone(done, p)
	}
	for f := range pages {
		if f.err != nil {
			return f.err
		}
		p := page{n: len(f.p.Items), left: len(f.p.Items)}
		if first && l.v == l.r.Preferred() {
			p.expected = int64(len(f.p.Items))
			if r := f.p.Metadata.RemainingItemCount; r != nil {
				p.expected += *r
			}
		}
		first = false
		for i := range f.p.Items {
			it, err := f.p.item(i, &buf)
			f.p.Items[i] = nil // written or not, let it go
			var wrote bool
			if err == nil {
				wrote, err = l.fn(it, buf.Bytes())
			}
			if wrote {
				p.files++
				if l.v == l.r.Preferred() {
					p.objects++
				}
			}
			if err != nil {
				// What was written of the page cut short, and the pages fetched after it,
				// are reported too, as the dynamic client's pager does.
				finish(p)
				cancel()
				for f := range pages {
					if f.err == nil {
						finish(page{n: len(f.p.Items)})
					}
				}
				return err
			}
		}
		finish(p)
	}
	return nil
}

// objectSet is a set of objects by namespace and name, kept as 128-bit hashes seeded at
// random (16 bytes an object, whatever the length of its name). Two objects are taken for
// one only by chance, with odds below 2^-88 in a million; the one taken for the other would
// then be written at its other versions although created since the preferred version was
// listed (archive.Writer writes such a copy and records no version of it in the manifest).
type objectSet struct {
	s1, s2 maphash.Seed
	m      map[[2]uint64]struct{}
}

func newObjectSet() *objectSet {
	return &objectSet{s1: maphash.MakeSeed(), s2: maphash.MakeSeed(), m: map[[2]uint64]struct{}{}}
}

func (s *objectSet) key(ns, name string) [2]uint64 {
	var a, b maphash.Hash
	a.SetSeed(s.s1)
	b.SetSeed(s.s2)
	for _, h := range []*maphash.Hash{&a, &b} {
		h.WriteString(ns)
		h.WriteByte(0)
		h.WriteString(name)
	}
	return [2]uint64{a.Sum64(), b.Sum64()}
}

func (s *objectSet) add(ns, name string) { s.m[s.key(ns, name)] = struct{}{} }

func (s *objectSet) has(ns, name string) bool {
	_, ok := s.m[s.key(ns, name)]
	return ok
}

// retry calls fn until it succeeds, fails with an error not worth retrying, or the backoff
// runs out; it waits at least as long as a server's Retry-After.
func (c *runConfig) retry(ctx context.Context, fn func() error) error {
	bo := c.backoff
	for {
		err := fn()
		if err == nil || !retryable(err) || bo.Steps <= 1 {
			return err
		}
		delay := bo.Step()
		if s, ok := apierrors.SuggestsClientDelay(err); ok && s > 0 {
			delay = max(delay, time.Duration(s)*time.Second) // the server's Retry-After
		}
		if err := c.sleep(ctx, delay); err != nil {
			return err
		}
	}
}

// retryable reports whether a failed listing is worth sending again: the project's one
// transient-error rule, readiness.Transient (429, 408, every 5xx, the API server's timeouts
// and suggested retries; connections refused, reset, closed or lost, GOAWAY and HTTP/2
// stream errors included; bodies cut short or undecodable; network timeouts, not the end
// of ctx). A LIST is a read, so sending it again is always harmless.
func retryable(err error) bool { return readiness.Transient(err) }

// refused reports whether the server refused the listing (not allowed, gone, not listable):
// reported and skipped, not a failure of the backup.
func refused(err error) bool {
	return apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err)
}

// reason is Unread.Reason for err.
func reason(err error) string {
	if s := apierrors.ReasonForError(err); s != metav1.StatusReasonUnknown && refused(err) {
		return string(s) + ": " + err.Error()
	}
	return err.Error()
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
