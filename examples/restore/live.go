package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/convert"
	"github.com/backupkit/backupkit/manifest"
	"github.com/backupkit/backupkit/readiness"
)

// liveCluster is the cluster a restore writes to.
type liveCluster struct {
	discovery discovery.DiscoveryInterface
	dynamic   dynamic.Interface
	mapper    *restmapper.DeferredDiscoveryRESTMapper
}

func newLiveCluster(cfg *rest.Config) (*liveCluster, error) {
	d, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("discovery client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("dynamic client: %w", err)
	}
	return &liveCluster{discovery: d, dynamic: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(d))}, nil
}

// outcome is what happened to one planned item.
type outcome struct {
	item   PlanItem
	action string // "created", "exists", "failed", "not ready"
	detail string
}

// restore creates the plan's items wave by wave: owners' UIDs remapped to the ones the
// target assigned, metadata the target owns reset, conversions applied; after each wave
// it waits for the wave's objects to be ready. It ends with a per-item report and an error
// when anything failed.
func (c *liveCluster) restore(ctx context.Context, plan *Plan, backup []byte, reg *convert.Registry, f *flags, stdout, stderr io.Writer) error {
	wanted := map[string]bool{}
	for _, wave := range plan.Waves {
		for _, it := range wave {
			wanted[it.ReadPath] = true
		}
	}
	data := map[string][]byte{}
	_, err := archive.Scan(ctx, bytes.NewReader(backup), func(it *archive.Item) error {
		if !wanted[it.Path] {
			return nil
		}
		b, err := it.Bytes()
		data[it.Path] = b
		return err
	})
	if err != nil {
		return fmt.Errorf("reading backup items: %w", err)
	}

	total := plan.restorable()
	done := 0
	newUIDs := map[types.UID]types.UID{}
	var outcomes []outcome
	failed := 0
	for w, wave := range plan.Waves {
		var refs []readiness.ObjectRef
		var waiting []int // indexes into outcomes
		for _, it := range wave {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("cancelled in wave %d: %w", w+1, err)
			}
			o := outcome{item: it}
			created, err := c.create(ctx, it, data[it.ReadPath], reg, newUIDs)
			switch {
			case apierrors.IsAlreadyExists(err):
				o.action, o.detail = "exists", "left as found"
			case err != nil:
				o.action, o.detail = "failed", err.Error()
				failed++
			default:
				o.action = "created"
				newUIDs[types.UID(it.UID)] = created.GetUID()
				refs = append(refs, readiness.RefOf(created))
				waiting = append(waiting, len(outcomes))
			}
			outcomes = append(outcomes, o)
			done++
			fmt.Fprintf(stderr, "wave %d/%d: %d of %d items done: %s %s\n", w+1, len(plan.Waves), done, total, o.action, it.Item)
		}
		c.mapper.Reset() // CRDs created in this wave serve resources from now on
		if !f.wait || len(refs) == 0 {
			continue
		}
		report, err := readiness.Wait(ctx, readiness.NewDynamicGetter(c.dynamic, c.mapper), refs,
			readiness.WithTimeout(f.waitTimeout),
			readiness.WithKeepGoing(),
			readiness.WithProgress(func(e readiness.Event) {
				fmt.Fprintf(stderr, "wave %d/%d: %d of %d ready; %s is %s %s\n", w+1, len(plan.Waves), e.Ready, e.Total, e.Ref, e.Result.Status, e.Result.Reason)
			}))
		if report == nil {
			return fmt.Errorf("waiting for wave %d: %w", w+1, err)
		}
		for i, r := range report.Items {
			if r.Err != nil {
				o := &outcomes[waiting[i]]
				o.action, o.detail = "not ready", fmt.Sprintf("%s %s: %v", r.Result.Status, r.Result.Reason, r.Err)
				failed++
			}
		}
		if ctx.Err() != nil {
			break
		}
	}

	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ITEM\tVERSION\tRESULT\tDETAIL")
	for _, o := range outcomes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", o.item.Item, o.item.Version, o.action, o.detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nRestored %d of %d items; %d failed; %d could not be restored (see the plan).\n",
		len(outcomes)-failed, total, failed, len(plan.Skipped))
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("cancelled: %w", err)
	}
	if failed > 0 {
		return fmt.Errorf("%d items failed", failed)
	}
	return nil
}

// create prepares one backed-up object for the target and creates it.
func (c *liveCluster) create(ctx context.Context, it PlanItem, data []byte, reg *convert.Registry, newUIDs map[types.UID]types.UID) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(data, &u.Object); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", it.ReadPath, err)
	}
	if it.SourceVersion != it.Version {
		converted, err := reg.Convert(ctx, u, it.Version)
		if err != nil {
			return nil, err
		}
		u = converted
	}
	prepare(u)
	if _, err := manifest.RemapUnstructured(u, newUIDs); err != nil {
		return nil, err
	}
	gvr := schema.GroupVersionResource{Group: it.Group, Version: it.Version, Resource: it.Resource}
	var ri dynamic.ResourceInterface = c.dynamic.Resource(gvr)
	if it.Namespace != "" {
		ri = c.dynamic.Resource(gvr).Namespace(it.Namespace)
	}
	return ri.Create(ctx, u, metav1.CreateOptions{})
}

// prepare resets what the target cluster owns, as Velero does: every metadata field but
// name, namespace, labels, annotations and ownerReferences (remapped next), the status,
// and a Service's cluster IPs.
func prepare(u *unstructured.Unstructured) {
	if md, ok := u.Object["metadata"].(map[string]any); ok {
		for k := range md {
			switch k {
			case "name", "namespace", "labels", "annotations", "ownerReferences":
			default:
				delete(md, k)
			}
		}
	}
	delete(u.Object, "status")
	if u.GetKind() == "Service" && u.GroupVersionKind().Group == "" {
		unstructured.RemoveNestedField(u.Object, "spec", "clusterIP")
		unstructured.RemoveNestedField(u.Object, "spec", "clusterIPs")
	}
}
