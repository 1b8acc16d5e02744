package backup

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/internal/nonrestorable"
	"github.com/backupkit/backupkit/internal/resourcematch"
	"github.com/backupkit/backupkit/versionselect"
)

// Option configures [NewPlan]. A nil Option is ignored.
type Option func(*planConfig)

type planConfig struct {
	filter Filter
}

// WithFilter backs up only what f selects; see [Filter]. Default: the zero Filter.
func WithFilter(f Filter) Option { return func(c *planConfig) { c.filter = f } }

// Reason says why a served resource is left out of the backup.
type Reason string

// The reasons a resource is left out ([LeftOut]).
const (
	// ReasonExcluded: Filter.ExcludedResources names it.
	ReasonExcluded Reason = "excluded by ExcludedResources"
	// ReasonNotIncluded: Filter.IncludedResources does not name it.
	ReasonNotIncluded Reason = "not in IncludedResources"
	// ReasonNeverRestored: one of restore.NeverRestored, left out unless
	// Filter.IncludedResources names it (not by "*").
	ReasonNeverRestored Reason = "excluded by default (Velero never restores them)"
	// ReasonClusterScopedExcluded: cluster-scoped, and Filter.IncludeClusterResources is false.
	ReasonClusterScopedExcluded Reason = "cluster-scoped, and IncludeClusterResources is false"
	// ReasonClusterScopedUnused: cluster-scoped, IncludeClusterResources unset, the
	// namespaces filtered, and not a kind the selected namespaces' objects use.
	ReasonClusterScopedUnused Reason = "cluster-scoped, and the selected namespaces use none (IncludeClusterResources unset)"
)

// LeftOut is a served resource the plan does not back up.
type LeftOut struct {
	Resource string // the directory name, "events.events.k8s.io"
	Reason   Reason
}

// Resource is one resource the plan backs up.
type Resource struct {
	// Name is the resource's directory in the backup: "<resource>.<group>", or
	// "<resource>" for the core group ("deployments.apps", "pods").
	Name       string
	Group      string
	Resource   string // the plural, "deployments"
	Kind       string
	Namespaced bool
	// Versions are every version the cluster serves it at: the preferred one first (the
	// group's preferred version if the resource is served there, else the first in
	// versionselect order), then in versionselect order.
	Versions []string
	// Only is "" when every object the namespace and label filters select is backed up;
	// otherwise it says which objects are (the cluster-scoped ones the selected namespaces
	// use, listed after the namespaced resources). See [OnlyUsed] and [OnlyCRDsOfBackedUp].
	Only string
}

// What Resource.Only says.
const (
	// OnlyUsed: the objects the selected namespaces' objects use (a Pod's PriorityClass,
	// a claim's PersistentVolume and StorageClass, a binding's ClusterRole, ...) or that
	// name them (a ClusterRoleBinding naming one of their ServiceAccounts, a webhook
	// configuration or APIService calling one of their Services).
	OnlyUsed = "the objects the selected namespaces use"
	// OnlyCRDsOfBackedUp: the CustomResourceDefinitions of the custom resources with
	// objects in the backup, as Velero backs up CRDs when the namespaces are filtered. The
	// others are left out (Summary.CRDsLeftOut counts them); Filter.IncludeClusterResources
	// true backs up every one.
	OnlyCRDsOfBackedUp = "the CustomResourceDefinitions of the custom resources backed up"
)

// Preferred is the version stored at the legacy path and under "-preferredversion".
func (r Resource) Preferred() string { return r.Versions[0] }

// GroupResource is the resource's group and plural.
func (r Resource) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: r.Group, Resource: r.Resource}
}

// Plan is what a backup reads: the resources, each at every version served, and what it
// leaves out. Run carries it out. A Plan is not changed by Run and may be run more than
// once; it keeps the cluster's clients it was made with.
type Plan struct {
	// Resources are backed up, sorted by Name.
	Resources []Resource
	// LeftOut are the served resources not backed up, sorted by Resource. Subresources and
	// resources that cannot be listed are in neither list: there is nothing to list.
	LeftOut []LeftOut
	// DiscoveryFailed are the group versions whose discovery failed (an aggregated API
	// server down), sorted: their resources are in neither list.
	DiscoveryFailed []Unread

	dyn      dynamic.Interface
	raw      rest.Interface // Cluster.raw
	filter   *compiledFilter
	resolver *resourcematch.Resolver // the resource lists of the hooks (WithHooks)
}

// Listings counts the listings Run makes, one per resource and version (a listing may
// span several namespaces): the total of EventListed events.
func (p *Plan) Listings() int {
	n := 0
	for _, r := range p.Resources {
		n += len(r.Versions)
	}
	return n
}

// crdResource is the directory name of CustomResourceDefinitions.
const crdResource = "customresourcedefinitions.apiextensions.k8s.io"

// NewPlan reads the cluster's discovery once and decides what to back up: every served
// resource that supports list, at every version it is served at (Velero's
// EnableAPIGroupVersions), that the filter ([WithFilter]) selects, but for the resources
// Velero never restores (restore.NeverRestored: nodes, events, Velero's own, ...), which
// are left out unless Filter.IncludedResources names them. A group version whose discovery
// fails is in Plan.DiscoveryFailed and the rest is planned; any other failure of
// discovery, and a filter that cannot be used (ErrFilter), is an error.
func NewPlan(ctx context.Context, cluster Cluster, opts ...Option) (*Plan, error) {
	var cfg planConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cluster.Discovery == nil || cluster.Dynamic == nil {
		return nil, errors.New("backup: the cluster needs a discovery and a dynamic client")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	groups, lists, err := cluster.Discovery.ServerGroupsAndResources()
	var failed []Unread
	if err != nil {
		var gdf *discovery.ErrGroupDiscoveryFailed
		if !errors.As(err, &gdf) {
			return nil, fmt.Errorf("backup: discovery: %w", err)
		}
		for gv, e := range gdf.Groups {
			failed = append(failed, Unread{Resource: gv.String(), Reason: "discovery: " + e.Error(), Err: e})
		}
		sort.Slice(failed, func(i, j int) bool { return failed[i].Resource < failed[j].Resource })
	}
	p, err := planResources(groups, lists, cfg.filter)
	if err != nil {
		return nil, err
	}
	p.DiscoveryFailed, p.dyn, p.raw = failed, cluster.Dynamic, cluster.raw
	return p, nil
}

// neverBackedUp reports whether gr is left out unless named (restore.NeverRestored).
func neverBackedUp(gr schema.GroupResource) bool {
	_, never := nonrestorable.Reason(gr)
	return never
}

// planResources is NewPlan's decision from discovery: the groups with their preferred
// version, and the resources served at each group version.
func planResources(groups []*metav1.APIGroup, lists []*metav1.APIResourceList, f Filter) (*Plan, error) {
	res := resourcematch.NewResolver(lists)
	cf, err := compile(f, res)
	if err != nil {
		return nil, err
	}
	preferred := map[string]string{}
	for _, g := range groups {
		preferred[g.Name] = g.PreferredVersion.Version
	}
	byName := map[string]*Resource{}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") {
				continue
			}
			gr := schema.GroupResource{Group: gv.Group, Resource: r.Name}
			p := byName[gr.String()]
			if p == nil {
				p = &Resource{Name: gr.String(), Group: gv.Group, Resource: r.Name, Kind: r.Kind, Namespaced: r.Namespaced}
				byName[p.Name] = p
			}
			if !slices.Contains(p.Versions, gv.Version) {
				p.Versions = append(p.Versions, gv.Version)
			}
		}
	}
	plan := &Plan{filter: cf, resolver: res}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		p := byName[name]
		if why := cf.resourceLeftOut(p); why != "" {
			plan.LeftOut = append(plan.LeftOut, LeftOut{name, why})
			continue
		}
		versionselect.Sort(p.Versions)
		if pv := preferred[p.Group]; slices.Contains(p.Versions, pv) {
			i := slices.Index(p.Versions, pv)
			p.Versions = append([]string{pv}, append(p.Versions[:i:i], p.Versions[i+1:]...)...)
		}
		plan.Resources = append(plan.Resources, *p)
	}
	return plan, nil
}

// resourceLeftOut says why the filter leaves resource r out, "" when it does not; for a
// cluster-scoped resource of which only some objects are backed up, it sets r.Only.
func (f *compiledFilter) resourceLeftOut(r *Resource) Reason {
	gr := r.GroupResource()
	switch {
	case !f.excRes.Includes(gr):
		return ReasonExcluded
	case !f.incRes.Includes(gr):
		return ReasonNotIncluded
	case neverBackedUp(gr) && !(f.anyNamed && f.named.Includes(gr)):
		return ReasonNeverRestored
	case r.Namespaced || r.Name == "namespaces":
		return ""
	}
	only, why := clusterScope(f, r.Name)
	r.Only = only
	return why
}
