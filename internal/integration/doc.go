// Package integration holds backupkit's tests against a real kube-apiserver and etcd
// (see internal/testcluster): version selection on real discovery, conversion through a
// real CRD conversion webhook, readiness of objects whose status the API server stores, and
// the readiness waiter behind internal/faultproxy (faulted reads, requests hanging in flight).
// It has no code of its own; the tests share one control plane started in TestMain, each
// test working in a namespace of its own. The control plane is testcluster's APIServerOnly
// mode: these readiness tests write the status a controller would through /status, and a
// real controller would overwrite it. The tests against real controllers are in
// internal/integration/full.
package integration
