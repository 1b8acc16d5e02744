package readiness

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// ObjectRef names one object to wait for. It is a comparable value.
type ObjectRef struct {
	// GroupKind is the object's group and kind ("apps", "Deployment"; core group "").
	GroupKind schema.GroupKind
	// Namespace is empty for a cluster-scoped object.
	Namespace string
	Name      string
	// UID, if set, is the UID of the object the caller created: an object found under the same
	// name with another UID is a replacement and the wait for it ends with ErrReplaced. If
	// empty, the first UID the waiter sees plays that role.
	UID types.UID
}

// String renders the ref as "Kind.group namespace/name" ("Kind name" for a core,
// cluster-scoped object).
func (r ObjectRef) String() string {
	s := r.GroupKind.Kind
	if r.GroupKind.Group != "" {
		s += "." + r.GroupKind.Group
	}
	s += " "
	if r.Namespace != "" {
		s += r.Namespace + "/"
	}
	return s + r.Name
}

// RefOf returns the ObjectRef of u, its UID included.
func RefOf(u *unstructured.Unstructured) ObjectRef {
	gvk := u.GroupVersionKind()
	return ObjectRef{GroupKind: gvk.GroupKind(), Namespace: u.GetNamespace(), Name: u.GetName(), UID: u.GetUID()}
}

// Getter fetches one object. It returns an error for which apierrors.IsNotFound is true
// when the object does not exist (meta.IsNoMatchError, a kind not served yet, counts the
// same). Implementations must be safe for the waiter's sequential use (see Wait);
// NewDynamicGetter's is safe for concurrent use when its client and mapper are.
type Getter interface {
	Get(ctx context.Context, ref ObjectRef) (*unstructured.Unstructured, error)
}

// Lister is an optional interface of a Getter: all objects of a kind in one namespace (all
// cluster-scoped objects of the kind when namespace is ""), with the list's resourceVersion
// (a Watcher starts from it). When the getter has it, the waiter makes one LIST per
// GroupKind and namespace per tick instead of a GET per object, once at least
// WithListThreshold objects wait there. The returned objects are only read.
type Lister interface {
	List(ctx context.Context, gk schema.GroupKind, namespace string) (*unstructured.UnstructuredList, error)
}

// Watcher is an optional interface of a Lister: a watch of a kind in one namespace from
// resourceVersion (the one of a LIST just made), delivering *unstructured.Unstructured
// objects. When the getter has it (and WithoutWatch is not given), a group read with a LIST
// is then followed by watch events instead of more LISTs; a forbidden watch falls back to
// polling, and a watch that ends or reports an error is replaced by a LIST on the next round.
type Watcher interface {
	Watch(ctx context.Context, gk schema.GroupKind, namespace, resourceVersion string) (watch.Interface, error)
}

// errClass is what the waiter does with a getter's error.
type errClass int

const (
	errNone errClass = iota
	errNotFound
	errDecode
	errTransient
	errPermanent
)

func classify(err error, transient func(error) bool) errClass {
	switch {
	case err == nil:
		return errNone
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		return errNotFound
	case isDecodeError(err):
		return errDecode
	case transient(err):
		return errTransient
	}
	return errPermanent
}

// isDecodeError reports whether err says that an answer could not be decoded into an
// object: JSON that does not parse, or an object without kind or apiVersion. client-go's
// dynamic client decodes with sigs.k8s.io/json, whose error types are internal, so their
// wording is matched too.
func isDecodeError(err error) bool {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) || runtime.IsMissingKind(err) || runtime.IsMissingVersion(err) {
		return true
	}
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return false
	}
	msg := err.Error()
	for _, s := range decodeErrorWording {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// decodeErrorWording is how JSON decoders word a failure (encoding/json and its copy in
// sigs.k8s.io/json, apimachinery's serializers).
var decodeErrorWording = [...]string{
	"invalid character ",
	"unexpected end of JSON input",
	"json parse error",
	"cannot unmarshal ",
	"couldn't get version/kind",
}
