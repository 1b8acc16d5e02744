// Package protowire is a dynamic.Interface whose creates of Kubernetes' own kinds go to the
// API server as protobuf (application/vnd.kubernetes.protobuf) instead of JSON (issue 45).
// Every other call, and the create of any other kind (custom resources, kinds client-go's
// kubernetes/scheme does not know), goes through client-go's dynamic client with JSON, as
// it would without this package.
//
// A create goes as protobuf when the object's apiVersion and kind are registered in
// client-go's kubernetes/scheme at the version of the resource it is created in, it has no
// subresource, and the object converts to its typed form with no field left over
// (runtime.DefaultUnstructuredConverter, strict): a field the scheme compiled in does not
// know, such as one a newer API server added, would be lost in the typed form, so such an
// object goes as JSON. The API server answers every request in JSON, which is read as the
// dynamic client reads it.
//
// restore.Connect does not use it. A restore goes through it when the Cluster's dynamic
// client is replaced:
//
//	cluster, target, served, err := restore.Connect(ctx, cfg)
//	// ...
//	cluster.Dynamic, err = protowire.NewForConfig(cfg)
//
// bench/NOTES.md ("Content types (issue 45)") has what it was measured to gain and cost.
package protowire

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// NewForConfig returns a dynamic.Interface for the cluster cfg reaches that creates
// Kubernetes' own kinds as protobuf, as the package documentation says. It shares one
// HTTP client (rest.HTTPClientFor(cfg)) between its dynamic client and its REST clients,
// and uses cfg's QPS, Burst, user agent and warning handler for both.
func NewForConfig(cfg *rest.Config) (dynamic.Interface, error) {
	httpc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("protowire: HTTP client: %w", err)
	}
	dyn, err := dynamic.NewForConfigAndClient(cfg, httpc)
	if err != nil {
		return nil, fmt.Errorf("protowire: dynamic client: %w", err)
	}
	return &client{Interface: dyn, cfg: rest.CopyConfig(cfg), http: httpc, typed: map[schema.GroupVersion]*rest.RESTClient{}}, nil
}

// client is the dynamic.Interface NewForConfig returns.
type client struct {
	dynamic.Interface
	cfg  *rest.Config
	http *http.Client

	mu    sync.Mutex
	typed map[schema.GroupVersion]*rest.RESTClient
}

var _ dynamic.Interface = (*client)(nil)

func (c *client) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return &resource{NamespaceableResourceInterface: c.Interface.Resource(gvr), c: c, gvr: gvr}
}

// rest returns the protobuf REST client of gv, made once.
func (c *client) rest(gv schema.GroupVersion) (*rest.RESTClient, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rc, ok := c.typed[gv]; ok {
		return rc, nil
	}
	cfg := rest.CopyConfig(c.cfg)
	cfg.GroupVersion = &gv
	cfg.APIPath = "/apis"
	if gv.Group == "" {
		cfg.APIPath = "/api"
	}
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	cfg.ContentType = runtime.ContentTypeProtobuf
	// The answer in JSON: decoding it into an unstructured object costs the client a
	// fraction of decoding protobuf into the typed object and converting that (bench/NOTES).
	cfg.AcceptContentTypes = runtime.ContentTypeJSON
	rc, err := rest.RESTClientForConfigAndClient(cfg, c.http)
	if err != nil {
		return nil, fmt.Errorf("protowire: REST client of %s: %w", gv, err)
	}
	c.typed[gv] = rc
	return rc, nil
}

// resource is a resource, in every namespace or (namespace set) in one.
type resource struct {
	dynamic.NamespaceableResourceInterface
	c         *client
	gvr       schema.GroupVersionResource
	namespace string
	// ns is the dynamic client's interface of namespace; nil when namespace is "".
	ns dynamic.ResourceInterface
}

func (r *resource) Namespace(ns string) dynamic.ResourceInterface {
	return &resource{NamespaceableResourceInterface: r.NamespaceableResourceInterface, c: r.c, gvr: r.gvr, namespace: ns,
		ns: r.NamespaceableResourceInterface.Namespace(ns)}
}

// dyn is the dynamic client's interface r stands for.
func (r *resource) dyn() dynamic.ResourceInterface {
	if r.ns != nil {
		return r.ns
	}
	return r.NamespaceableResourceInterface
}

// The methods of dynamic.ResourceInterface other than Create go to the dynamic client of
// r's namespace; the embedded interface alone would send them to every namespace.

func (r *resource) Update(ctx context.Context, obj *unstructured.Unstructured, opts metav1.UpdateOptions, sub ...string) (*unstructured.Unstructured, error) {
	return r.dyn().Update(ctx, obj, opts, sub...)
}

func (r *resource) UpdateStatus(ctx context.Context, obj *unstructured.Unstructured, opts metav1.UpdateOptions) (*unstructured.Unstructured, error) {
	return r.dyn().UpdateStatus(ctx, obj, opts)
}

func (r *resource) Delete(ctx context.Context, name string, opts metav1.DeleteOptions, sub ...string) error {
	return r.dyn().Delete(ctx, name, opts, sub...)
}

func (r *resource) DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, list metav1.ListOptions) error {
	return r.dyn().DeleteCollection(ctx, opts, list)
}

func (r *resource) Get(ctx context.Context, name string, opts metav1.GetOptions, sub ...string) (*unstructured.Unstructured, error) {
	return r.dyn().Get(ctx, name, opts, sub...)
}

func (r *resource) List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	return r.dyn().List(ctx, opts)
}

func (r *resource) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return r.dyn().Watch(ctx, opts)
}

func (r *resource) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, sub ...string) (*unstructured.Unstructured, error) {
	return r.dyn().Patch(ctx, name, pt, data, opts, sub...)
}

func (r *resource) Apply(ctx context.Context, name string, obj *unstructured.Unstructured, opts metav1.ApplyOptions, sub ...string) (*unstructured.Unstructured, error) {
	return r.dyn().Apply(ctx, name, obj, opts, sub...)
}

func (r *resource) ApplyStatus(ctx context.Context, name string, obj *unstructured.Unstructured, opts metav1.ApplyOptions) (*unstructured.Unstructured, error) {
	return r.dyn().ApplyStatus(ctx, name, obj, opts)
}

// Create creates obj as protobuf when the package documentation says it does, and
// through the dynamic client otherwise. obj is not changed.
func (r *resource) Create(ctx context.Context, obj *unstructured.Unstructured, opts metav1.CreateOptions, sub ...string) (*unstructured.Unstructured, error) {
	typed := r.typed(obj, sub)
	if typed == nil {
		return r.dyn().Create(ctx, obj, opts, sub...)
	}
	rc, err := r.c.rest(r.gvr.GroupVersion())
	if err != nil {
		return nil, err
	}
	raw, err := rc.Post().NamespaceIfScoped(r.namespace, r.namespace != "").Resource(r.gvr.Resource).
		VersionedParams(&opts, scheme.ParameterCodec).Body(typed).Do(ctx).Raw()
	if err != nil {
		return nil, err
	}
	// As the dynamic client reads its answers.
	got, err := runtime.Decode(unstructured.UnstructuredJSONScheme, raw)
	if err != nil {
		return nil, fmt.Errorf("protowire: the created %s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	out, ok := got.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("protowire: the created %s %s: the answer is a %T", obj.GetKind(), obj.GetName(), got)
	}
	return out, nil
}

// typed returns obj's typed form when its create goes as protobuf, nil when it goes as JSON.
func (r *resource) typed(obj *unstructured.Unstructured, sub []string) runtime.Object {
	gvk := obj.GroupVersionKind()
	if len(sub) > 0 || gvk.GroupVersion() != r.gvr.GroupVersion() || !scheme.Scheme.Recognizes(gvk) {
		return nil
	}
	typed, err := scheme.Scheme.New(gvk)
	if err != nil {
		return nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(obj.Object, typed, true); err != nil {
		return nil // a field the scheme does not know, or of another type: JSON keeps it as it is
	}
	return typed
}
