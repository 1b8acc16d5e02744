// Package manifest is the graph of what a backup holds and the order to restore it.
//
// A [Manifest] indexes backed-up [Item]s by UID and by identity (group, resource,
// namespace, name; never the version), links them by ownerReferences, Namespaces,
// CustomResourceDefinitions and depends-on annotations, and orders them in waves.
package manifest
