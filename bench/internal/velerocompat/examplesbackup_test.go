package velerocompat_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	velerov1 "github.com/vmware-tanzu/velero/pkg/apis/velero/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/backupkit/backupkit/backupstore"
	"github.com/backupkit/backupkit/internal/s3server"
	"github.com/backupkit/backupkit/internal/testcluster"
)

// TestVeleroReadsExamplesBackupFromS3: examples/backup, built and run as a program with
// --output s3://..., backs a namespace of a real API server up into a real S3 server
// (versitygw); the tarball, downloaded back through gocloud.dev/blob from where Velero's
// layout puts it, is read by Velero's own Extractor and Parser, which list every ConfigMap;
// and Velero's own persistence code lists the backup and reads its Backup object.
func TestVeleroReadsExamplesBackupFromS3(t *testing.T) {
	if _, err := testcluster.LookupBinaries(os.Getenv); err != nil {
		if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	srv := s3server.ForTest(t, "backups")
	srv.SetEnv(t)
	ctx := t.Context()
	c, err := testcluster.Start(ctx, testcluster.Options{})
	require.NoError(t, err)
	defer c.Stop()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, testcluster.WriteKubeconfig(c.RESTConfig(), kubeconfig))
	client, err := kubernetes.NewForConfig(c.RESTConfig())
	require.NoError(t, err)
	ns := "shop"
	_, err = client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	require.NoError(t, err)
	const n = 50
	for i := range n {
		_, err := client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%02d", i)},
			Data: map[string]string{"k": strings.Repeat("v", i)}}, metav1.CreateOptions{})
		require.NoError(t, err)
	}

	bin := filepath.Join(t.TempDir(), "backup")
	build := exec.Command("go", "build", "-o", bin, "./examples/backup")
	build.Dir = ".." + string(filepath.Separator) + ".." + string(filepath.Separator) + ".." // the library's root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	base, query, _ := strings.Cut(srv.BucketURL("backups", ""), "?")
	cmd := exec.CommandContext(ctx, bin, "--kubeconfig", kubeconfig, "--include-namespaces", ns, "--output", base+"/velero/nightly?"+query)
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)

	s, err := backupstore.Open(ctx, srv.BucketURL("backups", ""), backupstore.WithPrefix("velero"))
	require.NoError(t, err)
	defer s.Close()
	ok, err := s.Bucket().Exists(ctx, "velero/backups/nightly/nightly-manifest.json.gz")
	require.NoError(t, err)
	require.True(t, ok, "the sibling manifest beside the tarball")
	rc, err := s.Bucket().NewReader(ctx, "velero/backups/nightly/nightly.tar.gz", nil)
	require.NoError(t, err)
	data, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())

	resources := veleroParse(t, data)
	cms, ok := resources["configmaps"]
	require.True(t, ok, "configmaps listed")
	names := 0
	for _, name := range cms.ItemsByNamespace[ns] {
		if strings.HasPrefix(name, "cm-") {
			names++
		}
	}
	require.Equal(t, n, names)

	// And a Velero server pointed at the bucket lists it, complete, from its Backup object.
	vs := veleroBackupStore(t, s.Bucket(), "backups", "velero")
	listed, err := vs.ListBackups()
	require.NoError(t, err)
	require.Equal(t, []string{"nightly"}, listed)
	b, err := vs.GetBackupMetadata("nightly")
	require.NoError(t, err)
	require.Equal(t, velerov1.BackupPhaseCompleted, b.Status.Phase)
	require.Equal(t, []string{ns}, b.Spec.IncludedNamespaces)
	require.GreaterOrEqual(t, b.Status.Progress.ItemsBackedUp, n+1) // the ConfigMaps, the Namespace, ...
}
