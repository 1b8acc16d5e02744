// Package restore is the restore engine a fork of Velero or another backup tool imports:
// it plans the restore of a Velero-layout backup into a target cluster, changes each item
// with [ItemAction]s, orders the items so that nothing is created before what it needs,
// and creates them on manifest's dependency-gated walk.
package restore
