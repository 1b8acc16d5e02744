package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/internal/resourcematch"
	"github.com/backupkit/backupkit/restore"
	"github.com/backupkit/backupkit/versionselect"
)

// defaultExcluded are the resources backed up by no default, as directory names: those a
// restore never restores (restore.NeverRestored, which are Velero's nonRestorableResources),
// so a backup holding them only costs time and space. Nodes and the storage records of which
// node mounts what (CSINodes, VolumeAttachments) belong to the machines of one cluster;
// Events are a log, large and short-lived; Velero's own Backups, Restores and repositories
// are synced from object storage or made again by Velero. Naming one in --include-resources
// backs it up anyway.
var defaultExcluded = neverRestoredDirs()

// neverRestoredDirs are the directory names of restore.NeverRestored, in its order.
func neverRestoredDirs() []string {
	var dirs []string
	for _, gr := range restore.NeverRestored() {
		dirs = append(dirs, gr.String())
	}
	return dirs
}

// crdResource is the directory name of CustomResourceDefinitions.
const crdResource = "customresourcedefinitions.apiextensions.k8s.io"

// resourcePlan is one resource to back up: every version the cluster serves it at, the
// preferred one first.
type resourcePlan struct {
	Dir        string // "deployments.apps", "pods": the directory in the backup
	Group      string
	Resource   string
	Kind       string
	Namespaced bool
	Versions   []string // the preferred version first, then in versionselect order
	// Names, if not nil, limits the objects backed up to these names (the Namespace objects
	// of the included namespaces).
	Names map[string]bool
}

// Preferred is the version stored at the legacy path and under "-preferredversion".
func (r resourcePlan) Preferred() string { return r.Versions[0] }

// GVR is the resource at version v.
func (r resourcePlan) GVR(v string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.Group, Version: v, Resource: r.Resource}
}

// filter is what --include-*/--exclude-* select.
type filter struct {
	includeNamespaces, excludeNamespaces []string // "*" in includeNamespaces: every namespace
	includeResources, excludeResources   []string // "*" in includeResources: every resource
	clusterResources                     *bool    // --include-cluster-resources; nil: unset (clusterscope.go)
}

// allNamespaces reports whether every namespace is included (excludes aside), which, as in
// Velero when --include-cluster-resources is not set, is when cluster-scoped resources are
// backed up.
func (f filter) allNamespaces() bool { return slices.Contains(f.includeNamespaces, "*") }

// namespace reports whether objects of namespace ns are backed up.
func (f filter) namespace(ns string) bool {
	if slices.Contains(f.excludeNamespaces, ns) {
		return false
	}
	return f.allNamespaces() || slices.Contains(f.includeNamespaces, ns)
}

// resourceFilter is the filter's resource lists resolved through the cluster's discovery
// with Velero's meaning (internal/resourcematch): a bare name is the resource discovery
// resolves it to ("deployments" is apps' Deployments, "services" the core Services),
// "<resource>.<group>" names one group's, and an entry is a glob.
type resourceFilter struct {
	included, excluded *resourcematch.IncludesExcludes
	named              *resourcematch.IncludesExcludes // the included entries but "*"
	anyNamed           bool
}

func newResourceFilter(f filter, lists []*metav1.APIResourceList) (*resourceFilter, error) {
	r := resourcematch.NewResolver(lists)
	rf := &resourceFilter{}
	var err error
	if rf.included, err = resourcematch.NewIncludesExcludes(r, f.includeResources, nil); err != nil {
		return nil, fmt.Errorf("--include-resources: %w", err)
	}
	if rf.excluded, err = resourcematch.NewIncludesExcludes(r, nil, f.excludeResources); err != nil {
		return nil, fmt.Errorf("--exclude-resources: %w", err)
	}
	named := slices.DeleteFunc(slices.Clone(f.includeResources), func(e string) bool { return e == "*" })
	rf.anyNamed = len(named) > 0
	rf.named, err = resourcematch.NewIncludesExcludes(r, named, nil)
	return rf, err
}

// resource reports whether resource gr (directory dir) is backed up, and if not, why.
func (rf *resourceFilter) resource(gr schema.GroupResource, dir string) (bool, string) {
	switch {
	case !rf.excluded.Includes(gr):
		return false, "--exclude-resources"
	case !rf.included.Includes(gr):
		return false, "not in --include-resources"
	case slices.Contains(defaultExcluded, dir) && !(rf.anyNamed && rf.named.Includes(gr)):
		return false, "excluded by default (Velero never restores them)"
	}
	return true, ""
}

// skippedResource is a served resource that is not backed up, and why.
type skippedResource struct{ Dir, Reason string }

// planResources turns discovery (the groups with their preferred version, and the
// resources served at each group version) into the resources to back up, sorted by
// directory name, and those left out. Subresources and resources without the list verb are
// left out silently: there is nothing to list. A resource's preferred version is its group's
// preferred version if it is served there, else the first of its versions in versionselect
// order.
func planResources(groups []*metav1.APIGroup, lists []*metav1.APIResourceList, f filter) ([]resourcePlan, []skippedResource, error) {
	rf, err := newResourceFilter(f, lists)
	if err != nil {
		return nil, nil, err
	}
	preferred := map[string]string{}
	for _, g := range groups {
		preferred[g.Name] = g.PreferredVersion.Version
	}
	byDir := map[string]*resourcePlan{}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") {
				continue
			}
			dir := r.Name
			if gv.Group != "" {
				dir += "." + gv.Group
			}
			p := byDir[dir]
			if p == nil {
				p = &resourcePlan{Dir: dir, Group: gv.Group, Resource: r.Name, Kind: r.Kind, Namespaced: r.Namespaced}
				byDir[dir] = p
			}
			if !slices.Contains(p.Versions, gv.Version) {
				p.Versions = append(p.Versions, gv.Version)
			}
		}
	}
	var out []resourcePlan
	var skipped []skippedResource
	for _, dir := range sortedKeys(byDir) {
		p := byDir[dir]
		if ok, why := rf.resource(schema.GroupResource{Group: p.Group, Resource: p.Resource}, dir); !ok {
			skipped = append(skipped, skippedResource{dir, why})
			continue
		}
		if !p.Namespaced && dir == "namespaces" && !f.allNamespaces() {
			p.Names = map[string]bool{}
			for _, ns := range f.includeNamespaces {
				if f.namespace(ns) {
					p.Names[ns] = true
				}
			}
		} else if !p.Namespaced && dir != "namespaces" {
			ok, names, why := clusterPlan(f, dir)
			if !ok {
				skipped = append(skipped, skippedResource{dir, why})
				continue
			}
			p.Names = names
		}
		versionselect.Sort(p.Versions)
		if pv := preferred[p.Group]; slices.Contains(p.Versions, pv) {
			i := slices.Index(p.Versions, pv)
			p.Versions = append([]string{pv}, append(p.Versions[:i:i], p.Versions[i+1:]...)...)
		}
		out = append(out, *p)
	}
	return out, skipped, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// splitList parses a comma-separated flag value; empty entries are dropped.
func splitList(s string) []string {
	var out []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

func (r resourcePlan) String() string {
	return fmt.Sprintf("%s %v", r.Dir, r.Versions)
}
