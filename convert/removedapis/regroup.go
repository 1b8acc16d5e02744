package removedapis

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A convert.Registry is keyed by GroupKind and converts between versions of one group, and
// versionselect chooses a version within the group a resource was backed up in, so neither
// can express a move from one group to another. The only such move among the removed
// versions that a restore needs is extensions/v1beta1 Ingress, whose fields are exactly
// networking.k8s.io/v1beta1's (Kubernetes converted both through one internal type).
// Regroup renames its group; the Registry then converts it to networking.k8s.io/v1 like any
// v1beta1 Ingress.
//
// Velero does not back an Ingress up twice: it treats extensions and networking.k8s.io
// ingresses as one resource and backs it up from networking.k8s.io when the source cluster
// serves that group (Kubernetes 1.14 and later), so most backups never need Regroup.

// regroups maps a resource in a removed group/version to its group/version with the same
// fields.
func regroups() map[schema.GroupVersionResource]schema.GroupVersionKind {
	return map[schema.GroupVersionResource]schema.GroupVersionKind{
		{Group: "extensions", Version: "v1beta1", Resource: "ingresses"}: {Group: "networking.k8s.io", Version: "v1beta1", Kind: "Ingress"},
	}
}

// RegroupResource returns the group and version whose fields resource at group/version
// has, when it moved to another group (extensions/v1beta1 ingresses: networking.k8s.io,
// v1beta1); ok is false otherwise.
func RegroupResource(group, version, resource string) (schema.GroupVersion, bool) {
	gvk, ok := regroups()[schema.GroupVersionResource{Group: group, Version: version, Resource: resource}]
	return gvk.GroupVersion(), ok
}

// Regroup returns a copy of obj with apiVersion moved to the group that took its kind
// over (extensions/v1beta1 Ingress: networking.k8s.io/v1beta1), ready for the Registry to
// convert; ok is false, and the result nil, when obj's kind did not move. obj is not
// modified.
func Regroup(obj *unstructured.Unstructured) (*unstructured.Unstructured, bool) {
	gvk := obj.GroupVersionKind()
	for from, to := range regroups() {
		if from.Group != gvk.Group || from.Version != gvk.Version || to.Kind != gvk.Kind {
			continue
		}
		out := obj.DeepCopy()
		out.SetAPIVersion(to.GroupVersion().String())
		return out, true
	}
	return nil, false
}
