package velerocompat_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	velerov1 "github.com/vmware-tanzu/velero/pkg/apis/velero/v1"
	velerolabel "github.com/vmware-tanzu/velero/pkg/label"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/archive/archivetest"
	"github.com/backupkit/backupkit/restore"
)

// restore.WithVeleroLabels writes the labels Velero v1.18.3's restore writes (its keys,
// and its label.GetValidName of the restore's and the backup's names), for names of any
// length, long ones cut as Velero cuts them.
func TestVeleroLabelsAsVelero(t *testing.T) {
	require.Equal(t, velerov1.RestoreNameLabel, restore.VeleroRestoreNameLabel)
	require.Equal(t, velerov1.BackupNameLabel, restore.VeleroBackupNameLabel)
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "a", "namespace": "ns", "uid": "uid-a"}}}
	var buf bytes.Buffer
	_, err := archivetest.WriteObjects(&buf, func(string) string { return "configmaps" }, cm)
	require.NoError(t, err)
	plan, err := restore.NewPlan(t.Context(), restore.FromBytes(buf.Bytes()), []metav1.APIGroup{{Name: "",
		Versions: []metav1.GroupVersionForDiscovery{{GroupVersion: "v1", Version: "v1"}}, PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "v1", Version: "v1"}}})
	require.NoError(t, err)
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	ctx := t.Context()
	rapid.Check(t, func(t *rapid.T) {
		// Label values: a restore's name must be one; Velero's backup names are object names.
		restoreName := rapid.StringMatching(`[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?`).Draw(t, "restore")
		backupName := rapid.StringMatching(`[a-z0-9]([a-z0-9.-]{0,120}[a-z0-9])?`).Draw(t, "backup")
		mapper := meta.NewDefaultRESTMapper(nil)
		mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
		dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "ConfigMapList"})
		_, err := restore.Run(ctx, plan, restore.Cluster{Dynamic: dyn, Mapper: mapper},
			restore.WithName(restoreName), restore.WithVeleroLabels(backupName))
		require.NoError(t, err)
		got, err := dyn.Resource(gvr).Namespace("ns").Get(ctx, "a", metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, velerolabel.GetValidName(restoreName), got.GetLabels()[velerov1.RestoreNameLabel])
		require.Equal(t, velerolabel.GetValidName(backupName), got.GetLabels()[velerov1.BackupNameLabel])
	})
}
