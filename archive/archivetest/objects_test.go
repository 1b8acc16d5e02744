package archivetest_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/archive/archivetest"
)

func TestWriteObjects(t *testing.T) {
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "a", "namespace": "ns", "uid": "u-a"}}}
	resource := func(kind string) string { return map[string]string{"ConfigMap": "configmaps"}[kind] }
	var buf bytes.Buffer
	_, err := archivetest.WriteObjects(&buf, resource, cm)
	require.NoError(t, err)
	idx, err := archive.Scan(t.Context(), bytes.NewReader(buf.Bytes()), archive.WithManifest())
	require.NoError(t, err)
	require.Equal(t, 1, idx.Manifest.Len())
	require.Equal(t, "resources/configmaps/v1-preferredversion/namespaces/ns/a.json", idx.Items[len(idx.Items)-1].Path)

	pod := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "namespace": "ns"}}}
	_, err = archivetest.WriteObjects(&bytes.Buffer{}, resource, cm, pod)
	require.EqualError(t, err, `archivetest: no resource for kind "Pod" (ns/p)`)
}
