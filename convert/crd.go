package convert

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// CRDError is one way a CustomResourceDefinition disagrees with the registry. It wraps
// ErrCRDMismatch (or ErrNotRegistered, when the CRD's kind has no registration).
type CRDError struct {
	CRD     string // the CRD's metadata.name
	Version string // the version concerned; "" when the problem is not about one version
	Problem string
	Err     error // ErrCRDMismatch or ErrNotRegistered
}

// Error renders `CustomResourceDefinition "<name>": version "<v>": <problem>`.
func (e *CRDError) Error() string {
	if e.Version == "" {
		return fmt.Sprintf("convert: CustomResourceDefinition %q: %s", e.CRD, e.Problem)
	}
	return fmt.Sprintf("convert: CustomResourceDefinition %q: version %q: %s", e.CRD, e.Version, e.Problem)
}

// Unwrap returns ErrCRDMismatch or ErrNotRegistered.
func (e *CRDError) Unwrap() error { return e.Err }

// CheckCRD checks an apiextensions.k8s.io/v1 CustomResourceDefinition against the
// registration of its kind (spec.group, spec.names.kind): its versions must be exactly the
// registered ones, exactly one of them stored, and that one the hub, so that every object
// the API server stores converts through the registry and back. It returns nil, or the
// errors.Join of one *CRDError per problem (all of them, not the first), each naming the CRD
// and, where there is one, the version.
func (r *Registry) CheckCRD(crd *unstructured.Unstructured) error {
	if crd == nil || crd.Object == nil {
		return errors.Join(&CRDError{Problem: "nil", Err: ErrCRDMismatch})
	}
	name := crd.GetName()
	fail := func(version, problem string) error {
		return &CRDError{CRD: name, Version: version, Problem: problem, Err: ErrCRDMismatch}
	}
	if gvk := crd.GroupVersionKind(); gvk != (schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}) {
		return errors.Join(fail("", fmt.Sprintf("is %s, not an apiextensions.k8s.io/v1 CustomResourceDefinition", gvk)))
	}
	group, _, err := unstructured.NestedString(crd.Object, "spec", "group")
	if err != nil {
		return errors.Join(fail("", "spec.group: "+err.Error()))
	}
	kind, _, err := unstructured.NestedString(crd.Object, "spec", "names", "kind")
	if err != nil {
		return errors.Join(fail("", "spec.names.kind: "+err.Error()))
	}
	versions, err := crdVersions(crd)
	if err != nil {
		return errors.Join(fail("", err.Error()))
	}
	gk := schema.GroupKind{Group: group, Kind: kind}
	hub, registered, ok := r.Versions(gk)
	if !ok {
		return errors.Join(&CRDError{CRD: name, Problem: fmt.Sprintf("%s is not registered", gkString(gk)), Err: ErrNotRegistered})
	}
	var errs []error
	var stored []string
	seen := map[string]bool{}
	for _, v := range versions {
		switch {
		case seen[v.name]:
			errs = append(errs, fail(v.name, "listed twice"))
		case !slices.Contains(registered, v.name):
			errs = append(errs, fail(v.name, fmt.Sprintf("in the CRD but not registered for %s (registered: %s)", gkString(gk), strings.Join(registered, ", "))))
		}
		seen[v.name] = true
		if v.storage {
			stored = append(stored, v.name)
		}
	}
	for _, v := range registered {
		if !seen[v] {
			errs = append(errs, fail(v, fmt.Sprintf("registered for %s but not in the CRD", gkString(gk))))
		}
	}
	switch {
	case len(stored) == 0:
		errs = append(errs, fail("", fmt.Sprintf("no version is stored; the hub %s must be", hub)))
	case len(stored) > 1:
		errs = append(errs, fail("", fmt.Sprintf("versions %s are all stored; exactly one, the hub %s, must be", strings.Join(stored, ", "), hub)))
	case stored[0] != hub:
		errs = append(errs, fail(stored[0], fmt.Sprintf("stored, but the hub is %s", hub)))
	}
	return errors.Join(errs...)
}

// crdVersion is what CheckCRD reads of one entry of spec.versions.
type crdVersion struct {
	name    string
	storage bool
}

func crdVersions(crd *unstructured.Unstructured) ([]crdVersion, error) {
	raw, _, err := unstructured.NestedSlice(crd.Object, "spec", "versions")
	if err != nil {
		return nil, fmt.Errorf("spec.versions: %v", err)
	}
	out := make([]crdVersion, 0, len(raw))
	for i, e := range raw {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("spec.versions[%d] is %T, not an object", i, e)
		}
		name, ok := m["name"].(string)
		if !ok || name == "" {
			return nil, fmt.Errorf("spec.versions[%d].name is missing or not a string", i)
		}
		storage, _ := m["storage"].(bool)
		out = append(out, crdVersion{name: name, storage: storage})
	}
	return out, nil
}

// WebhookConversion says how the API server reaches a conversion webhook: a URL, or a
// Service in the cluster, exactly one of them.
type WebhookConversion struct {
	URL     string             // https://host:port/path
	Service *WebhookServiceRef // a Service in the cluster
	// CABundle is the PEM bundle the API server trusts the webhook's certificate with; nil
	// for the API server's own trust roots.
	CABundle []byte
	// ReviewVersions are the ConversionReview versions the webhook accepts, preferred first;
	// nil: v1 and v1beta1, both of which NewWebhookHandler serves.
	ReviewVersions []string
}

// WebhookServiceRef names a Service that serves a conversion webhook.
type WebhookServiceRef struct {
	Namespace, Name string
	Path            string // "" for "/"
	Port            int32  // 0 for 443
}

// WithWebhookConversion returns a copy of crd whose spec.conversion sends conversions to the
// webhook w, after CheckCRD has found crd to agree with the registry (its error otherwise,
// and nil). A WebhookConversion with both or neither of URL and Service is an error
// wrapping ErrCRDMismatch. crd is not modified.
func (r *Registry) WithWebhookConversion(crd *unstructured.Unstructured, w WebhookConversion) (*unstructured.Unstructured, error) {
	if err := r.CheckCRD(crd); err != nil {
		return nil, err
	}
	if (w.URL == "") == (w.Service == nil) {
		return nil, errors.Join(&CRDError{CRD: crd.GetName(), Problem: "the webhook needs exactly one of a URL and a Service", Err: ErrCRDMismatch})
	}
	client := map[string]any{}
	if w.URL != "" {
		client["url"] = w.URL
	} else {
		svc := map[string]any{"namespace": w.Service.Namespace, "name": w.Service.Name}
		if w.Service.Path != "" {
			svc["path"] = w.Service.Path
		}
		if w.Service.Port != 0 {
			svc["port"] = int64(w.Service.Port)
		}
		client["service"] = svc
	}
	if len(w.CABundle) > 0 {
		client["caBundle"] = base64.StdEncoding.EncodeToString(w.CABundle) // as JSON holds it
	}
	reviews := w.ReviewVersions
	if reviews == nil {
		reviews = []string{"v1", "v1beta1"}
	}
	rv := make([]any, len(reviews))
	for i, v := range reviews {
		rv[i] = v
	}
	out := crd.DeepCopy()
	spec, _ := out.Object["spec"].(map[string]any)
	spec["conversion"] = map[string]any{
		"strategy": "Webhook",
		"webhook":  map[string]any{"clientConfig": client, "conversionReviewVersions": rv},
	}
	return out, nil
}
