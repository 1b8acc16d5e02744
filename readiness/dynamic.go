package readiness

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

// DynamicPageSize is the page size of DynamicGetter's LIST calls.
const DynamicPageSize = 500

// DynamicGetter is the Getter, Lister and Watcher over client-go's dynamic client: a RESTMapper turns
// each GroupKind into its preferred resource and scope. It is safe for concurrent use if the
// client and mapper are. A kind the mapper does not know reads as NotFound (a CRD being
// restored may not be served yet); if the mapper is a meta.ResettableRESTMapper it is reset
// so that the next read rediscovers.
type DynamicGetter struct {
	client dynamic.Interface
	mapper meta.RESTMapper
}

var (
	_ Getter  = (*DynamicGetter)(nil)
	_ Lister  = (*DynamicGetter)(nil)
	_ Watcher = (*DynamicGetter)(nil)
)

// NewDynamicGetter returns a DynamicGetter over client and mapper (both required).
func NewDynamicGetter(client dynamic.Interface, mapper meta.RESTMapper) *DynamicGetter {
	return &DynamicGetter{client: client, mapper: mapper}
}

func (d *DynamicGetter) resource(gk schema.GroupKind, namespace string) (dynamic.ResourceInterface, error) {
	m, err := d.mapper.RESTMapping(gk)
	if err != nil {
		if r, ok := d.mapper.(meta.ResettableRESTMapper); ok && meta.IsNoMatchError(err) {
			r.Reset()
		}
		return nil, err
	}
	ri := d.client.Resource(m.Resource)
	if m.Scope != nil && m.Scope.Name() == meta.RESTScopeNameNamespace {
		return ri.Namespace(namespace), nil
	}
	return ri, nil
}

// Get reads one object with a GET.
func (d *DynamicGetter) Get(ctx context.Context, ref ObjectRef) (*unstructured.Unstructured, error) {
	ri, err := d.resource(ref.GroupKind, ref.Namespace)
	if err != nil {
		return nil, err
	}
	return ri.Get(ctx, ref.Name, metav1.GetOptions{})
}

// List reads every object of gk in namespace ("" for a cluster-scoped kind) with LIST calls
// of DynamicPageSize items; the result carries the first page's resourceVersion (the
// snapshot every page comes from).
func (d *DynamicGetter) List(ctx context.Context, gk schema.GroupKind, namespace string) (*unstructured.UnstructuredList, error) {
	ri, err := d.resource(gk, namespace)
	if err != nil {
		return nil, err
	}
	var out *unstructured.UnstructuredList
	opts := metav1.ListOptions{Limit: DynamicPageSize}
	for {
		l, err := ri.List(ctx, opts)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = l
		} else {
			out.Items = append(out.Items, l.Items...)
		}
		if l.GetContinue() == "" {
			out.SetContinue("")
			return out, nil
		}
		opts.Continue = l.GetContinue()
	}
}

// Watch watches gk in namespace from resourceVersion, with bookmarks.
func (d *DynamicGetter) Watch(ctx context.Context, gk schema.GroupKind, namespace, resourceVersion string) (watch.Interface, error) {
	ri, err := d.resource(gk, namespace)
	if err != nil {
		return nil, err
	}
	return ri.Watch(ctx, metav1.ListOptions{ResourceVersion: resourceVersion, AllowWatchBookmarks: true})
}

// RefForResource returns the ObjectRef of the object a GroupResource names (Velero's
// ResourceIdentifier carries a GroupResource, this package a GroupKind), asking mapper for
// the kind. An unknown resource is the mapper's error (meta.IsNoMatchError).
func RefForResource(mapper meta.RESTMapper, gr schema.GroupResource, namespace, name string) (ObjectRef, error) {
	gvk, err := mapper.KindFor(gr.WithVersion(""))
	if err != nil {
		obj := name
		if namespace != "" {
			obj = namespace + "/" + name
		}
		return ObjectRef{}, fmt.Errorf("readiness: kind of %s %s: %w", gr, obj, err)
	}
	return ObjectRef{GroupKind: gvk.GroupKind(), Namespace: namespace, Name: name}, nil
}
