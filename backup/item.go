package backup

import (
	jsonv2 "github.com/go-json-experiment/json"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// item is an object a listing hands to Run: what Run reads of every object (apiVersion,
// kind, name, namespace, labels), and the whole object, decoded only when asked for
// (object): Run asks when the plan defers resources (OnlyUsed) and for a Pod's hooks.
type item struct {
	head itemHead
	raw  []byte // the object's JSON as listed, when it came from a raw page
	u    *unstructured.Unstructured
	err  error // of decoding raw whole
}

// itemHead is the part of an object's JSON every object is read for.
type itemHead struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	} `json:"metadata"`
}

// itemOf is the item of u, decoded already.
func itemOf(u *unstructured.Unstructured) *item {
	it := &item{u: u}
	it.headFrom(u)
	return it
}

// headFrom reads the head from u, as unstructured's getters read it.
func (it *item) headFrom(u *unstructured.Unstructured) {
	it.head.APIVersion, it.head.Kind = u.GetAPIVersion(), u.GetKind()
	it.head.Metadata.Name, it.head.Metadata.Namespace = u.GetName(), u.GetNamespace()
	it.head.Metadata.Labels = u.GetLabels()
}

// readItem reads the head of raw, an object's JSON; when it does not read as the head's
// types (a name that is not a string, a duplicate key, invalid UTF-8, ...), it decodes raw
// whole as the dynamic client does and takes the head from that, with unstructured's
// meaning. The error is that decoding's: raw is not a JSON object.
func readItem(raw []byte) (*item, error) {
	it := &item{raw: raw}
	if jsonv2.Unmarshal(raw, &it.head) == nil {
		return it, nil
	}
	it.head = itemHead{}
	u, err := it.object()
	if err != nil {
		return nil, err
	}
	it.headFrom(u)
	return it, nil
}

// object is the whole object, as the dynamic client decodes it (whole numbers as int64),
// with the head's apiVersion and kind.
func (it *item) object() (*unstructured.Unstructured, error) {
	if it.u != nil || it.err != nil {
		return it.u, it.err
	}
	m := map[string]any{}
	if it.err = utiljson.Unmarshal(it.raw, &m); it.err != nil {
		return nil, it.err
	}
	it.u = &unstructured.Unstructured{Object: m}
	if it.head.Kind != "" && it.u.GetKind() == "" {
		it.u.SetKind(it.head.Kind)
	}
	if it.head.APIVersion != "" && it.u.GetAPIVersion() == "" {
		it.u.SetAPIVersion(it.head.APIVersion)
	}
	return it.u, nil
}

func (it *item) name() string              { return it.head.Metadata.Name }
func (it *item) namespace() string         { return it.head.Metadata.Namespace }
func (it *item) labels() map[string]string { return it.head.Metadata.Labels }
