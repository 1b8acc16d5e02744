// Package full holds backupkit's tests against the Full test cluster (internal/testcluster's
// Full mode: kube-controller-manager, kube-scheduler and kwok's simulated Nodes beside
// kube-apiserver and etcd): readiness.Compute compared, version by version, with the signal
// of the controller that owns each kind's status. It has no code of its own.
package full
