package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/internal/testcluster"
	"github.com/backupkit/backupkit/restore/hooks"
)

// TestLiveHooks restores Pods with restore hooks into the real API server: the init
// containers of the annotations and of --hooks (chosen by its label selector) are in the
// created Pods, before their own; an exec hook with on-error Fail whose Pod never runs
// (it cannot be scheduled) is not run once its wait timeout ends, and fails its item,
// which stays created; an exec hook for a container the Pod lacks is discarded, as Velero
// does. No hook here reaches a running container (TestLiveExecHooks runs commands).
func TestLiveHooks(t *testing.T) {
	c := env.Cluster(t)
	cfg := c.RESTConfig()
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	ns := fmt.Sprintf("hooks-live-%d", os.Getpid())
	t.Cleanup(func() { _ = client.Resource(gvrNamespaces).Delete(t.Context(), ns, metav1.DeleteOptions{}) })

	pod := func(name string, labels, annotations map[string]string, unschedulable bool) []byte {
		p := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels, Annotations: annotations},
			Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				InitContainers: []corev1.Container{{Name: "own-init", Image: "busybox"}},
				Containers:     []corev1.Container{{Name: "app", Image: "registry.invalid/app:1"}}}}
		p.UID = types.UID("uid-" + name)
		if unschedulable {
			p.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": "no-such-node"}
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p)
		require.NoError(t, err)
		b, err := json.Marshal(m)
		require.NoError(t, err)
		return b
	}
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	require.NoError(t, w.SetPreferred("pods", "v1"))
	for name, b := range map[string][]byte{
		"annotated": pod("annotated", nil, map[string]string{hooks.InitImageAnnotation: "busybox", hooks.InitNameAnnotation: "from-annotation",
			hooks.InitCommandAnnotation: `["sh","-c","echo restored"]`}, true),
		"db":    pod("db", map[string]string{"app": "db"}, nil, true),
		"web":   pod("web", map[string]string{"app": "web"}, nil, true),
		"never": pod("never", nil, map[string]string{hooks.ExecCommandAnnotation: "true", hooks.ExecOnErrorAnnotation: "Fail", hooks.ExecWaitTimeoutAnnotation: "2s"}, true),
		"lacks": pod("lacks", nil, map[string]string{hooks.ExecCommandAnnotation: "true", hooks.ExecContainerAnnotation: "sidecar", hooks.ExecOnErrorAnnotation: "Fail"}, true),
	} {
		require.NoError(t, w.Add("pods", "v1", ns, name, b))
	}
	require.NoError(t, w.Close())
	dir := t.TempDir()
	tarball := filepath.Join(dir, "backup.tar.gz")
	require.NoError(t, os.WriteFile(tarball, buf.Bytes(), 0o600))
	spec := filepath.Join(dir, "hooks.yaml")
	require.NoError(t, os.WriteFile(spec, []byte(`resources:
- name: db-init
  includedNamespaces: [`+ns+`]
  labelSelector: {matchLabels: {app: db}}
  postHooks:
  - init:
      initContainers:
      - {name: spec-init-1, image: busybox, command: [sh, -c, "echo 1"]}
      - {name: spec-init-2, image: busybox, command: [sh, -c, "echo 2"]}
`), 0o600))

	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"-o", "json", "--kubeconfig", writeKubeconfig(t, cfg), "--backup", tarball, "--hooks", spec}, &stdout, &stderr)
	require.Equal(t, 1, code, "one item fails: stderr:\n%s", stderr.String())
	var rep appReport
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	results := map[string]string{}
	details := map[string]string{}
	for _, it := range rep.Items {
		results[it.Item], details[it.Item] = it.Result, it.Detail
	}
	item := func(name string) string { return "resources/pods/namespaces/" + ns + "/" + name + ".json" }
	require.Equal(t, map[string]string{item("annotated"): "created", item("db"): "created", item("web"): "created",
		item("never"): "failed", item("lacks"): "created"}, results, "details: %v", details)
	require.Equal(t, `backupkit.io/restore-hooks: exec hook <from-annotation> (annotation) in container app: ["true"]: `+
		`hooks: not run: waiting for the containers: context deadline exceeded`, details[item("never")])
	require.Equal(t, `backupkit.io/restore-hooks: exec hook <from-annotation> (annotation) in container sidecar: ["true"]: hooks: no such container: sidecar`,
		details[item("lacks")])

	inits := func(name string) []string {
		u, err := client.Resource(podsGVR).Namespace(ns).Get(t.Context(), name, metav1.GetOptions{})
		require.NoError(t, err, "the pod %s is in the cluster", name)
		var p corev1.Pod
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &p))
		var out []string
		for _, c := range p.Spec.InitContainers {
			out = append(out, c.Name)
		}
		return out
	}
	require.Equal(t, []string{"from-annotation", "own-init"}, inits("annotated"))
	require.Equal(t, []string{"spec-init-1", "spec-init-2", "own-init"}, inits("db"))
	require.Equal(t, []string{"own-init"}, inits("web"), "the spec's label selector does not select it")
	require.Equal(t, []string{"own-init"}, inits("never"), "failed by its hook, still created")
}

// TestLiveExecHooks restores Pods with exec hooks into testcluster.ExecNamespace, whose
// commands kwok runs on this machine: the hook's command runs once the Pod is Running, and
// its outcome (exit 0 and its stdout) is the item's detail; a command that exits with 3,
// with on-error Fail, fails its item, which stays created. kwok v0.8.0 does not pass the
// exit code on as one (see internal/testcluster's TestFullModeExec): the outcome is the
// exec's error, which names the exit status, not ErrExitCode.
func TestLiveExecHooks(t *testing.T) {
	c := env.Cluster(t)
	cfg := c.RESTConfig()
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	ns := testcluster.ExecNamespace

	pod := func(name string, annotations map[string]string) []byte {
		p := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: annotations},
			Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: "app", Image: "registry.invalid/app:1"}}}}
		p.UID = types.UID("uid-" + name)
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p)
		require.NoError(t, err)
		b, err := json.Marshal(m)
		require.NoError(t, err)
		return b
	}
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	require.NoError(t, w.SetPreferred("pods", "v1"))
	for name, b := range map[string][]byte{
		"exec-hello": pod("exec-hello", map[string]string{hooks.ExecCommandAnnotation: `["sh","-c","echo hello"]`}),
		"exec-fails": pod("exec-fails", map[string]string{hooks.ExecCommandAnnotation: `["sh","-c","echo failing; exit 3"]`,
			hooks.ExecOnErrorAnnotation: "Fail"}),
	} {
		require.NoError(t, w.Add("pods", "v1", ns, name, b))
		t.Cleanup(func() {
			_ = client.Resource(podsGVR).Namespace(ns).Delete(context.Background(), name, metav1.DeleteOptions{})
		})
	}
	require.NoError(t, w.Close())
	tarball := filepath.Join(t.TempDir(), "backup.tar.gz")
	require.NoError(t, os.WriteFile(tarball, buf.Bytes(), 0o600))

	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"-o", "json", "--kubeconfig", writeKubeconfig(t, cfg), "--backup", tarball}, &stdout, &stderr)
	require.Equal(t, 1, code, "one item fails: stderr:\n%s", stderr.String())
	var rep appReport
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	results := map[string]string{}
	details := map[string]string{}
	for _, it := range rep.Items {
		results[it.Item], details[it.Item] = it.Result, it.Detail
	}
	item := func(name string) string { return "resources/pods/namespaces/" + ns + "/" + name + ".json" }
	require.Equal(t, map[string]string{item("exec-hello"): "created", item("exec-fails"): "failed"}, results, "details: %v", details)
	require.Equal(t, `backupkit.io/restore-hooks: exec hook <from-annotation> (annotation) in container app: ["sh" "-c" "echo hello"]: exit 0; stdout "hello\n"`,
		details[item("exec-hello")])
	require.Equal(t, `backupkit.io/restore-hooks: exec hook <from-annotation> (annotation) in container app: ["sh" "-c" "echo failing; exit 3"]: `+
		`podexec: exec in `+ns+`/exec-fails container app: Internal error occurred: Internal error occurred: error executing command in container: `+
		`cmd wait: sh -c echo failing; exit 3: exit status 3; stdout "failing\n"`, details[item("exec-fails")])
	_, err = client.Resource(podsGVR).Namespace(ns).Get(t.Context(), "exec-fails", metav1.GetOptions{})
	require.NoError(t, err, "failed by its hook, still created")
}
