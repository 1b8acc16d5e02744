package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/pager"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/readiness"
)

// unread is a listing that could not be read: a resource at a version, in a namespace
// ("" for every namespace or a cluster-scoped resource).
type unread struct {
	Dir, Version, Namespace string
	Reason                  string
	Skipped                 bool // refused by the server (Forbidden and the like): reported, not a failure
}

// backupper lists resources into one archive.Writer. Listings run in parallel; Add is
// serialised by mu.
type backupper struct {
	dyn      dynamic.Interface
	filter   filter
	selector string
	pageSize int64
	backoff  wait.Backoff
	sleep    func(context.Context, time.Duration) error // the backoff's wait; a test seam
	prog     *progress
	scope    *clusterScope // what the included namespaces use; nil: nothing deferred

	mu      sync.Mutex
	w       *archive.Writer
	counts  map[string]int            // objects per resource directory
	versFor map[string]map[string]int // resource directory → version → objects
	unread  []unread
}

// record notes a listing that could not be read.
func (b *backupper) record(u unread) {
	b.mu.Lock()
	b.unread = append(b.unread, u)
	b.mu.Unlock()
}

// namespacesToList is where a resource is listed: every namespace at once ("") or each
// included namespace.
func (b *backupper) namespacesToList(p resourcePlan) []string {
	if !p.Namespaced || b.filter.allNamespaces() {
		return []string{""}
	}
	var out []string
	for _, ns := range b.filter.includeNamespaces {
		if b.filter.namespace(ns) {
			out = append(out, ns)
		}
	}
	return out
}

// backupResource lists one resource at each of its versions, the preferred one first, and
// adds what it finds. An object is added at another version only if it was found at the
// preferred one, so every object has its legacy path. A listing the server refuses, or that
// fails after the retries, is recorded and the rest goes on; only an error writing the
// backup is returned.
func (b *backupper) backupResource(ctx context.Context, p resourcePlan) error {
	// The objects found at the preferred version, kept only when there are other versions
	// to list, as 128-bit hashes of namespace and name (no strings of the listed pages kept
	// alive): a resource may have a million objects.
	var seen *objectSet
	if len(p.Versions) > 1 {
		seen = newObjectSet()
	}
	for i, v := range p.Versions {
		for _, ns := range b.namespacesToList(p) {
			err := b.list(ctx, p, v, ns, func(u *unstructured.Unstructured) error {
				ons, name := u.GetNamespace(), u.GetName()
				if !keep(b.filter, p, ons, name) && !b.scope.selects(p, u) {
					return nil
				}
				b.scope.note(u)
				switch {
				case seen == nil:
				case i == 0:
					seen.add(ons, name)
				case !seen.has(ons, name):
					return nil // created since the preferred version was listed
				}
				data, err := json.Marshal(u.Object)
				if err != nil {
					return fmt.Errorf("%s %s %s/%s: %w", p.Dir, v, ons, name, err)
				}
				b.mu.Lock()
				err = b.w.Add(p.Dir, v, ons, name, data)
				if err == nil {
					if i == 0 {
						b.counts[p.Dir]++
					}
					b.versFor[p.Dir][v]++
				}
				b.mu.Unlock()
				if err != nil {
					return writeError{err}
				}
				b.prog.item(i == 0)
				return nil
			})
			var we writeError
			switch {
			case err == nil:
			case errors.As(err, &we):
				return we.err
			case ctx.Err() != nil:
				return ctx.Err()
			default:
				b.record(unread{Dir: p.Dir, Version: v, Namespace: ns, Reason: reason(err), Skipped: refused(err)})
			}
		}
		b.prog.listingDone()
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

// keep reports whether the object of resource p in namespace ns named name is backed up:
// a namespaced object in a namespace the filter selects, a Namespace the filter selects,
// and an object among p.Names when the plan names them.
func keep(f filter, p resourcePlan, ns, name string) bool {
	switch {
	case p.Namespaced && !f.namespace(ns):
		return false
	case p.Dir == "namespaces" && !f.namespace(name):
		return false
	case p.Names != nil && !p.Names[name]:
		return false
	}
	return true
}

// writeError marks an error of the archive, which ends the backup.
type writeError struct{ err error }

func (e writeError) Error() string { return e.err.Error() }

// list lists resource p at version v in namespace ns in pages of b.pageSize, each page
// retried with backoff when the connection breaks or the server is overloaded, and calls fn
// for every object.
func (b *backupper) list(ctx context.Context, p resourcePlan, v, ns string, fn func(*unstructured.Unstructured) error) error {
	var ri dynamic.ResourceInterface = b.dyn.Resource(p.GVR(v))
	if ns != "" {
		ri = b.dyn.Resource(p.GVR(v)).Namespace(ns)
	}
	first := true
	pg := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		l, err := b.retry(ctx, func() (*unstructured.UnstructuredList, error) { return ri.List(ctx, opts) })
		if err != nil {
			return nil, err
		}
		if first && v == p.Preferred() {
			first = false
			remaining := int64(0)
			if r := l.GetRemainingItemCount(); r != nil {
				remaining = *r
			}
			b.prog.expect(int64(len(l.Items)) + remaining)
		}
		return l, nil
	})
	pg.PageSize = b.pageSize
	pg.FullListIfExpired = false // a full list would hold the whole resource in memory
	pg.PageBufferSize = 1
	return pg.EachListItem(ctx, metav1.ListOptions{LabelSelector: b.selector}, func(obj runtime.Object) error {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return fmt.Errorf("%s: unexpected %T in list", p.Dir, obj)
		}
		return fn(u)
	})
}

// retry calls fn until it succeeds, fails with an error not worth retrying, or the backoff
// runs out; it waits at least as long as a server's Retry-After (retryAfterSeconds).
func (b *backupper) retry(ctx context.Context, fn func() (*unstructured.UnstructuredList, error)) (*unstructured.UnstructuredList, error) {
	bo := b.backoff
	for {
		l, err := fn()
		if err == nil || !retryable(err) || bo.Steps <= 1 {
			return l, err
		}
		delay := bo.Step()
		if s, ok := apierrors.SuggestsClientDelay(err); ok && s > 0 {
			delay = max(delay, time.Duration(s)*time.Second) // the server's Retry-After
		}
		if err := b.sleep(ctx, delay); err != nil {
			return nil, err
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
