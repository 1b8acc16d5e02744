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
// ParsePriorities reads the user's priorities differently (next section), and nothing is
// mutated: Velero sorts discovery's cached slices in place. WithVeleroCompat reproduces
// Velero v1.18's choices, quirks included, for forks that must not change behaviour; with
// priorities, parse them WithVeleroParsing too.
//
// # Priorities: how ParsePriorities differs from Velero
//
// ParsePriorities reads the restoreResourcesVersionPriority text differently from Velero
// v1.18.3 (parseUserPriorities in pkg/restore/prioritize_group_version.go) in these ways,
// and in no other:
//
//   - Whitespace. Velero deletes only the ASCII space (U+0020). A tab, a carriage return (a
//     text with CRLF line ends) or another Unicode space stays in the resource or version,
//     which then matches nothing: with CRLF, the last version of every line is lost ("v2\r"
//     is not "v2"). ParsePriorities deletes every Unicode space.
//   - Comments. Velero has none: '#' and what follows are part of the text. "pods=v1,v2 #
//     new" gives the versions v1 and "v2#new", which matches nothing; "pods=v1 # v1=GA"
//     is a bad line (two '='); a commented-out "#pods=v1" gives a resource "#pods", which
//     matches nothing; a comment line without '=' is a bad line. ParsePriorities ignores
//     '#' to the end of the line.
//   - A resource on two lines. Velero takes the last line, silently; ParsePriorities keeps
//     the first and reports the later one (ErrDuplicateKey).
//   - Empty and repeated versions. Velero keeps them ("pods=v1,,v1" is v1, "", v1; "pods=,"
//     is a resource with two empty versions); ParsePriorities drops them, and a line left
//     with none is bad (ErrNoVersions). Neither changes a choice: no cluster serves an
//     empty version, and a repeated version is always found at its first place.
//   - Bad lines. Velero logs each at debug level and drops it; ParsePriorities returns a
//     *LineError for each, beside the valid lines.
//   - Nothing valid. Velero has no priorities (a nil map); ParsePriorities returns empty
//     Priorities. Choose treats both alike.
//
// WithVeleroParsing removes every difference but the last two: the Priorities are Velero's
// map, entry for entry, and the errors name each line Velero ignores.
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
