package testcluster

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// CRDResource is the CustomResourceDefinition resource, reached through the dynamic client
// (k8s.io/apiextensions-apiserver is deliberately not a dependency).
var CRDResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// CRDSettleTime is how long after a CRD becomes Established the API server delays the first
// create of one of its custom resources (by about that long). InstallCRDs waits it out once
// for all the CRDs it installs, so that the tests that follow never pay it.
const CRDSettleTime = 2 * time.Second

// InstallCRDs creates each CRD (apiextensions.k8s.io/v1 objects, e.g. decoded from JSON),
// waits until all of them are Established and their names accepted, then waits
// CRDSettleTime. Install every CRD a package needs in one call, before the tests run. The
// CRDs given are not modified. An error names the CRD; ctx bounds the whole call.
func (c *Cluster) InstallCRDs(ctx context.Context, crds ...*unstructured.Unstructured) error {
	client, err := dynamic.NewForConfig(c.RESTConfig())
	if err != nil {
		return fmt.Errorf("testcluster: dynamic client: %w", err)
	}
	crdClient := client.Resource(CRDResource)
	for _, crd := range crds {
		if _, err := crdClient.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("testcluster: create CRD %s: %w", crd.GetName(), err)
		}
	}
	for _, crd := range crds {
		if err := waitEstablished(ctx, crdClient, crd.GetName()); err != nil {
			return err
		}
	}
	settle := time.NewTimer(CRDSettleTime)
	defer settle.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("testcluster: CRDs established, settling: %w", context.Cause(ctx))
	case <-settle.C:
		return nil
	}
}

func waitEstablished(ctx context.Context, client dynamic.ResourceInterface, name string) error {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		got, err := client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("testcluster: CRD %s: %w", name, err)
		}
		established, accepted := conditionTrue(got, "Established"), conditionTrue(got, "NamesAccepted")
		if established && accepted {
			return nil
		}
		select {
		case <-ctx.Done():
			conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
			return fmt.Errorf("testcluster: CRD %s not established: %w; conditions: %v", name, context.Cause(ctx), conds)
		case <-tick.C:
		}
	}
}

// conditionTrue reports whether u's status.conditions hold type with status "True".
func conditionTrue(u *unstructured.Unstructured, condType string) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if ok && m["type"] == condType && m["status"] == "True" {
			return true
		}
	}
	return false
}
