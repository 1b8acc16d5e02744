package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fakeExec records each call as "container: command (timeout)" and answers by the
// command's first word: "fail" exits 1, "err" cannot run, "loud" writes more than the
// output limit, anything else exits 0.
type fakeExec struct{ calls []string }

func (f *fakeExec) Exec(ctx context.Context, _, _, container string, command []string, stdout, _ io.Writer) (int, error) {
	dl, _ := ctx.Deadline()
	f.calls = append(f.calls, fmt.Sprintf("%s: %s (%s)", container, strings.Join(command, " "), time.Until(dl).Round(time.Second)))
	switch command[0] {
	case "fail":
		return 1, nil
	case "err":
		return -1, errors.New("connection refused")
	case "loud":
		_, _ = io.WriteString(stdout, strings.Repeat("x", HookOutputLimit+1))
	}
	return 0, nil
}

func testPod(annotations map[string]string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db", Labels: map[string]string{"app": "db"}, Annotations: annotations},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main"}, {Name: "side"}}},
		Status:     corev1.PodStatus{Phase: phase},
	}
}

const hookSpecYAML = `
resources:
- name: freeze
  includedNamespaces: [shop]
  labelSelector: {matchLabels: {app: db}}
  pre:
  - exec: {command: [fsfreeze, --freeze]}
  - exec: {container: side, command: [sync], timeout: 5s}
  post:
  - exec: {command: [fsfreeze, --unfreeze]}
- name: elsewhere
  includedNamespaces: [blog]
  pre:
  - exec: {command: [never]}
- name: deployments-only
  includedResources: [deployments]
  pre:
  - exec: {command: [never]}
- name: not-labelled
  labelSelector: {matchLabels: {app: web}}
  pre:
  - exec: {command: [never]}
`

// Velero's backup hook cases (internal/hook/item_hook_handler_test.go), as runHooks
// decides and runs them: the calls made and each outcome in short.
func TestRunHooks(t *testing.T) {
	spec, err := ParseHooks([]byte(hookSpecYAML))
	require.NoError(t, err)
	rhs, err := compileHooks(spec, nil)
	require.NoError(t, err)
	failing := func(onError string) *HookSpec {
		return &HookSpec{Resources: []ResourceHookSpec{{Name: "r", PreHooks: []ResourceHook{
			{Exec: &ExecHook{Command: []string{"fail"}, OnError: HookErrorMode(onError)}},
			{Exec: &ExecHook{Command: []string{"after"}}}}}}}
	}
	for _, tc := range []struct {
		name  string
		spec  *HookSpec // nil: hookSpecYAML
		ann   map[string]string
		podPh corev1.PodPhase
		phase HookPhase
		calls []string
		want  []string // Hook, Container, then "ok", "fails", "continues" or "not run"
	}{
		{name: "spec, selected by namespace and labels; default container the first; default timeout 30s", phase: HookPre,
			calls: []string{"main: fsfreeze --freeze (30s)", "side: sync (5s)"}, want: []string{"freeze main ok", "freeze side ok"}},
		{name: "spec post hooks", phase: HookPost, calls: []string{"main: fsfreeze --unfreeze (30s)"}, want: []string{"freeze main ok"}},
		{name: "annotations take precedence over the spec", phase: HookPre,
			ann:   map[string]string{"pre.hook.backup.velero.io/command": `["/bin/sh","-c","echo hi"]`, "pre.hook.backup.velero.io/container": "side", "pre.hook.backup.velero.io/timeout": "2m"},
			calls: []string{"side: /bin/sh -c echo hi (2m0s)"}, want: []string{"<from-annotation> side ok"}},
		{name: "pre annotations leave the post hooks to the spec", phase: HookPost,
			ann:   map[string]string{"pre.hook.backup.velero.io/command": "quiesce"},
			calls: []string{"main: fsfreeze --unfreeze (30s)"}, want: []string{"freeze main ok"}},
		{name: "unprefixed annotations are pre hooks", phase: HookPre,
			ann:   map[string]string{"hook.backup.velero.io/command": "quiesce", "hook.backup.velero.io/timeout": "bad"},
			calls: []string{"main: quiesce (30s)"}, want: []string{"<from-annotation> main ok"}},
		{name: "unprefixed annotations are not post hooks", phase: HookPost,
			ann:   map[string]string{"hook.backup.velero.io/command": "quiesce"},
			calls: []string{"main: fsfreeze --unfreeze (30s)"}, want: []string{"freeze main ok"}},
		{name: "annotation on-error Fail, no such container", phase: HookPost,
			ann:  map[string]string{"post.hook.backup.velero.io/command": "x", "post.hook.backup.velero.io/container": "gone", "post.hook.backup.velero.io/on-error": "Fail"},
			want: []string{"<from-annotation> gone fails"}},
		{name: "an unknown on-error is Continue", phase: HookPost,
			ann:   map[string]string{"post.hook.backup.velero.io/command": "fail", "post.hook.backup.velero.io/on-error": "Stop"},
			calls: []string{"main: fail (30s)"}, want: []string{"<from-annotation> main continues"}},
		{name: "onError Fail stops the phase's other hooks", spec: failing("Fail"), phase: HookPre,
			calls: []string{"main: fail (30s)"}, want: []string{"r main fails", "r main not run"}},
		{name: "onError Continue goes on", spec: failing("Continue"), phase: HookPre,
			calls: []string{"main: fail (30s)", "main: after (30s)"}, want: []string{"r main continues", "r main ok"}},
		{name: "no onError is Continue", spec: failing(""), phase: HookPre,
			calls: []string{"main: fail (30s)", "main: after (30s)"}, want: []string{"r main continues", "r main ok"}},
		{name: "a pod that ended runs none", phase: HookPre, podPh: corev1.PodSucceeded,
			want: []string{"freeze main not run", "freeze side not run"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rhs
			if tc.spec != nil {
				r, err = compileHooks(tc.spec, nil)
				require.NoError(t, err)
			}
			ex := &fakeExec{}
			out := runHooks(context.Background(), ex, r, testPod(tc.ann, tc.podPh), tc.phase)
			require.Equal(t, tc.calls, ex.calls)
			var got []string
			for _, o := range out {
				what := "ok"
				switch {
				case o.NotRun != "":
					what = "not run"
				case o.Fails():
					what = "fails"
				case o.Err != nil:
					what = "continues"
				}
				require.Equal(t, "shop/db", o.Pod)
				require.Equal(t, tc.phase, o.Phase)
				got = append(got, o.Hook+" "+o.Container+" "+what)
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestRunHooksOutcome(t *testing.T) {
	pod := testPod(map[string]string{"pre.hook.backup.velero.io/command": "loud"}, corev1.PodRunning)
	out := runHooks(context.Background(), &fakeExec{}, nil, pod, HookPre)
	require.Len(t, out, 1)
	require.True(t, out[0].Ran)
	require.Len(t, out[0].Stdout, HookOutputLimit)
	require.True(t, out[0].Truncated)

	pod = testPod(map[string]string{"pre.hook.backup.velero.io/command": "fail", "pre.hook.backup.velero.io/on-error": "Fail"}, corev1.PodRunning)
	out = runHooks(context.Background(), &fakeExec{}, nil, pod, HookPre)
	require.Equal(t, 1, out[0].ExitCode)
	require.Equal(t, `pre hook <from-annotation> in pod shop/db container main: ["fail"]: exit code 1`, out[0].String())

	pod = testPod(map[string]string{"pre.hook.backup.velero.io/command": "err"}, corev1.PodRunning)
	out = runHooks(context.Background(), &fakeExec{}, nil, pod, HookPre)
	require.Equal(t, -1, out[0].ExitCode)
	require.ErrorContains(t, out[0].Err, "connection refused")

	pod = testPod(map[string]string{"pre.hook.backup.velero.io/command": "x"}, corev1.PodRunning)
	pod.Spec.Containers = nil
	out = runHooks(context.Background(), &fakeExec{}, nil, pod, HookPre)
	require.ErrorIs(t, out[0].Err, ErrNoContainer)
}
