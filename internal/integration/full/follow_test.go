package full_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/internal/testcluster"
	"github.com/backupkit/backupkit/readiness"
)

// liveCase is one object a test creates and follows: its resource, whether it is
// namespaced, the object by name, what it needs first, the controller's verdict, and what
// the test expects of Compute at the end (the fields a test does not use stay zero).
type liveCase struct {
	name       string
	gvr        schema.GroupVersionResource
	namespaced bool
	obj        func(name string) *unstructured.Unstructured
	// before, if set, creates what the object needs first, in namespace ns.
	before     func(t *testing.T, ns, name string)
	verdict    func(*unstructured.Unstructured) verdict
	wantLast   readiness.Status
	wantReason readiness.Reason
}

// verdict is what the controller that owns a kind's status says of one version of an
// object, in its own terms (a Deployment's rollout complete, a Job's Complete condition...).
type verdict int

const (
	working verdict = iota // neither of the two below
	done                   // the controller's own signal of success
	failing                // the controller's own signal of failure
)

func (v verdict) String() string { return [...]string{"working", "done", "failing"}[v] }

// sample is one version of the followed object: what Compute said of it and what the
// controller's signal said.
type sample struct {
	resourceVersion string
	generation      int64
	result          readiness.Result
	verdict         verdict
	status          string // the object's status, as JSON, for messages
}

// agrees reports whether Compute's status matches the controller's verdict: Current exactly
// when done, Failed exactly when failing.
func (s sample) agrees() bool {
	return (s.result.Status == readiness.Current) == (s.verdict == done) &&
		(s.result.Status == readiness.Failed) == (s.verdict == failing)
}

func (s sample) String() string {
	return fmt.Sprintf("rv %s generation %d: Compute %s/%s (%s), controller %s; status %s",
		s.resourceVersion, s.generation, s.result.Status, s.result.Reason, s.result.Message, s.verdict, s.status)
}

// follow watches one object, from before act runs (act creates or changes it), computing
// its readiness on every version the API server sends, until a version's controller verdict
// is until, and returns the samples in order. It fails t when Compute disagrees with the
// controller on any version (naming every such version), or when the controller does not
// reach until within testcluster.DefaultWaitTimeout (naming the object and its last status).
func follow(t *testing.T, c *testcluster.Cluster, gvr schema.GroupVersionResource, namespace, name string,
	controller func(*unstructured.Unstructured) verdict, until verdict, act func()) []sample {
	t.Helper()
	samples := observe(t, c, gvr, namespace, name, controller, func(s sample) bool { return s.verdict == until }, act, 0)
	requireAgreement(t, gvr, namespace, name, samples)
	return samples
}

// requireAgreement fails t naming every sample on which Compute disagrees with the
// controller.
func requireAgreement(t *testing.T, gvr schema.GroupVersionResource, namespace, name string, samples []sample) {
	t.Helper()
	var disagree []string
	for _, s := range samples {
		if !s.agrees() {
			disagree = append(disagree, s.String())
		}
	}
	require.Empty(t, disagree, "%s %s/%s: Compute disagrees with the controller on %d of %d versions:\n%s",
		gvr.Resource, namespace, name, len(disagree), len(samples), strings.Join(disagree, "\n"))
}

// observe is follow without the agreement check: it samples every version until stop holds
// for one (and returns the samples with that one last), with Compute given opts. The
// object's deletion ends the observation with a last sample, NotFound and working. With a
// window above 0 the observation ends after it too; otherwise it fails t at
// testcluster.DefaultWaitTimeout.
func observe(t *testing.T, c *testcluster.Cluster, gvr schema.GroupVersionResource, namespace, name string,
	controller func(*unstructured.Unstructured) verdict, stop func(sample) bool, act func(), window time.Duration,
	opts ...readiness.ComputeOption) []sample {
	t.Helper()
	ri := dynamicClient(t, c).Resource(gvr).Namespace(namespace)
	limit := testcluster.DefaultWaitTimeout
	if window > 0 {
		limit = window
	}
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	selector := fields.OneTermEqualSelector("metadata.name", name).String()

	var samples []sample
	seen := map[string]bool{}
	record := func(u *unstructured.Unstructured) bool {
		if seen[u.GetResourceVersion()] {
			return false
		}
		seen[u.GetResourceVersion()] = true
		status, _ := json.Marshal(u.Object["status"])
		s := sample{resourceVersion: u.GetResourceVersion(), generation: u.GetGeneration(), result: readiness.Compute(u, opts...), verdict: controller(u), status: string(status)}
		samples = append(samples, s)
		return stop(s)
	}
	list := func() (rv string, finished bool) {
		l, err := ri.List(ctx, metav1.ListOptions{FieldSelector: selector})
		require.NoError(t, err, "list %s", name)
		for i := range l.Items {
			if record(&l.Items[i]) {
				return "", true
			}
		}
		return l.GetResourceVersion(), false
	}

	rv, _ := list()
	w, err := ri.Watch(ctx, metav1.ListOptions{FieldSelector: selector, ResourceVersion: rv})
	require.NoError(t, err)
	act()
	finished := false
	for !finished {
		select {
		case ev, ok := <-w.ResultChan():
			switch {
			case !ok || ev.Type == watch.Error:
				// The watch ended (a timeout, a compaction): list again and watch on.
				w.Stop()
				if ctx.Err() != nil {
					continue
				}
				if rv, finished = list(); !finished {
					w, err = ri.Watch(ctx, metav1.ListOptions{FieldSelector: selector, ResourceVersion: rv})
					require.NoError(t, err)
				}
			case ev.Type == watch.Added || ev.Type == watch.Modified:
				finished = record(ev.Object.(*unstructured.Unstructured))
			case ev.Type == watch.Deleted:
				samples = append(samples, sample{resourceVersion: "deleted", result: readiness.Result{Status: readiness.NotFound}, verdict: working, status: "gone"})
				finished = true
			}
		case <-ctx.Done():
			if window > 0 && t.Context().Err() == nil {
				w.Stop()
				return samples
			}
			last := "none seen"
			if len(samples) > 0 {
				last = samples[len(samples)-1].String()
			}
			t.Fatalf("%s %s/%s: not done within %v; last version: %s",
				gvr.Resource, namespace, name, testcluster.DefaultWaitTimeout, last)
		}
	}
	w.Stop()
	return samples
}

// statuses returns the distinct Compute statuses of samples, in the order first seen.
func statuses(samples []sample) []readiness.Status {
	var out []readiness.Status
	for _, s := range samples {
		if len(out) == 0 || out[len(out)-1] != s.result.Status {
			out = append(out, s.result.Status)
		}
	}
	return out
}

// dynamicClient is an admin client of c.
func dynamicClient(t *testing.T, c *testcluster.Cluster) dynamic.Interface {
	t.Helper()
	client, err := dynamic.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	return client
}

// create creates u in namespace (cluster-scoped when namespace is "").
func create(t *testing.T, c *testcluster.Cluster, gvr schema.GroupVersionResource, namespace string, u *unstructured.Unstructured) {
	t.Helper()
	_, err := dynamicClient(t, c).Resource(gvr).Namespace(namespace).Create(t.Context(), u, metav1.CreateOptions{})
	require.NoError(t, err, "create %s %s", gvr.Resource, u.GetName())
}

// patch applies a JSON merge patch to an object.
func patch(t *testing.T, c *testcluster.Cluster, gvr schema.GroupVersionResource, namespace, name, mergePatch string) {
	t.Helper()
	_, err := dynamicClient(t, c).Resource(gvr).Namespace(namespace).Patch(t.Context(), name, "application/merge-patch+json", []byte(mergePatch), metav1.PatchOptions{})
	require.NoError(t, err, "patch %s %s", gvr.Resource, name)
}

// randomSuffix is 6 random lowercase hex digits.
func randomSuffix(t *testing.T) string {
	b := make([]byte, 3)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}

// namespaceFor is a fresh namespace for t's namespaced objects, or "" for cluster-scoped ones.
func namespaceFor(t *testing.T, c *testcluster.Cluster, namespaced bool) string {
	if !namespaced {
		return ""
	}
	return c.Namespace(t)
}
