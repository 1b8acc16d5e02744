// Package resourcematch reads what a user writes to name resources (the restore's and the
// backup's --include-resources and --exclude-resources, an item action's selector, the
// resource priorities) with the meaning Velero gives it: each entry is resolved through the
// served resources of a cluster's discovery, as Velero's discovery helper resolves it (a
// RESTMapper over discovery, short names expanded first), to "<resource>.<group>" (or
// "<resource>" for the core group), and an entry that does not resolve is kept as written;
// every entry is then a glob (github.com/gobwas/glob) matched against the resource's
// "<resource>.<group>" name.
//
// So "deployments", "deployment", "deploy" and "deployments.apps" all name apps'
// Deployments on a cluster that serves them; "services" names the core Services even when
// another group serves a resource "services" too (the core group comes first, then the
// groups in discovery's order); a group may be given by a prefix of its name
// ("storageclasses.storage"); a short name is replaced by its resource's name before the
// group is looked for, so "ksvc" names whatever "services" names; "*.apps" names every
// resource of group apps. A short name two resources of one group share names the first
// listed (Velero's choice between them varies from run to run: it orders a group's
// resources by ranging over a map).
package resourcematch

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/restmapper"
)

// Resolver resolves resource names through one cluster's served resources. The zero value
// and nil resolve nothing: every entry is kept as written.
type Resolver struct {
	mapper    meta.RESTMapper
	shortcuts []shortcut
	// usable are the resources Velero's helper knows (discovery's preferred resources):
	// each at the first version of its group that serves it, with the list, create, get
	// and delete verbs, not subresources.
	usable sets.Set[schema.GroupVersionResource]
}

// shortcut is a short name of a served resource, as discovery lists it.
type shortcut struct {
	short, long schema.GroupResource
}

// NewResolver returns a Resolver over the resources a cluster serves, as discovery's
// ServerGroupsAndResources lists them: groups in discovery's order (the core group first),
// each group's versions in its order of preference (the first listed is its preferred
// version). A list whose group version does not parse is left out.
func NewResolver(served []*metav1.APIResourceList) *Resolver {
	r := &Resolver{usable: sets.New[schema.GroupVersionResource]()}
	var groups []*restmapper.APIGroupResources
	byGroup := map[string]*restmapper.APIGroupResources{}
	var extensions []shortcut
	chosen := sets.New[schema.GroupResource]() // each resource at the first version that serves it
	for _, l := range served {
		if l == nil {
			continue
		}
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		g, ok := byGroup[gv.Group]
		if !ok {
			g = &restmapper.APIGroupResources{
				Group:              metav1.APIGroup{Name: gv.Group, PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: l.GroupVersion, Version: gv.Version}},
				VersionedResources: map[string][]metav1.APIResource{},
			}
			byGroup[gv.Group] = g
			groups = append(groups, g)
		}
		if _, seen := g.VersionedResources[gv.Version]; !seen {
			g.Group.Versions = append(g.Group.Versions, metav1.GroupVersionForDiscovery{GroupVersion: l.GroupVersion, Version: gv.Version})
		}
		g.VersionedResources[gv.Version] = append(g.VersionedResources[gv.Version], l.APIResources...)
		for _, res := range l.APIResources {
			gr := schema.GroupResource{Group: gv.Group, Resource: res.Name}
			if strings.Contains(res.Name, "/") || chosen.Has(gr) {
				continue
			}
			chosen.Insert(gr)
			if !hasVerbs(res.Verbs, "list", "create", "get", "delete") {
				continue
			}
			r.usable.Insert(gv.WithResource(res.Name))
			for _, s := range res.ShortNames {
				sc := shortcut{short: schema.GroupResource{Group: gv.Group, Resource: s}, long: schema.GroupResource{Group: gv.Group, Resource: res.Name}}
				if gv.Group == "extensions" {
					extensions = append(extensions, sc)
				} else {
					r.shortcuts = append(r.shortcuts, sc)
				}
			}
		}
	}
	r.shortcuts = append(r.shortcuts, extensions...)
	r.mapper = restmapper.NewDiscoveryRESTMapper(groups)
	return r
}

// hasVerbs reports whether verbs holds every one of want.
func hasVerbs(verbs metav1.Verbs, want ...string) bool {
	for _, w := range want {
		found := false
		for _, v := range verbs {
			if v == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Resolve returns the served resource entry names ("deployments", "deployment", "deploy",
// "deployments.apps", ...), and false when it names none: not served, served without one
// of the verbs list, create, get and delete, or ambiguous between groups that discovery
// ranks alike.
func (r *Resolver) Resolve(entry string) (schema.GroupResource, bool) {
	if r == nil || r.mapper == nil {
		return schema.GroupResource{}, false
	}
	gvr := r.expand(schema.ParseGroupResource(entry).WithVersion(""))
	got, err := r.mapper.ResourceFor(gvr)
	if err != nil || !r.usable.Has(got) {
		return schema.GroupResource{}, false
	}
	return got.GroupResource(), true
}

// expand replaces a short name by its resource: one of gvr's group when gvr names a group
// (or of any group when it names none); failing that, when gvr names a group, one of the
// first group whose name begins with it.
func (r *Resolver) expand(gvr schema.GroupVersionResource) schema.GroupVersionResource {
	for _, s := range r.shortcuts {
		if (gvr.Group == "" || gvr.Group == s.short.Group) && gvr.Resource == s.short.Resource {
			gvr.Resource = s.long.Resource
			return gvr
		}
	}
	if gvr.Group == "" {
		return gvr
	}
	for _, s := range r.shortcuts {
		if strings.HasPrefix(s.short.Group, gvr.Group) && gvr.Resource == s.short.Resource {
			gvr.Resource = s.long.Resource
			return gvr
		}
	}
	return gvr
}
