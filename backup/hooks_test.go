package backup_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backup"
)

// callLog is the one record of what happened, in order: exec calls and the first write
// to the backup's bytes.
type callLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *callLog) add(s string) { l.mu.Lock(); l.calls = append(l.calls, s); l.mu.Unlock() }

// logExec logs "exec <pod>: <command>" and fails a command named "fail".
type logExec struct{ log *callLog }

func (e logExec) Exec(_ context.Context, _, pod, _ string, command []string, _, _ io.Writer) (int, error) {
	e.log.add("exec " + pod + ": " + strings.Join(command, " "))
	if command[0] == "fail" {
		return 1, nil
	}
	return 0, nil
}

// firstWrite logs the first write to the tarball's bytes: the archive writer starts its
// gzip stream when the first item is added, so that write is the first Pod's Add. It
// fails every write when fail is set.
type firstWrite struct {
	log   *callLog
	buf   bytes.Buffer
	wrote bool
	fail  bool
}

func (w *firstWrite) Write(p []byte) (int, error) {
	if !w.wrote {
		w.wrote = true
		w.log.add("write")
	}
	if w.fail {
		return 0, errors.New("disk full")
	}
	return w.buf.Write(p)
}

// podCluster serves Pods only: a and b in namespace shop, each with one container.
func podCluster(annotations map[string]map[string]string) backup.Cluster {
	disc := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "pods", Kind: "Pod", Namespaced: true, Verbs: []string{"list", "get"}}}},
	}}}
	var pods []runtime.Object
	for _, name := range []string{"a", "b"} {
		u := obj("v1", "Pod", "shop", name).(*unstructured.Unstructured)
		u.SetAnnotations(annotations[name])
		_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"name": "main"}}, "spec", "containers")
		pods = append(pods, u)
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{{Version: "v1", Resource: "pods"}: "PodList"}, pods...)
	return backup.Cluster{Discovery: disc, Dynamic: dyn}
}

// Run runs each Pod's pre hooks before it is written and its post hooks after, also when
// writing it failed; a failing pre hook with onError Fail leaves the Pod out.
func TestRunHooksAroundPods(t *testing.T) {
	spec, err := backup.ParseHooks([]byte(`{resources: [{name: quiesce, pre: [{exec: {command: [freeze]}}], post: [{exec: {command: [thaw]}}]}]}`))
	require.NoError(t, err)
	failA := map[string]map[string]string{"a": {"pre.hook.backup.velero.io/command": "fail", "pre.hook.backup.velero.io/on-error": "Fail"}}
	for _, tc := range []struct {
		name      string
		ann       map[string]map[string]string
		failWrite bool
		calls     []string
		err       string
		pods      int      // Objects["pods"]
		failures  []string // HookFailures, as Hook/Pod/Phase
	}{
		{name: "pre, write, post", calls: []string{"exec a: freeze", "write", "exec a: thaw", "exec b: freeze", "exec b: thaw"}, pods: 2},
		{name: "post hooks after a failed write", failWrite: true, calls: []string{"exec a: freeze", "write", "exec a: thaw"}, err: "disk full"},
		{name: "a failed pre hook with onError Fail leaves the pod out, without post hooks", ann: failA,
			calls: []string{"exec a: fail", "exec b: freeze", "write", "exec b: thaw"}, pods: 1, failures: []string{"<from-annotation> shop/a pre"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := backup.NewPlan(t.Context(), podCluster(tc.ann))
			require.NoError(t, err)
			log := &callLog{}
			out := &firstWrite{log: log, fail: tc.failWrite}
			var events []string
			sum, err := backup.Run(t.Context(), plan, archive.NewWriter(out), backup.WithPageSize(1),
				backup.WithHooks(spec, logExec{log}), backup.WithProgress(func(e backup.Event) {
					if e.Type == backup.EventHook {
						events = append(events, e.Hook.Pod+" "+e.Hook.Hook)
					}
				}))
			require.Equal(t, tc.calls, log.calls)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.pods, sum.Objects["pods"])
			var failures []string
			for _, o := range sum.HookFailures {
				failures = append(failures, o.Hook+" "+o.Pod+" "+string(o.Phase))
			}
			require.Equal(t, tc.failures, failures)
			require.Equal(t, len(tc.failures) > 0, sum.Failed())
			require.Len(t, sum.Hooks, len(tc.calls)-1)
			require.Len(t, events, len(sum.Hooks))
			idx, err := archive.Scan(t.Context(), &out.buf, archive.WithManifest())
			require.NoError(t, err)
			require.Equal(t, tc.pods, idx.Manifest.Len())
		})
	}
}

func TestRunHooksRefuses(t *testing.T) {
	plan, err := backup.NewPlan(t.Context(), podCluster(nil))
	require.NoError(t, err)
	_, err = backup.Run(t.Context(), plan, archive.NewWriter(io.Discard), backup.WithHooks(nil, nil))
	require.ErrorContains(t, err, "backup: WithHooks without an executor")
	bad := &backup.HookSpec{Resources: []backup.ResourceHookSpec{{Name: "x", IncludedResources: []string{"[a-"}}}}
	_, err = backup.Run(t.Context(), plan, archive.NewWriter(io.Discard), backup.WithHooks(bad, logExec{&callLog{}}))
	require.ErrorIs(t, err, backup.ErrHooks)
}
