package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/backupkit/backupkit/internal/resourcematch/matchtable"
)

func TestFlags(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"help", []string{"--help"}, 0, "Left out by default, as Velero's restore never restores them: nodes, events, "},
		{"unknown flag", []string{"--nope"}, 2, "flag provided but not defined"},
		{"stray argument", []string{"--kubeconfig", "k", "--output", "o", "x"}, 2, "unexpected arguments: [x]"},
		{"no kubeconfig", []string{"--output", "o"}, 2, "--kubeconfig is required"},
		{"no output", []string{"--kubeconfig", "k"}, 2, "--output is required"},
		{"sibling over tarball", []string{"--kubeconfig", "k", "--output", "o", "--manifest-output", "o"}, 2, "--manifest-output must not be --output"},
		{"page size", []string{"--kubeconfig", "k", "--output", "o", "--page-size", "0"}, 2, "--page-size must be at least 1, not 0"},
		{"parallel", []string{"--kubeconfig", "k", "--output", "o", "--parallel", "0"}, 2, "--parallel must be at least 1, not 0"},
		{"retries", []string{"--kubeconfig", "k", "--output", "o", "--retries", "0"}, 2, "--retries must be at least 1, not 0"},
		{"selector", []string{"--kubeconfig", "k", "--output", "o", "--selector", "a in (b"}, 2, "--selector: "},
		{"empty include", []string{"--kubeconfig", "k", "--output", "o", "--include-namespaces", ","}, 2, "must not be empty"},
		{"missing kubeconfig", []string{"--kubeconfig", "/nonexistent/kubeconfig", "--output", "o"}, 1, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			require.Equal(t, tt.code, run(context.Background(), tt.args, &stdout, &stderr), stderr.String())
			require.Contains(t, stderr.String(), tt.stderr)
		})
	}
}

// discoveryFixture is a small cluster's discovery: core, apps (v1), a CRD group serving
// v1 and v2beta1 with v1 preferred, a group whose preferred version lacks one resource,
// events in two groups, nodes, and a subresource and a resource that cannot be listed.
func discoveryFixture() ([]*metav1.APIGroup, []*metav1.APIResourceList) {
	g := func(name, preferred string, versions ...string) *metav1.APIGroup {
		out := &metav1.APIGroup{Name: name, PreferredVersion: metav1.GroupVersionForDiscovery{Version: preferred}}
		for _, v := range versions {
			out.Versions = append(out.Versions, metav1.GroupVersionForDiscovery{Version: v})
		}
		return out
	}
	list := []string{"list", "get", "create", "delete"}
	r := func(name, kind string, namespaced bool, verbs ...string) metav1.APIResource {
		return metav1.APIResource{Name: name, Kind: kind, Namespaced: namespaced, Verbs: verbs}
	}
	groups := []*metav1.APIGroup{g("", "v1", "v1"), g("apps", "v1", "v1"), g("shop.example.com", "v1", "v1", "v2beta1"),
		g("beta.example.com", "v2", "v2", "v1"), g("events.k8s.io", "v1", "v1"), g("apiextensions.k8s.io", "v1", "v1")}
	lists := []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			r("pods", "Pod", true, list...), r("pods/status", "Pod", true, list...), r("bindings", "Binding", true, "create"),
			r("configmaps", "ConfigMap", true, list...), r("namespaces", "Namespace", false, list...),
			r("nodes", "Node", false, list...), r("events", "Event", true, list...), r("persistentvolumes", "PersistentVolume", false, list...)}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{r("deployments", "Deployment", true, list...)}},
		{GroupVersion: "shop.example.com/v2beta1", APIResources: []metav1.APIResource{r("gadgets", "Gadget", true, list...)}},
		{GroupVersion: "shop.example.com/v1", APIResources: []metav1.APIResource{r("gadgets", "Gadget", true, list...)}},
		{GroupVersion: "beta.example.com/v2", APIResources: []metav1.APIResource{r("things", "Thing", true, list...)}},
		{GroupVersion: "beta.example.com/v1", APIResources: []metav1.APIResource{r("things", "Thing", true, list...), r("olds", "Old", true, list...)}},
		{GroupVersion: "events.k8s.io/v1", APIResources: []metav1.APIResource{r("events", "Event", true, list...)}},
		{GroupVersion: "apiextensions.k8s.io/v1", APIResources: []metav1.APIResource{r("customresourcedefinitions", "CustomResourceDefinition", false, list...)}},
	}
	return groups, lists
}

func TestPlanResourcesRefusesABadGlob(t *testing.T) {
	groups, lists := discoveryFixture()
	_, _, err := planResources(groups, lists, filter{includeNamespaces: []string{"*"}, excludeResources: []string{"[a-"}})
	require.ErrorContains(t, err, `--exclude-resources: excluded resource "[a-"`)
}

func TestPlanResources(t *testing.T) {
	all := filter{includeNamespaces: []string{"*"}, includeResources: []string{"*"}}
	tests := []struct {
		name    string
		f       filter
		want    []string // "<dir> <versions>", names when limited
		skipped []string // "<dir>: <reason>"
	}{
		{
			name: "everything",
			f:    all,
			want: []string{"configmaps [v1]", "customresourcedefinitions.apiextensions.k8s.io [v1]", "deployments.apps [v1]",
				"gadgets.shop.example.com [v1 v2beta1]", "namespaces [v1]", "olds.beta.example.com [v1]", "persistentvolumes [v1]",
				"pods [v1]", "things.beta.example.com [v2 v1]"},
			skipped: []string{"events: excluded by default (Velero never restores them)", "events.events.k8s.io: excluded by default (Velero never restores them)",
				"nodes: excluded by default (Velero never restores them)"},
		},
		{
			name: "one namespace: its Namespace, and the CRDs and volumes it uses, deferred",
			f:    filter{includeNamespaces: []string{"shop", "gone"}, excludeNamespaces: []string{"gone"}, includeResources: []string{"*"}},
			want: []string{"configmaps [v1]", "customresourcedefinitions.apiextensions.k8s.io [v1] names=[]", "deployments.apps [v1]",
				"gadgets.shop.example.com [v1 v2beta1]", "namespaces [v1] names=[shop]", "olds.beta.example.com [v1]",
				"persistentvolumes [v1] names=[]", "pods [v1]", "things.beta.example.com [v2 v1]"},
			skipped: []string{"events: excluded by default (Velero never restores them)", "events.events.k8s.io: excluded by default (Velero never restores them)",
				"nodes: excluded by default (Velero never restores them)"},
		},
		{
			name: "named resources, a default exclusion named",
			f:    filter{includeNamespaces: []string{"*"}, includeResources: []string{"events", "deployments.apps", "gadgets"}, excludeResources: []string{"events.events.k8s.io"}},
			want: []string{"deployments.apps [v1]", "events [v1]", "gadgets.shop.example.com [v1 v2beta1]"},
			skipped: []string{"configmaps: not in --include-resources", "customresourcedefinitions.apiextensions.k8s.io: not in --include-resources",
				"events.events.k8s.io: --exclude-resources", "namespaces: not in --include-resources", "nodes: not in --include-resources",
				"olds.beta.example.com: not in --include-resources", "persistentvolumes: not in --include-resources",
				"pods: not in --include-resources", "things.beta.example.com: not in --include-resources"},
		},
		{
			name: "names as Velero resolves them: a singular, a group's prefix, a glob",
			f:    filter{includeNamespaces: []string{"*"}, includeResources: []string{"deployment", "gadgets.shop", "*.beta.example.com"}},
			want: []string{"deployments.apps [v1]", "gadgets.shop.example.com [v1 v2beta1]", "olds.beta.example.com [v1]", "things.beta.example.com [v2 v1]"},
			skipped: []string{"configmaps: not in --include-resources", "customresourcedefinitions.apiextensions.k8s.io: not in --include-resources",
				"events: not in --include-resources", "events.events.k8s.io: not in --include-resources", "namespaces: not in --include-resources",
				"nodes: not in --include-resources", "persistentvolumes: not in --include-resources", "pods: not in --include-resources"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			groups, lists := discoveryFixture()
			plans, skipped, err := planResources(groups, lists, tt.f)
			require.NoError(t, err)
			var got []string
			for _, p := range plans {
				s := p.String()
				if p.Names != nil {
					s += fmt.Sprintf(" names=%v", sortedKeys(p.Names))
				}
				got = append(got, s)
			}
			require.Equal(t, tt.want, got)
			var gotSkipped []string
			for _, s := range skipped {
				gotSkipped = append(gotSkipped, s.Dir+": "+s.Reason)
			}
			require.Equal(t, tt.skipped, gotSkipped)
		})
	}
}

func TestKeep(t *testing.T) {
	some := filter{includeNamespaces: []string{"*"}, excludeNamespaces: []string{"kube-system"}, includeResources: []string{"*"}}
	pods := resourcePlan{Dir: "pods", Resource: "pods", Namespaced: true}
	namespaces := resourcePlan{Dir: "namespaces", Resource: "namespaces"}
	crds := resourcePlan{Dir: crdResource, Resource: "customresourcedefinitions", Names: map[string]bool{"gadgets.shop.example.com": true}}
	tests := []struct {
		name     string
		p        resourcePlan
		ns, item string
		want     bool
	}{
		{"pod in an included namespace", pods, "shop", "web", true},
		{"pod in an excluded namespace", pods, "kube-system", "dns", false},
		{"included Namespace", namespaces, "", "shop", true},
		{"excluded Namespace", namespaces, "", "kube-system", false},
		{"CRD of a custom resource backed up", crds, "", "gadgets.shop.example.com", true},
		{"other CRD", crds, "", "widgets.example.com", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, keep(some, tt.p, tt.ns, tt.item))
		})
	}
}

func TestProgressLine(t *testing.T) {
	tests := []struct {
		name    string
		c       counts
		elapsed time.Duration
		want    string
	}{
		{"start", counts{total: 10}, 0, "backup: 0 objects of ~0 seen so far, 0 files, 0/10 listings, 0 objects/s, unknown time left"},
		{"objects bound", counts{objects: 100, files: 200, expected: 1000, listings: 5, total: 10}, 10 * time.Second,
			"backup: 100 objects of ~1000 seen so far, 200 files, 5/10 listings, 10 objects/s, ~1m30s left"},
		{"listings bound", counts{objects: 100, files: 100, expected: 100, listings: 1, total: 10}, 10 * time.Second,
			"backup: 100 objects of ~100 seen so far, 100 files, 1/10 listings, 10 objects/s, ~1m30s left"},
		{"done", counts{objects: 7, files: 14, expected: 5, listings: 3, total: 3}, 1500 * time.Millisecond,
			"backup: 7 objects of ~7 seen so far, 14 files, 3/3 listings, 5 objects/s, finished in 1.5s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, progressLine(tt.c, tt.elapsed))
		})
	}
}

func TestRetryableAndRefused(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	tests := []struct {
		name               string
		err                error
		retryable, refused bool
	}{
		{"reset", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, true, false},
		{"refused connection", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true, false},
		{"unexpected EOF", fmt.Errorf("reading body: %w", io.ErrUnexpectedEOF), true, false},
		{"503", apierrors.NewServiceUnavailable("busy"), true, false},
		{"500", apierrors.NewInternalError(errors.New("boom")), true, false},
		{"429", apierrors.NewTooManyRequests("slow down", 1), true, false},
		{"504", apierrors.NewTimeoutError("slow", 1), true, false},
		// Missed before the backup took readiness's rule: an HTTP/2 connection lost mid-way.
		{"HTTP/2 connection lost", errors.New("http2: client connection lost"), true, false},
		{"body cut, as client-go says it", errors.New("unexpected error when reading response body. Please retry. Original error: read tcp: connection reset by peer"), true, false},
		{"forbidden", apierrors.NewForbidden(gr, "", errors.New("no")), false, true},
		{"not found", apierrors.NewNotFound(gr, ""), false, true},
		{"expired", apierrors.NewResourceExpired("too old"), false, false},
		{"bad request", apierrors.NewBadRequest("no"), false, false},
		{"the backup's context cancelled", &url.Error{Op: "Get", URL: "https://x", Err: context.Canceled}, false, false},
		{"the backup's deadline", &url.Error{Op: "Get", URL: "https://x", Err: context.DeadlineExceeded}, false, false},
		{"GOAWAY", errors.New(`http2: server sent GOAWAY and closed the connection; LastStreamID=1, ErrCode=NO_ERROR, debug=""`), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.retryable, retryable(tt.err), "retryable")
			require.Equal(t, tt.refused, refused(tt.err), "refused")
		})
	}
}

// TestRetry: retryable errors are retried with the backoff's delays until it runs out;
// others are returned at once.
func TestRetry(t *testing.T) {
	tests := []struct {
		name   string
		errs   []error // what the calls return, in order; then success
		steps  int
		calls  int
		sleeps []time.Duration
		err    bool
	}{
		{"first try", nil, 3, 1, nil, false},
		{"two resets", []error{io.ErrUnexpectedEOF, io.ErrUnexpectedEOF}, 3, 3, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, false},
		{"runs out", []error{io.ErrUnexpectedEOF, io.ErrUnexpectedEOF, io.ErrUnexpectedEOF}, 3, 3, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, true},
		{"not retryable", []error{apierrors.NewBadRequest("no")}, 3, 1, nil, true},
		{"Retry-After honoured", []error{apierrors.NewTooManyRequests("slow down", 2), io.ErrUnexpectedEOF}, 3, 3, []time.Duration{2 * time.Second, 200 * time.Millisecond}, false},
		{"ctx ended: not retried", []error{context.Canceled}, 3, 1, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var slept []time.Duration
			b := &backupper{backoff: wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Steps: tt.steps},
				sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }}
			calls := 0
			_, err := b.retry(context.Background(), func() (*unstructured.UnstructuredList, error) {
				calls++
				if calls <= len(tt.errs) {
					return nil, tt.errs[calls-1]
				}
				return &unstructured.UnstructuredList{}, nil
			})
			require.Equal(t, tt.err, err != nil, "%v", err)
			require.Equal(t, tt.calls, calls)
			require.Equal(t, tt.sleeps, slept)
		})
	}
}

// The backup selects resources as the restore's filter and the item actions' selectors
// do (the shared table, internal/resourcematch/matchtable): as Velero resolves them.
func TestPlanResourcesAsVelero(t *testing.T) {
	var groups []*metav1.APIGroup
	seen := map[string]bool{}
	for _, r := range matchtable.Resources {
		if !seen[r.Group] {
			seen[r.Group] = true
			v := metav1.GroupVersionForDiscovery{GroupVersion: schema.GroupVersion{Group: r.Group, Version: r.Version}.String(), Version: r.Version}
			groups = append(groups, &metav1.APIGroup{Name: r.Group, Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v})
		}
	}
	for _, tc := range matchtable.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			plans, _, err := planResources(groups, matchtable.Served(), filter{includeNamespaces: []string{"*"}, includeResources: tc.Included, excludeResources: tc.Excluded})
			require.NoError(t, err)
			var got []schema.GroupResource
			for _, p := range plans {
				got = append(got, schema.GroupResource{Group: p.Group, Resource: p.Resource})
			}
			require.ElementsMatch(t, tc.Want, got)
		})
	}
}
