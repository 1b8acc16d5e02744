package restore

import (
	"cmp"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/internal/resourcematch"
	"github.com/backupkit/backupkit/manifest"
)

// resourceResolver is what resolves the resource names of a Filter and of the item
// actions' selectors, with Velero's meaning (internal/resourcematch): the target's served
// resources when the plan has them (WithServedResources; Connect reads them), else the
// backup's own resources, as a discovery would list them: the core group first, then the
// other groups by name, each resource under every version the backup holds it at (in the
// order items of it were met), its singular name the kind in lower case, without short
// names.
func resourceResolver(served []*metav1.APIResourceList, m *manifest.Manifest) *resourcematch.Resolver {
	if served != nil {
		return resourcematch.NewResolver(served)
	}
	type resource struct {
		name, kind string
		namespaced bool
	}
	lists := map[schema.GroupVersion][]resource{}
	seen := map[schema.GroupVersionResource]bool{}
	var order []schema.GroupVersion
	for _, it := range m.Items() {
		gvr := schema.GroupVersionResource{Group: it.Group, Version: it.Version, Resource: it.Resource}
		if seen[gvr] {
			continue
		}
		seen[gvr] = true
		gv := gvr.GroupVersion()
		if _, ok := lists[gv]; !ok {
			order = append(order, gv)
		}
		lists[gv] = append(lists[gv], resource{it.Resource, it.Kind, it.Namespace != ""})
	}
	slices.SortStableFunc(order, func(a, b schema.GroupVersion) int {
		if (a.Group == "") != (b.Group == "") {
			if a.Group == "" {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Group, b.Group)
	})
	verbs := metav1.Verbs{"create", "delete", "get", "list"}
	out := make([]*metav1.APIResourceList, 0, len(order))
	for _, gv := range order {
		l := &metav1.APIResourceList{GroupVersion: gv.String()}
		for _, r := range lists[gv] {
			l.APIResources = append(l.APIResources, metav1.APIResource{Name: r.name, Kind: r.kind, Namespaced: r.namespaced, Verbs: verbs})
		}
		out = append(out, l)
	}
	return resourcematch.NewResolver(out)
}
