// Package matchtable is the one table of resource lists the restore's filter, the item
// actions' selectors and the backup's resource selection are each tested on, so that a
// bare resource name means the same in all three: Velero's meaning (see resourcematch).
package matchtable

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resource is one served resource of the table's cluster.
type Resource struct {
	schema.GroupResource
	Version, Kind string
	Namespaced    bool
}

// Resources are what the table's cluster serves, in discovery's order: the core group
// first. Two groups serve "services" (the core group one of them) and two "ingresses"
// (neither the core group); Deployments have a short name.
var Resources = []Resource{
	{schema.GroupResource{Resource: "pods"}, "v1", "Pod", true},
	{schema.GroupResource{Resource: "services"}, "v1", "Service", true},
	{schema.GroupResource{Resource: "configmaps"}, "v1", "ConfigMap", true},
	{schema.GroupResource{Group: "apps", Resource: "deployments"}, "v1", "Deployment", true},
	{schema.GroupResource{Group: "networking.k8s.io", Resource: "ingresses"}, "v1", "Ingress", true},
	{schema.GroupResource{Group: "example.net", Resource: "ingresses"}, "v1", "Ingress", true},
	{schema.GroupResource{Group: "serving.knative.dev", Resource: "services"}, "v1", "Service", true},
	{schema.GroupResource{Group: "example.com", Resource: "widgets"}, "v1", "Widget", true},
}

// Served is Resources as discovery lists them (ServerGroupsAndResources).
func Served() []*metav1.APIResourceList {
	var out []*metav1.APIResourceList
	byGV := map[schema.GroupVersion]*metav1.APIResourceList{}
	for _, r := range Resources {
		gv := schema.GroupVersion{Group: r.Group, Version: r.Version}
		l := byGV[gv]
		if l == nil {
			l = &metav1.APIResourceList{GroupVersion: gv.String()}
			byGV[gv] = l
			out = append(out, l)
		}
		res := metav1.APIResource{Name: r.Resource, Kind: r.Kind, Namespaced: r.Namespaced,
			Verbs: metav1.Verbs{"create", "delete", "get", "list", "patch", "update", "watch"}}
		if r.Kind == "Deployment" {
			res.ShortNames = []string{"deploy"}
		}
		l.APIResources = append(l.APIResources, res)
	}
	return out
}

// Case is one pair of lists and the resources of Resources they include.
type Case struct {
	Name               string
	Included, Excluded []string
	Want               []schema.GroupResource
}

var (
	pods      = schema.GroupResource{Resource: "pods"}
	services  = schema.GroupResource{Resource: "services"}
	cms       = schema.GroupResource{Resource: "configmaps"}
	deploys   = schema.GroupResource{Group: "apps", Resource: "deployments"}
	ingresses = schema.GroupResource{Group: "networking.k8s.io", Resource: "ingresses"}
	extIngs   = schema.GroupResource{Group: "example.net", Resource: "ingresses"}
	kServices = schema.GroupResource{Group: "serving.knative.dev", Resource: "services"}
	widgets   = schema.GroupResource{Group: "example.com", Resource: "widgets"}
)

// Cases are the table.
var Cases = []Case{
	{"a bare name is the group discovery resolves it to", []string{"deployments"}, nil, []schema.GroupResource{deploys}},
	{"a name two groups serve is the core group's", []string{"services"}, nil, []schema.GroupResource{services}},
	{"the other group's by its full name", []string{"services.serving.knative.dev"}, nil, []schema.GroupResource{kServices}},
	{"singular, short and capitalised names", []string{"pod", "deploy", "ConfigMaps"}, nil, []schema.GroupResource{pods, cms, deploys}},
	{"a name only other groups serve is the first's in discovery's order", []string{"ingresses"}, nil, []schema.GroupResource{ingresses}},
	{"a custom resource by its plural", []string{"widgets"}, nil, []schema.GroupResource{widgets}},
	{"a group's glob", []string{"*.example.com"}, nil, []schema.GroupResource{widgets}},
	{"a name discovery does not know, kept as written", []string{"gadgets.example.com", "pods"}, nil, []schema.GroupResource{pods}},
	{"everything but one name", []string{"*"}, []string{"ingresses"}, []schema.GroupResource{pods, services, cms, deploys, extIngs, kServices, widgets}},
	{"everything but a group's glob", nil, []string{"*.knative.dev", "*.k8s.io"}, []schema.GroupResource{pods, services, cms, deploys, extIngs, widgets}},
}
