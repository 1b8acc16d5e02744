// Package layout holds the facts of the Velero backup layout that archive and manifest both
// need, so that each is written once: the directory names and the path of an item. It checks
// nothing; archive.ItemPath, the exported way to build a path, refuses components that could
// escape before it calls ItemPath.
package layout

import "strings"

// The names of the Velero backup layout, format 1.1.0.
const (
	// ResourcesDir is the directory holding one directory per backed-up resource.
	ResourcesDir = "resources"
	// ClusterDir holds the items of a cluster-scoped resource.
	ClusterDir = "cluster"
	// NamespacesDir holds one directory per namespace, each holding that namespace's items.
	NamespacesDir = "namespaces"
	// ItemExt ends the file name of an item: "<name>.json".
	ItemExt = ".json"
)

// ItemPath returns the slash path of an item inside a backup:
//
//	resources/<resource>[.<group>][/<versionDir>]/{namespaces/<namespace>|cluster}/<name>.json
//
// The resource directory is resource, followed by "." and group when group is not empty:
// ("deployments", "apps") and ("deployments.apps", "") give the same path, so a caller
// holding the directory name passes it whole with an empty group. versionDir "" is the legacy
// unversioned path; namespace "" is a cluster-scoped item. The components are written as
// given, unchecked.
func ItemPath(resource, group, versionDir, namespace, name string) string {
	var b strings.Builder
	const fixed = len(ResourcesDir + "/" + "." + "/" + "/" + NamespacesDir + "/" + "/" + ItemExt)
	b.Grow(fixed + len(resource) + len(group) + len(versionDir) + len(namespace) + len(name))
	b.WriteString(ResourcesDir)
	b.WriteByte('/')
	b.WriteString(resource)
	if group != "" {
		b.WriteByte('.')
		b.WriteString(group)
	}
	if versionDir != "" {
		b.WriteByte('/')
		b.WriteString(versionDir)
	}
	if namespace == "" {
		b.WriteString("/" + ClusterDir + "/")
	} else {
		b.WriteString("/" + NamespacesDir + "/")
		b.WriteString(namespace)
		b.WriteByte('/')
	}
	b.WriteString(name)
	b.WriteString(ItemExt)
	return b.String()
}
