// Package wire is how the bench's ceilings talk to the API server (issue 45): client-go's
// dynamic client with JSON, or a REST client per group version that sends and reads
// Kubernetes' own kinds as typed objects, in JSON or in protobuf. Kinds client-go's
// kubernetes/scheme does not know (custom resources) always go through the dynamic client
// with JSON, whatever the Mode.
package wire

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// Mode is a client and a content type.
type Mode string

// The modes.
const (
	DynamicJSON   Mode = "dynamic-json"   // client-go's dynamic client, application/json
	TypedJSON     Mode = "typed-json"     // typed objects, application/json
	TypedProtobuf Mode = "typed-protobuf" // typed objects, application/vnd.kubernetes.protobuf
)

// Modes lists every Mode.
var Modes = []Mode{DynamicJSON, TypedJSON, TypedProtobuf}

// ParseMode returns the Mode named s.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("wire: unknown mode %q (known: %s, %s, %s)", s, DynamicJSON, TypedJSON, TypedProtobuf)
}

// contentType is the Content-Type a typed mode sends; Accept lists it first, then JSON.
func (m Mode) contentType() string {
	if m == TypedProtobuf {
		return runtime.ContentTypeProtobuf
	}
	return runtime.ContentTypeJSON
}

// Client creates and lists objects in one Mode. It is safe for concurrent use.
type Client struct {
	mode Mode
	cfg  *rest.Config
	http *http.Client
	dyn  *dynamic.DynamicClient

	mu    sync.Mutex
	typed map[schema.GroupVersion]*rest.RESTClient
}

// New returns a Client of mode for cfg, whose QPS, Burst and content types it uses as they
// are but for the typed REST clients' content type.
func New(cfg *rest.Config, mode Mode) (*Client, error) {
	if _, err := ParseMode(string(mode)); err != nil {
		return nil, err
	}
	httpc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfigAndClient(cfg, httpc)
	if err != nil {
		return nil, err
	}
	return &Client{mode: mode, cfg: cfg, http: httpc, dyn: dyn, typed: map[schema.GroupVersion]*rest.RESTClient{}}, nil
}

// Typed reports whether c sends gvk as a typed object: in a typed Mode, for a kind
// client-go's scheme knows.
func (c *Client) Typed(gvk schema.GroupVersionKind) bool {
	return c.mode != DynamicJSON && scheme.Scheme.Recognizes(gvk)
}

// rest returns the REST client of gv in c's content type, made once.
func (c *Client) rest(gv schema.GroupVersion) (*rest.RESTClient, error) {
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
	cfg.ContentType = c.mode.contentType()
	cfg.AcceptContentTypes = c.mode.contentType() + "," + runtime.ContentTypeJSON
	rc, err := rest.RESTClientForConfigAndClient(cfg, c.http)
	if err != nil {
		return nil, fmt.Errorf("wire: REST client of %s: %w", gv, err)
	}
	c.typed[gv] = rc
	return rc, nil
}

// Create creates u, a resource of gvr, and returns the UID the API server gave it. In a
// typed Mode a kind the scheme knows is converted to its typed object
// (runtime.DefaultUnstructuredConverter) and posted as that; u is not changed.
func (c *Client) Create(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured) (types.UID, error) {
	gvk := u.GroupVersionKind()
	ns := u.GetNamespace()
	if !c.Typed(gvk) {
		var ri dynamic.ResourceInterface = c.dyn.Resource(gvr)
		if ns != "" {
			ri = c.dyn.Resource(gvr).Namespace(ns)
		}
		got, err := ri.Create(ctx, u, metav1.CreateOptions{})
		if err != nil {
			return "", err
		}
		return got.GetUID(), nil
	}
	obj, err := scheme.Scheme.New(gvk)
	if err != nil {
		return "", err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return "", fmt.Errorf("wire: %s to %T: %w", gvk.Kind, obj, err)
	}
	rc, err := c.rest(gvr.GroupVersion())
	if err != nil {
		return "", err
	}
	got, err := scheme.Scheme.New(gvk)
	if err != nil {
		return "", err
	}
	if err := rc.Post().NamespaceIfScoped(ns, ns != "").Resource(gvr.Resource).Body(obj).Do(ctx).Into(got); err != nil {
		return "", err
	}
	a, err := meta.Accessor(got)
	if err != nil {
		return "", err
	}
	return a.GetUID(), nil
}

// List lists one page of gvr, whose kind is kind, across namespaces: a list of
// unstructured objects, or in a typed Mode for a kind the scheme knows, the typed list
// (kind+"List").
func (c *Client) List(ctx context.Context, gvr schema.GroupVersionResource, kind string, opts metav1.ListOptions) (runtime.Object, error) {
	listGVK := gvr.GroupVersion().WithKind(kind + "List")
	if !c.Typed(gvr.GroupVersion().WithKind(kind)) || !scheme.Scheme.Recognizes(listGVK) {
		return c.dyn.Resource(gvr).List(ctx, opts)
	}
	rc, err := c.rest(gvr.GroupVersion())
	if err != nil {
		return nil, err
	}
	out, err := scheme.Scheme.New(listGVK)
	if err != nil {
		return nil, err
	}
	err = rc.Get().Resource(gvr.Resource).VersionedParams(&opts, scheme.ParameterCodec).Do(ctx).Into(out)
	return out, err
}
