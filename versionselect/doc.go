// Package versionselect chooses, for each backed-up resource, the API version to restore
// into a target cluster.
//
// It implements the restore-version priority of Velero's EnableAPIGroupVersions design,
// fixed and extended. A backup taken with every served version stores each resource once
// per version; at restore time the target cluster may serve other versions. Choose decides,
// per "<resource>.<group>" key (core group: the bare resource), which version to create and
// which backup directory to read it from.
//
// # The rules
//
//	P0 UserPriority     the first version of the user's list that both clusters serve
//	P1 TargetPreferred  the target's preferred version, if the backup has it
//	P2 SourcePreferred  the source's preferred version, if the target serves it
//	P3 CommonVersion    the best version by Compare that both serve (the true intersection)
//	P4 Conversion       with WithConverter: read a backed-up version, convert it to the
//	                    target's preferred version
//	NoCommonVersion     otherwise: the source's preferred version, as backed up; when the
//	                    backup marks no preferred version, its best version by Compare
//	                    (never an empty version; Explain says so)
//	TargetGroupAbsent   the target lacks the group (e.g. the CRD is not installed yet)
//	NoSourceVersion     the backup names the resource but holds no version of it
//
// Unlike Velero, P3 searches the whole intersection (Velero skips the first version of both
// sorted lists and so misses common versions when a preferred version is not the highest),
// ParsePriorities reports every bad line with its number instead of dropping it at debug
// level, and nothing is mutated: Velero sorts discovery's cached slices in place.
// WithVeleroCompat reproduces Velero v1.18's choices, quirks included, for forks that must
// not change behaviour.
//
// # Pure core, thin edge
//
// Compare, ParsePriorities, Choose and Explain are pure functions, safe for concurrent
// use; Sort sorts the slice it is given, in place, and touches nothing else. Only
// TargetGroups and PrioritiesFromCluster talk to a cluster, through one-method interfaces
// (discovery.ServerGroupsInterface, a ConfigMapsGetter). Choose returns a Choice with its
// Reason; Explain adds the versions seen and every rule tried, for logs and dry runs.
// Choose's cost is linear in the number of backed-up resources and their versions.
package versionselect
