package manifest_test

import (
	"fmt"
	"slices"

	"github.com/backupkit/backupkit/manifest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// item builds an Item as a struct literal; gr is "resource" or "resource.group".
func item(kind, resource, group, ns, name string, owners ...*manifest.Item) *manifest.Item {
	it := &manifest.Item{
		Group: group, Version: "v1", Resource: resource, Kind: kind,
		Namespace: ns, Name: name,
		UID: types.UID(fmt.Sprintf("uid-%s-%s-%s-%s", resource, group, ns, name)),
	}
	for _, o := range owners {
		it.OwnerReferences = append(it.OwnerReferences, ownerRef(o, false))
	}
	return it
}

func ownerRef(o *manifest.Item, controller bool) metav1.OwnerReference {
	apiVersion := o.Version
	if o.Group != "" {
		apiVersion = o.Group + "/" + o.Version
	}
	ref := metav1.OwnerReference{APIVersion: apiVersion, Kind: o.Kind, Name: o.Name, UID: o.UID}
	if controller {
		ref.Controller = &controller
	}
	return ref
}

// names renders waves as item names for compact assertions.
func names(waves [][]*manifest.Item) [][]string {
	out := make([][]string, len(waves))
	for w, wave := range waves {
		out[w] = []string{}
		for _, it := range wave {
			out[w] = append(out[w], it.Name)
		}
	}
	return out
}

func sortedList(s interface{ UnsortedList() []string }) []string {
	l := s.UnsortedList()
	slices.Sort(l)
	return l
}
