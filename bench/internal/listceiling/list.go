// Package listceiling is the ceiling of the backup benchmark (issue 17): listing a cluster
// with nothing but client-go, as fast as listing goes, to compare examples/backup with.
package listceiling

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/pager"

	"github.com/backupkit/backupkit/bench/internal/wire"
)

// PageSize and Workers are examples/backup's defaults (--page-size, --parallel), which the
// ceiling uses too.
const (
	PageSize = 500
	Workers  = 4
)

// List lists the cluster at cfg with no more than listing needs: discovery, then
// every served resource that supports list, at every version the cluster serves it at,
// each in pages of pageSize with client-go's pager and a client of mode (wire.DynamicJSON:
// the dynamic client; the objects decoded and dropped), workers listings at once,
// unthrottled. It lists every such resource,
// including those examples/backup leaves out by default, so it does at least the listing
// the backup does. It returns the objects listed per "<resource dir>/<version>".
func List(ctx context.Context, cfg *rest.Config, workers int, pageSize int64, mode wire.Mode) (map[string]int, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 10_000, 10_000
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	client, err := wire.New(cfg, mode)
	if err != nil {
		return nil, err
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	type served struct {
		gvr  schema.GroupVersionResource
		kind string
	}
	var gvrs []served
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			return nil, err
		}
		for _, r := range l.APIResources {
			if !strings.Contains(r.Name, "/") && slices.Contains(r.Verbs, "list") {
				gvrs = append(gvrs, served{gv.WithResource(r.Name), r.Kind})
			}
		}
	}
	var mu sync.Mutex
	listed := map[string]int{}
	err = Parallel(ctx, workers, gvrs, func(s served) error {
		gvr, n := s.gvr, 0
		pg := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return client.List(ctx, gvr, s.kind, opts)
		})
		pg.PageSize = pageSize
		pg.PageBufferSize = 1
		if err := pg.EachListItem(ctx, metav1.ListOptions{}, func(runtime.Object) error { n++; return nil }); err != nil {
			return fmt.Errorf("listing %s: %w", gvr, err)
		}
		mu.Lock()
		listed[DirVersion(gvr)] = n
		mu.Unlock()
		return nil
	})
	return listed, err
}

// DirVersion is the key of List's result: "<resource>[.<group>]/<version>".
func DirVersion(gvr schema.GroupVersionResource) string {
	return gvr.GroupResource().String() + "/" + gvr.Version
}

// Parallel calls f for every item on workers goroutines and returns the first error; after
// an error, or once ctx is done, no new call starts.
func Parallel[T any](ctx context.Context, workers int, items []T, f func(T) error) error {
	var once sync.Once
	var first error
	failed := make(chan struct{})
	work := make(chan T)
	var wg sync.WaitGroup
	for range max(1, workers) {
		wg.Go(func() {
			for it := range work {
				if err := f(it); err != nil {
					once.Do(func() { first = err; close(failed) })
				}
			}
		})
	}
feed:
	for _, it := range items {
		select {
		case work <- it:
		case <-failed:
			break feed
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}
