// Package originalversion holds backupkit's tests of convert's original-version record
// through a real kube-apiserver (internal/testcluster's APIServerOnly mode): the
// ExternalJob CRD that controller-gen generates (examples/externaljob), three versions,
// served with convert's conversion webhook, objects created at each version, read at
// every version, updated at another, stored and read again. It has no code of its own.
package originalversion
