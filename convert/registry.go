package convert

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Func converts a whole object between its version and the hub. It receives a deep copy
// that it may modify and return. The registry sets apiVersion and kind on what it returns
// and restores metadata (see Registry.Convert), so a Func need only move the content.
type Func func(ctx context.Context, in *unstructured.Unstructured) (*unstructured.Unstructured, error)

// SpokeFuncs are the two directions of one spoke version: ToHub turns an object of the
// spoke version into the hub version, FromHub the reverse. Both are required.
type SpokeFuncs struct{ ToHub, FromHub Func }

// Registry holds, per GroupKind, a hub version and the spokes that convert to and from it.
// Kinds come in three ways: functions over unstructured objects (AddUnstructured), Go
// types implementing Hub and Convertible (AddTyped, AddScheme), or spec and status
// converters (AddParts). Each registration is checked for completeness when made.
//
// The zero value is not usable; call NewRegistry. A Registry is safe for concurrent use:
// registrations and conversions may run from many goroutines at once, and a conversion
// sees each kind either fully registered or not at all.
type Registry struct {
	mu        sync.RWMutex
	kinds     map[schema.GroupKind]*kindEntry
	resources map[schema.GroupResource]schema.GroupKind
	types     map[reflect.Type][]schema.GroupVersionKind
	original  atomic.Bool
}

// kindEntry is one registered kind. It is never modified after registration. Exactly one
// of spokes, parts and scheme is set.
type kindEntry struct {
	gk       schema.GroupKind
	hub      string
	versions []string // sorted, hub included
	spokes   map[string]SpokeFuncs
	parts    map[string]PartFuncs
	scheme   *runtime.Scheme
	goTypes  map[reflect.Type]schema.GroupVersionKind // of scheme's versions, by pointer type
}

func (k *kindEntry) has(version string) bool {
	_, found := slices.BinarySearch(k.versions, version)
	return found
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{
		kinds:     map[schema.GroupKind]*kindEntry{},
		resources: map[schema.GroupResource]schema.GroupKind{},
		types:     map[reflect.Type][]schema.GroupVersionKind{},
	}
}

// AddUnstructured registers a kind without Go types: hub is its hub version and spokes
// maps every other version to its functions.
//
// It fails, naming the GroupKind and the versions, when the kind is empty, hub is empty,
// a spoke version is empty or equals hub, a spoke lacks ToHub or FromHub, or the GroupKind
// is already registered (ErrAlreadyRegistered; the first registration stays). An empty
// spokes map registers a kind with the hub as its only version. The registry keeps its own
// copy of spokes.
func (r *Registry) AddUnstructured(gk schema.GroupKind, hub string, spokes map[string]SpokeFuncs) error {
	problems, missing := checkSpokes(hub, spokes, func(f SpokeFuncs) bool { return f.ToHub == nil || f.FromHub == nil })
	if len(missing) > 0 {
		problems = append(problems, "spoke versions "+versionList(missing)+" lack ToHub or FromHub")
	}
	return r.add(&kindEntry{gk: gk, hub: hub, versions: versionsOf(hub, spokes), spokes: copySpokes(spokes)}, problems)
}

// AddTyped registers gk from the Go types s holds for it: exactly one version's type must
// implement Hub and every other version's type Convertible. The scheme is kept and used to
// create objects, so it must not gain or lose types of gk afterwards.
//
// Errors (ErrInvalidRegistration) name the GroupKind and the sorted versions: no version of
// gk in s, no hub, more than one hub, versions neither Hub nor Convertible; all problems
// are reported in one error. ErrAlreadyRegistered when gk is registered.
func (r *Registry) AddTyped(s *runtime.Scheme, gk schema.GroupKind) error {
	if s == nil {
		return fmt.Errorf("%w: %s: nil scheme", ErrInvalidRegistration, gkString(gk))
	}
	var hubs, spokes, neither []string
	types := map[reflect.Type]schema.GroupVersionKind{}
	for gvk, t := range s.AllKnownTypes() {
		if gvk.GroupKind() != gk || gvk.Version == runtime.APIVersionInternal {
			continue
		}
		obj, err := s.New(gvk)
		if err != nil {
			neither = append(neither, gvk.Version)
			continue
		}
		switch obj.(type) {
		case Hub:
			hubs = append(hubs, gvk.Version)
		case Convertible:
			spokes = append(spokes, gvk.Version)
		default:
			neither = append(neither, gvk.Version)
		}
		types[reflect.PointerTo(t)] = gvk
	}
	all := append(append(append([]string(nil), hubs...), spokes...), neither...)
	if len(all) == 0 {
		return fmt.Errorf("%w: %s: the scheme has no version of it", ErrInvalidRegistration, gkString(gk))
	}
	var problems []string
	switch len(hubs) {
	case 0:
		problems = append(problems, "no version is a Hub")
	case 1:
	default:
		problems = append(problems, "more than one hub: "+versionList(hubs))
	}
	if len(neither) > 0 {
		problems = append(problems, "versions "+versionList(neither)+" implement neither Hub nor Convertible")
	}
	hub := ""
	if len(hubs) == 1 {
		hub = hubs[0]
	}
	sort.Strings(all)
	return r.add(&kindEntry{gk: gk, hub: hub, versions: all, scheme: s, goTypes: types}, problems)
}

// AddScheme registers, with AddTyped, every GroupKind in s that has at least one type
// implementing Hub or Convertible. Kinds are registered in sorted order; the problems of
// all kinds come back joined (errors.Join), and the kinds without problems stay registered.
func (r *Registry) AddScheme(s *runtime.Scheme) error {
	if s == nil {
		return fmt.Errorf("%w: nil scheme", ErrInvalidRegistration)
	}
	kinds := map[schema.GroupKind]bool{}
	for gvk := range s.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal {
			continue
		}
		obj, err := s.New(gvk)
		if err != nil {
			continue
		}
		switch obj.(type) {
		case Hub, Convertible:
			kinds[gvk.GroupKind()] = true
		}
	}
	sorted := make([]schema.GroupKind, 0, len(kinds))
	for gk := range kinds {
		sorted = append(sorted, gk)
	}
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Group != sorted[j].Group {
			return sorted[i].Group < sorted[j].Group
		}
		return sorted[i].Kind < sorted[j].Kind
	})
	var errs []error
	for _, gk := range sorted {
		if err := r.AddTyped(s, gk); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// add checks the parts common to every registration and stores k.
func (r *Registry) add(k *kindEntry, problems []string) error {
	sort.Strings(problems)
	var lead []string
	if k.gk.Kind == "" {
		lead = append(lead, "kind is empty")
	}
	if k.hub == "" && k.scheme == nil {
		lead = append(lead, "hub version is empty")
	}
	if strings.Contains(k.hub, "/") {
		lead = append(lead, fmt.Sprintf("hub version %s contains '/'", k.hub))
	}
	problems = append(lead, problems...)
	if len(problems) > 0 {
		versions := ""
		if list := versionList(k.versions); list != "[]" {
			versions = " (versions " + list + ")"
		}
		return fmt.Errorf("%w: %s%s: %s", ErrInvalidRegistration, gkString(k.gk), versions, strings.Join(problems, "; "))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.kinds[k.gk]; ok {
		return fmt.Errorf("%w: %s (hub %s, versions %s)", ErrAlreadyRegistered, gkString(k.gk), old.hub, versionList(old.versions))
	}
	r.kinds[k.gk] = k
	for t, gvk := range k.goTypes {
		r.types[t] = append(r.types[t], gvk)
	}
	plural, _ := meta.UnsafeGuessKindToResource(k.gk.WithVersion(""))
	gr := plural.GroupResource()
	if _, taken := r.resources[gr]; !taken {
		r.resources[gr] = k.gk
	}
	return nil
}

// AddResource maps a resource (its lower-case plural name, as in a URL or in
// versionselect's keys) to a registered kind, for CanConvert. Registration already maps the
// guessed plural (kind ExternalJob: resource externaljobs); AddResource is for irregular
// plurals and replaces an earlier mapping of gr. ErrNotRegistered when gk is not registered.
func (r *Registry) AddResource(gr schema.GroupResource, kind string) error {
	gk := schema.GroupKind{Group: gr.Group, Kind: kind}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.kinds[gk]; !ok {
		return fmt.Errorf("%w: %s (resource %s)", ErrNotRegistered, gkString(gk), gr.String())
	}
	r.resources[gr] = gk
	return nil
}

// CanConvert reports whether objects of resource in group convert from version from to
// version to: the resource maps to a registered kind (see AddResource) and both versions
// are registered versions of it. Equal registered versions are convertible (a copy).
// CanConvert satisfies versionselect's Converter interface.
func (r *Registry) CanConvert(group, resource, from, to string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	gk, ok := r.resources[schema.GroupResource{Group: group, Resource: resource}]
	if !ok {
		return false
	}
	k := r.kinds[gk]
	return k.has(from) && k.has(to)
}

// Versions returns the hub and the sorted registered versions of gk (hub included);
// ok is false when gk is not registered. The slice is the caller's.
func (r *Registry) Versions(gk schema.GroupKind) (hub string, versions []string, ok bool) {
	k := r.kind(gk)
	if k == nil {
		return "", nil, false
	}
	return k.hub, slices.Clone(k.versions), true
}

// SetTrackOriginalVersion turns original-version recording on or off (default off). When
// on, every conversion between different versions of an object that has no record yet
// records the version it was converted from (see OriginalVersionAnnotation): in a cluster
// whose conversion webhook uses this registry, that is the version the object was created
// with. Safe to call while conversions run; each conversion reads the setting once.
func (r *Registry) SetTrackOriginalVersion(on bool) { r.original.Store(on) }

func (r *Registry) kind(gk schema.GroupKind) *kindEntry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.kinds[gk]
}

// typedGVK finds the registered GroupVersionKind of a typed object: its TypeMeta when set
// and registered, else the only registered kind of its Go type.
func (r *Registry) typedGVK(obj runtime.Object) (schema.GroupVersionKind, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	gvks := r.types[reflect.TypeOf(obj)]
	set := obj.GetObjectKind().GroupVersionKind()
	for _, g := range gvks {
		if g == set {
			return g, true
		}
	}
	if len(gvks) == 1 {
		return gvks[0], true
	}
	return schema.GroupVersionKind{}, false
}

// checkSpokes returns the problems of spokes' versions (empty, or equal to hub) and,
// apart from those, the versions whose functions incomplete rejects.
func checkSpokes[F any](hub string, spokes map[string]F, incomplete func(F) bool) (problems, rejected []string) {
	for v, f := range spokes {
		switch {
		case v == "":
			problems = append(problems, "a spoke version is empty")
		case v == hub:
			problems = append(problems, fmt.Sprintf("spoke version %s is the hub version", v))
		case incomplete(f):
			rejected = append(rejected, v)
		}
	}
	return problems, rejected
}

// copySpokes returns the registry's own copy of spokes, never nil (unlike maps.Clone).
func copySpokes[F any](spokes map[string]F) map[string]F {
	own := make(map[string]F, len(spokes))
	for v, f := range spokes {
		own[v] = f
	}
	return own
}

func versionsOf[V any](hub string, spokes map[string]V) []string {
	vs := make([]string, 0, len(spokes)+1)
	vs = append(vs, hub)
	for v := range spokes {
		if v != hub {
			vs = append(vs, v)
		}
	}
	sort.Strings(vs)
	return vs
}

// versionList renders the non-empty versions sorted, as "[v1 v2]".
func versionList(vs []string) string {
	s := slices.DeleteFunc(slices.Clone(vs), func(v string) bool { return v == "" })
	sort.Strings(s)
	return "[" + strings.Join(s, " ") + "]"
}
