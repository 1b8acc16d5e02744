package hooks_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/restore/actions"
	"github.com/backupkit/backupkit/restore/hooks"
)

// execSpec is a resource hook named name for the namespaces given (none: all) with the
// exec hooks given.
func execSpec(name string, namespaces []string, execs ...hooks.ExecHook) hooks.ResourceHookSpec {
	s := hooks.ResourceHookSpec{Name: name, IncludedNamespaces: namespaces}
	for i := range execs {
		s.PostHooks = append(s.PostHooks, hooks.ResourceHook{Exec: &execs[i]})
	}
	return s
}

func exec(container string, onError hooks.ErrorMode, waitTimeout time.Duration, command ...string) hooks.ExecHook {
	return hooks.ExecHook{Container: container, Command: command, OnError: onError, WaitTimeout: metav1.Duration{Duration: waitTimeout}}
}

// got is one outcome, as the table holds it.
type got struct {
	hook, container string
	err             error // the sentinel it wraps; nil: exit 0
}

// The exec hooks of a restored Pod, as Velero's restore runs them (the cases of Velero
// v1.18.3's TestWaitExecHandleHooks, TestGroupRestoreExecHooks,
// TestGetPodExecRestoreHookFromAnnotations and TestIsContainerUp): which hooks (the
// annotations' or the spec's), in which container and order, once the container is up,
// within the timeouts; what fails the item.
func TestPostCreateExecHooks(t *testing.T) {
	errBoom := errors.New("boom")
	fooFails := map[string]fakeResult{"/usr/bin/foo": {code: 1, stderr: "no"}}
	c1 := []string{"container1"}
	for _, tc := range []struct {
		name    string
		spec    []hooks.ResourceHookSpec
		pod     *corev1.Pod   // as created
		later   []*corev1.Pod // as read afterwards, in turn; none: pod; a nil: deleted
		results map[string]fakeResult
		opts    []hooks.Option
		runs    []string // what ran, "container: command"
		want    []got
		fails   bool // the item fails
		reads   int  // how many times the Pod was read before the first command ran; 0: not checked
	}{
		{name: "annotation: runs", pod: newPod("default", "my-pod", c1, running("container1"),
			annotated(hooks.ExecContainerAnnotation, "container1", hooks.ExecCommandAnnotation, "/usr/bin/foo")),
			runs: []string{"container1: /usr/bin/foo"}, want: []got{{"<from-annotation>", "container1", nil}}},
		{name: "annotation: fails, on-error Fail", results: fooFails, fails: true, pod: newPod("default", "my-pod", c1, running("container1"),
			annotated(hooks.ExecContainerAnnotation, "container1", hooks.ExecCommandAnnotation, "/usr/bin/foo", hooks.ExecOnErrorAnnotation, "Fail")),
			runs: []string{"container1: /usr/bin/foo"}, want: []got{{"<from-annotation>", "container1", hooks.ErrExitCode}}},
		{name: "annotation: fails, on-error Continue", results: fooFails, pod: newPod("default", "my-pod", c1, running("container1"),
			annotated(hooks.ExecContainerAnnotation, "container1", hooks.ExecCommandAnnotation, "/usr/bin/foo", hooks.ExecOnErrorAnnotation, "Continue")),
			runs: []string{"container1: /usr/bin/foo"}, want: []got{{"<from-annotation>", "container1", hooks.ErrExitCode}}},
		{name: "annotation: fails, on-error neither Continue nor Fail: Continue", results: fooFails, pod: newPod("default", "my-pod", c1, running("container1"),
			annotated(hooks.ExecCommandAnnotation, "/usr/bin/foo", hooks.ExecOnErrorAnnotation, "fail")),
			runs: []string{"container1: /usr/bin/foo"}, want: []got{{"<from-annotation>", "container1", hooks.ErrExitCode}}},
		{name: "annotation: runs once the container runs",
			pod:   newPod("default", "my-pod", c1, annotated(hooks.ExecCommandAnnotation, "/usr/bin/foo")),
			later: []*corev1.Pod{newPod("default", "my-pod", c1, waiting("container1")), newPod("default", "my-pod", c1, running("container1"))},
			reads: 2, runs: []string{"container1: /usr/bin/foo"}, want: []got{{"<from-annotation>", "container1", nil}}},
		{name: "annotation: the first container by default, the command a JSON array",
			pod:  newPod("default", "my-pod", []string{"container1", "container2"}, running("container1", "container2"), annotated(hooks.ExecCommandAnnotation, `["/usr/bin/foo","arg1","arg2"]`)),
			runs: []string{"container1: /usr/bin/foo arg1 arg2"}, want: []got{{"<from-annotation>", "container1", nil}}},
		{name: "annotation: the spec's hooks ignored",
			spec: []hooks.ResourceHookSpec{execSpec("my-hook-1", nil, exec("container1", "", 0, "/usr/bin/bar"))},
			pod:  newPod("default", "my-pod", c1, running("container1"), annotated(hooks.ExecCommandAnnotation, "/usr/bin/foo")),
			runs: []string{"container1: /usr/bin/foo"}, want: []got{{"<from-annotation>", "container1", nil}}},
		{name: "annotation: wait-for-ready: running is not enough",
			pod: newPod("default", "my-pod", c1, running("container1"), annotated(hooks.ExecCommandAnnotation, "/usr/bin/foo", hooks.ExecWaitForReadyAnnotation, "true")),
			later: []*corev1.Pod{newPod("default", "my-pod", c1, running("container1")),
				newPod("default", "my-pod", c1, running("container1+ready"))},
			reads: 2, runs: []string{"container1: /usr/bin/foo"}, want: []got{{"<from-annotation>", "container1", nil}}},
		{name: "annotation: wait-timeout that cannot be read ignored, exec-timeout read",
			pod: newPod("default", "my-pod", c1, annotated(hooks.ExecCommandAnnotation, "/usr/bin/foo", hooks.ExecWaitTimeoutAnnotation, "soon",
				hooks.ExecTimeoutAnnotation, "5ms", hooks.ExecOnErrorAnnotation, "Fail")),
			later:   []*corev1.Pod{newPod("default", "my-pod", c1, waiting("container1")), newPod("default", "my-pod", c1, running("container1"))},
			results: map[string]fakeResult{"/usr/bin/foo": {block: true}}, fails: true,
			runs: []string{"container1: /usr/bin/foo"}, want: []got{{"<from-annotation>", "container1", context.DeadlineExceeded}}},

		{name: "spec: runs", spec: []hooks.ResourceHookSpec{execSpec("my-hook-1", nil, exec("container1", "", 0, "/usr/bin/foo"))},
			pod: newPod("default", "my-pod", c1, running("container1")), runs: []string{"container1: /usr/bin/foo"}, want: []got{{"my-hook-1", "container1", nil}}},
		{name: "spec: the first container by default", spec: []hooks.ResourceHookSpec{execSpec("my-hook-1", nil, exec("", "", 0, "/usr/bin/foo"))},
			pod:  newPod("default", "my-pod", []string{"container1", "container2"}, running("container1", "container2")),
			runs: []string{"container1: /usr/bin/foo"}, want: []got{{"my-hook-1", "container1", nil}}},
		{name: "spec: wait timeout expires, Continue", spec: []hooks.ResourceHookSpec{execSpec("my-hook-1", nil, exec("container1", hooks.ErrorModeContinue, ms, "/usr/bin/foo"))},
			pod: newPod("default", "my-pod", c1, waiting("container1")), want: []got{{"my-hook-1", "container1", hooks.ErrNotRun}}},
		{name: "spec: wait timeout expires, Fail", spec: []hooks.ResourceHookSpec{execSpec("my-hook-1", nil, exec("container1", hooks.ErrorModeFail, ms, "/usr/bin/foo"))},
			pod: newPod("default", "my-pod", c1, waiting("container1")), want: []got{{"my-hook-1", "container1", hooks.ErrNotRun}}, fails: true},
		{name: "spec: the max wait ends first, Fail", spec: []hooks.ResourceHookSpec{execSpec("my-hook-1", nil, exec("container1", hooks.ErrorModeFail, 0, "/usr/bin/foo"))},
			opts: []hooks.Option{hooks.WithMaxWait(5 * ms)},
			pod:  newPod("default", "my-pod", c1, waiting("container1")), want: []got{{"my-hook-1", "container1", hooks.ErrNotRun}}, fails: true},
		{name: "spec: the max wait ends first, Continue", spec: []hooks.ResourceHookSpec{execSpec("my-hook-1", nil, exec("container1", hooks.ErrorModeContinue, 0, "/usr/bin/foo"))},
			opts: []hooks.Option{hooks.WithMaxWait(5 * ms)},
			pod:  newPod("default", "my-pod", c1, waiting("container1")), want: []got{{"my-hook-1", "container1", hooks.ErrNotRun}}},
		{name: "spec: a hook whose wait timeout expired does not run, the next does",
			spec: []hooks.ResourceHookSpec{execSpec("my-hook-1", nil, exec("container1", "", ms, "/usr/bin/foo"), exec("container1", "", time.Minute, "/usr/bin/bar"))},
			pod:  newPod("default", "my-pod", c1, waiting("container1")),
			later: []*corev1.Pod{newPod("default", "my-pod", c1, waiting("container1")), newPod("default", "my-pod", c1, waiting("container1")),
				newPod("default", "my-pod", c1, waiting("container1")), newPod("default", "my-pod", c1, running("container1"))},
			opts: []hooks.Option{hooks.WithPollInterval(2 * ms)},
			runs: []string{"container1: /usr/bin/bar"}, want: []got{{"my-hook-1", "container1", hooks.ErrNotRun}, {"my-hook-1", "container1", nil}}},
		{name: "spec: two containers, each once it runs", spec: []hooks.ResourceHookSpec{execSpec("my-hook-1", nil,
			exec("container2", "", 0, "/usr/bin/bar"), exec("container1", "", 0, "/usr/bin/foo"))},
			pod: newPod("default", "my-pod", []string{"container1", "container2"}, waiting("container1", "container2")),
			later: []*corev1.Pod{newPod("default", "my-pod", []string{"container1", "container2"}, running("container1"), waiting("container2")),
				newPod("default", "my-pod", []string{"container1", "container2"}, running("container1", "container2"))},
			reads: 1, runs: []string{"container1: /usr/bin/foo", "container2: /usr/bin/bar"},
			want: []got{{"my-hook-1", "container1", nil}, {"my-hook-1", "container2", nil}}},
		{name: "spec: several resource hooks, grouped by container in the pod's order, each in the spec's order",
			spec: []hooks.ResourceHookSpec{
				execSpec("hook1", nil, exec("container1", "", 0, "first"), exec("container2", "", 0, "second"), exec("container1", "", 0, "third")),
				execSpec("hook2", nil, exec("container1", "", 0, "fourth")),
			},
			pod:  newPod("default", "my-pod", []string{"container1", "container2"}, running("container2", "container1")),
			runs: []string{"container1: first", "container1: third", "container1: fourth", "container2: second"},
			want: []got{{"hook1", "container1", nil}, {"hook1", "container1", nil}, {"hook2", "container1", nil}, {"hook1", "container2", nil}}},
		{name: "spec: another namespace's", spec: []hooks.ResourceHookSpec{execSpec("my-hook-1", []string{"other"}, exec("container1", "", 0, "/usr/bin/foo"))},
			pod: newPod("default", "my-pod", c1, running("container1"))},
		{name: "spec: init hooks only", spec: []hooks.ResourceHookSpec{specInit("h1", nil, "init1")}, pod: newPod("default", "my-pod", c1, running("container1"))},
		{name: "spec: a container the pod lacks: discarded, even with Fail",
			spec: []hooks.ResourceHookSpec{execSpec("my-hook-1", nil, exec("container9", hooks.ErrorModeFail, 0, "/usr/bin/foo"), exec("container1", "", 0, "/usr/bin/bar"))},
			pod:  newPod("default", "my-pod", c1, running("container1")),
			runs: []string{"container1: /usr/bin/bar"}, want: []got{{"my-hook-1", "container9", hooks.ErrNoContainer}, {"my-hook-1", "container1", nil}}},
		{name: "spec: a Fail stops the pod's other hooks", results: fooFails, fails: true,
			spec: []hooks.ResourceHookSpec{execSpec("my-hook-1", nil, exec("container1", hooks.ErrorModeFail, 0, "/usr/bin/foo"), exec("container1", "", 0, "/usr/bin/bar"), exec("container2", "", 0, "/usr/bin/baz"))},
			pod:  newPod("default", "my-pod", []string{"container1", "container2"}, running("container1", "container2")),
			runs: []string{"container1: /usr/bin/foo"},
			want: []got{{"my-hook-1", "container1", hooks.ErrExitCode}, {"my-hook-1", "container1", hooks.ErrNotRun}, {"my-hook-1", "container2", hooks.ErrNotRun}}},
		{name: "spec: a Continue does not", results: fooFails,
			spec: []hooks.ResourceHookSpec{execSpec("my-hook-1", nil, exec("container1", hooks.ErrorModeContinue, 0, "/usr/bin/foo"), exec("container1", "", 0, "/usr/bin/bar"))},
			pod:  newPod("default", "my-pod", c1, running("container1")),
			runs: []string{"container1: /usr/bin/foo", "container1: /usr/bin/bar"},
			want: []got{{"my-hook-1", "container1", hooks.ErrExitCode}, {"my-hook-1", "container1", nil}}},
		{name: "spec: the exec itself fails", results: map[string]fakeResult{"/usr/bin/foo": {err: errBoom}}, fails: true,
			spec: []hooks.ResourceHookSpec{execSpec("my-hook-1", nil, exec("container1", hooks.ErrorModeFail, 0, "/usr/bin/foo"))},
			pod:  newPod("default", "my-pod", c1, running("container1")),
			runs: []string{"container1: /usr/bin/foo"}, want: []got{{"my-hook-1", "container1", errBoom}}},
		{name: "spec: the pod ends first", fails: true,
			spec:  []hooks.ResourceHookSpec{execSpec("my-hook-1", nil, exec("container1", hooks.ErrorModeFail, 0, "/usr/bin/foo"))},
			pod:   newPod("default", "my-pod", c1, waiting("container1")),
			later: []*corev1.Pod{newPod("default", "my-pod", c1, phase(corev1.PodSucceeded))},
			want:  []got{{"my-hook-1", "container1", hooks.ErrNotRun}}},
		{name: "spec: the pod is deleted first", fails: true,
			spec:  []hooks.ResourceHookSpec{execSpec("my-hook-1", nil, exec("container1", hooks.ErrorModeFail, 0, "/usr/bin/foo"))},
			pod:   newPod("default", "my-pod", c1, waiting("container1")),
			later: []*corev1.Pod{nil},
			want:  []got{{"my-hook-1", "container1", hooks.ErrNotRun}}},
		{name: "spec: by labels", spec: []hooks.ResourceHookSpec{func() hooks.ResourceHookSpec {
			s := execSpec("my-hook-1", nil, exec("container1", "", 0, "/usr/bin/foo"))
			s.LabelSelector = mustSelector(t, "app=db")
			return s
		}()}, pod: newPod("default", "my-pod", c1, running("container1"), labelled("app", "db")),
			runs: []string{"container1: /usr/bin/foo"}, want: []got{{"my-hook-1", "container1", nil}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fe := &fakeExec{pods: tc.later, results: tc.results}
			if len(fe.pods) == 0 {
				fe.pods = []*corev1.Pod{tc.pod}
			}
			var mu sync.Mutex
			var outs []hooks.Outcome
			opts := append([]hooks.Option{hooks.WithPollInterval(ms), hooks.WithOutcomes(func(o hooks.Outcome) {
				mu.Lock()
				defer mu.Unlock()
				outs = append(outs, o)
			})}, tc.opts...)
			a, err := hooks.NewAction(&hooks.Spec{Resources: tc.spec}, fe, opts...)
			require.NoError(t, err)
			detail, err := a.PostCreate(t.Context(), &actions.PostCreateInput{Item: toUnstructured(tc.pod), Resource: schema.GroupResource{Resource: "pods"}})
			require.Equal(t, tc.runs, fe.executed())
			if tc.reads > 0 {
				require.Equal(t, tc.reads, fe.readsAt[0], "reads before the first command")
			}
			var gotOuts []got
			for _, o := range outs {
				g := got{o.Hook, o.Container, nil}
				for _, e := range []error{hooks.ErrExitCode, hooks.ErrNotRun, hooks.ErrNoContainer, errBoom, context.DeadlineExceeded} {
					if errors.Is(o.Err, e) {
						g.err = e
						break
					}
				}
				if o.Err != nil {
					require.NotNil(t, g.err, "an error the table does not know: %v", o.Err)
				}
				gotOuts = append(gotOuts, g)
			}
			require.Equal(t, tc.want, gotOuts)
			if len(tc.want) == 0 {
				require.Empty(t, detail)
			}
			if tc.fails {
				var he *hooks.Error
				require.ErrorAs(t, err, &he)
				require.Equal(t, "default/my-pod", he.Pod)
				require.Len(t, he.Outcomes, len(tc.want))
			} else {
				require.NoError(t, err)
			}
		})
	}
}
