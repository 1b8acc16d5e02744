package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/backupkit/backupkit/internal/testcluster"
)

// TestLiveResourceModifiersImage backs up a Deployment with examples/backup, deletes it,
// and restores it with --resource-modifiers mapping its image to another registry, as a
// ConfigMap manifest of Velero's form holding a JSON Patch: the restored Deployment rolls
// out, and every one of its Pods runs the new image.
func TestLiveResourceModifiersImage(t *testing.T) {
	c := env.Cluster(t)
	cfg := c.RESTConfig()
	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	kubeconfig := writeKubeconfig(t, cfg)
	began := time.Now()
	phase := func(what string) { t.Logf("%6.1fs %s", time.Since(began).Seconds(), what) }

	backupBin := buildBackupProgram(t)
	require.NotEmpty(t, backupBin)

	// Only the namespace and the Deployment carry the backup's label: the Pods and the
	// ReplicaSet the restored Deployment runs are all new.
	const labelValue = "resource-modifiers"
	ns := labelledNamespace(t, c, client, "mods-", labelValue)
	deploy := yamlObjectLive(t, fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: %s
  labels: {%s: %s}
spec:
  replicas: 2
  selector:
    matchLabels: {app: mods-web}
  template:
    metadata:
      labels: {app: mods-web}
    spec:
      containers:
      - name: web
        image: registry.invalid/web:1
`, ns, appLabel, labelValue))
	_, err = client.Resource(deploymentsGVR).Namespace(ns).Create(t.Context(), deploy, metav1.CreateOptions{})
	require.NoError(t, err)
	c.WaitFor(t, deploymentsGVR, ns, "web", testcluster.DefaultWaitTimeout, "available", appCurrent)
	phase("deployment running")

	tarball := filepath.Join(t.TempDir(), "backup.tar.gz")
	backup := exec.CommandContext(t.Context(), backupBin, "--kubeconfig", kubeconfig, "--output", tarball,
		"--include-namespaces", ns, "--selector", appLabel+"="+labelValue)
	var backupOut, backupErr bytes.Buffer
	backup.Stdout, backup.Stderr = &backupOut, &backupErr
	require.NoError(t, backup.Run(), "backup:\n%s\n%s", backupOut.String(), backupErr.String())
	require.NoError(t, client.Resource(gvrNamespaces).Delete(t.Context(), ns, metav1.DeleteOptions{}))
	appWaitGone(t, client.Resource(gvrNamespaces), ns)
	phase("backed up and deleted")

	rules := filepath.Join(t.TempDir(), "modifiers.yaml")
	require.NoError(t, os.WriteFile(rules, []byte(`apiVersion: v1
kind: ConfigMap
metadata: {name: image-mapping, namespace: velero}
data:
  rules.yaml: |
    version: v1
    resourceModifierRules:
    - conditions:
        groupResource: deployments.apps
        resourceNameRegex: "^web$"
        matches:
        - {path: /spec/template/spec/containers/0/image, value: "registry.invalid/web:1"}
      patches:
      - operation: replace
        path: /spec/template/spec/containers/0/image
        value: "mirror.invalid/web:1"
`), 0o600))
	rep, _ := restoreApp(t, "--kubeconfig", kubeconfig, "--backup", tarball, "--wait", "--wait-timeout", "60s",
		"--resource-modifiers", rules)
	require.Equal(t, 2, rep.Restored, "the namespace and the Deployment")
	phase("restored")

	restored := c.WaitFor(t, deploymentsGVR, ns, "web", testcluster.DefaultWaitTimeout, "available", appCurrent)
	containers, _, err := unstructured.NestedSlice(restored.Object, "spec", "template", "spec", "containers")
	require.NoError(t, err)
	require.Equal(t, "mirror.invalid/web:1", containers[0].(map[string]any)["image"])
	pods, err := client.Resource(podsGVR).Namespace(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app=mods-web"})
	require.NoError(t, err)
	var running int
	for _, p := range pods.Items {
		if p.GetDeletionTimestamp() != nil {
			continue
		}
		cs, _, err := unstructured.NestedSlice(p.Object, "spec", "containers")
		require.NoError(t, err)
		require.Equal(t, "mirror.invalid/web:1", cs[0].(map[string]any)["image"], "pod %s", p.GetName())
		if phase, _, _ := unstructured.NestedString(p.Object, "status", "phase"); phase == "Running" {
			running++
		}
	}
	require.Equal(t, 2, running, "the Deployment's two Pods run")
	phase("pods run the new image")
}

// yamlObjectLive reads one object written as YAML.
func yamlObjectLive(t *testing.T, s string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	j, err := yaml.YAMLToJSON([]byte(s))
	require.NoError(t, err)
	require.NoError(t, u.UnmarshalJSON(j))
	return u
}
