package restore

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
)

// clusterMade are the objects kube-controller-manager makes in every new namespace: the
// ServiceAccount "default" (its serviceaccount controller) and the ConfigMap
// "kube-root-ca.crt" (its root-ca-cert-publisher). A real run creates the namespace, the
// controllers make these in it, and the restore's create then finds them there.
var clusterMade = [...]struct{ resource, name string }{
	{"serviceaccounts", "default"},
	{"configmaps", "kube-root-ca.crt"},
}

// clusterMakes says, for each of clusterMade, whether the target's controllers make it:
// asked once per run, the first time a dry run needs to know.
type clusterMakes struct {
	once  [len(clusterMade)]sync.Once
	makes [len(clusterMade)]bool
}

// madeByCluster reports whether item it, in a namespace the dry run would create, is one
// of clusterMade that the target's controllers make: the target's namespace "default",
// which the API server makes, holds that object (one read, retried when it fails
// transiently). When it does not, or the read fails (forbidden, say), the dry run predicts
// the object created, as a real run into a target without those controllers creates it.
func (r *restorer) madeByCluster(ctx context.Context, it PlanItem) bool {
	if it.group() != "" || it.version() != "v1" {
		return false
	}
	for k, m := range clusterMade {
		if it.resource() != m.resource || it.name() != m.name {
			continue
		}
		r.clusterMakes.once[k].Do(func() {
			ri := r.c.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: m.resource}).Namespace(metav1.NamespaceDefault)
			_, err := r.retry(ctx, func() error {
				_, err := ri.Get(ctx, m.name, metav1.GetOptions{})
				return err
			})
			r.clusterMakes.makes[k] = err == nil
		})
		return r.clusterMakes.makes[k]
	}
	return false
}

// How long, and how often, a real run looks for an object of clusterMade in a namespace it
// created before it creates the object itself (awaitClusterMade).
const (
	clusterMadeWait = 5 * time.Second
	clusterMadePoll = 100 * time.Millisecond
)

// awaitClusterMade, in a real run, waits for item it, one of clusterMade that the
// target's controllers make (madeByCluster) in a namespace this run created, to be made
// by them (reading it through ri every clusterMadePoll, for at most clusterMadeWait), so
// that the create then finds it there, as the dry run predicts, rather than racing the
// controllers to make it. It returns at once for any other item or in a dry run.
func (r *restorer) awaitClusterMade(ctx context.Context, it PlanItem, ri dynamic.ResourceInterface) {
	if r.cfg.dryRun || !r.createdNamespace(it.namespace()) || !r.madeByCluster(ctx, it) {
		return
	}
	_ = wait.PollUntilContextTimeout(ctx, clusterMadePoll, clusterMadeWait, true, func(ctx context.Context) (bool, error) {
		r.requests.Add(1)
		_, err := ri.Get(ctx, it.name(), metav1.GetOptions{})
		return err == nil, nil // not there yet, or a read failing: the create says what holds
	})
}

// createdNamespace reports whether this run created namespace ns (not "").
func (r *restorer) createdNamespace(ns string) bool {
	if ns == "" {
		return false
	}
	if r.newNamespaces[ns] {
		return true
	}
	i, ok := r.number(r.nsItems[ns])
	return ok && r.states[i].decided.Load() && results[r.states[i].result] == ResultCreated
}
