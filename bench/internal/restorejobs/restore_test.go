package restorejobs

import (
	"bufio"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/bench/internal/listceiling"
	"github.com/backupkit/backupkit/bench/internal/wire"
	"github.com/backupkit/backupkit/bench/internal/workload"
	"github.com/backupkit/backupkit/internal/testcluster"
)

// smokeSize is the number of objects (Secrets for the Secrets workload) of the smoke runs.
const smokeSize = 30

// clusterBinaries returns the kube-apiserver and etcd directory, or skips t without it;
// under CI it fails instead, as testcluster.Env does.
func clusterBinaries(t *testing.T) string {
	t.Helper()
	dir, err := testcluster.LookupBinaries(os.Getenv)
	if err != nil {
		if testcluster.InCI(os.Getenv) {
			t.Fatalf("%v\nCI is set: the restore smoke test must run, not skip", err)
		}
		t.Skip(err)
	}
	return dir
}

func writeWorkload(t *testing.T, dir, name string, n int) (string, workload.RestoreInfo) {
	t.Helper()
	path := filepath.Join(dir, name+".tar.gz")
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	info, err := workload.WriteRestore(w, name, n, 1)
	require.NoError(t, err)
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	return path, info
}

// TestSmokeRestore restores both workloads at the smallest size with each tool once, each
// into a fresh cluster, and requires every run to verify.
func TestSmokeRestore(t *testing.T) {
	binDir := clusterBinaries(t)
	dir := t.TempDir()
	bins, err := Build("../..", dir)
	require.NoError(t, err)
	for _, wl := range workload.RestoreWorkloads {
		backup, info := writeWorkload(t, dir, wl, smokeSize)
		for _, tool := range []string{ToolBackupkit, ToolCeiling, ToolCeilingTypedJSON, ToolCeilingTypedProtobuf, ToolVelero100} {
			t.Run(wl+"/"+tool, func(t *testing.T) {
				res, err := Run(t.Context(), Spec{Tool: tool, Backup: backup, RestoreBin: bins.Restore, JobBin: bins.Job,
					ClusterBinDir: binDir, WorkDir: dir, Timeout: 5 * time.Minute})
				require.NoError(t, err)
				t.Logf("%s: %d objects in %s, %.0f objects/s, client CPU %s, server CPU %s, %.2f requests per item %v, peak RSS %d KiB, load %s",
					tool, res.Objects, time.Duration(res.Wall), res.ObjectsPerSecond(), time.Duration(res.Client), time.Duration(res.Server),
					res.RequestsPerItem(), res.Requests, res.MaxRSSKB, res.Load)
				require.Empty(t, res.Failure)
				require.Equal(t, info.Objects, res.Objects)
				v := res.Verified
				require.NotNil(t, v)
				require.Equal(t, info.Kinds, v.Found)
				if _, ceiling := ceilingModes[tool]; ceiling {
					require.Equal(t, info.Objects, res.Restored)
				}
				if tool == ToolVelero100 {
					require.Equal(t, info.Objects, res.Restored, "Velero counts the Namespaces it creates")
					require.Equal(t, v.Owned, v.Dropped.Count, "Velero removes ownerReferences")
				} else {
					require.Equal(t, v.Owned, v.Remapped)
				}
				if wl == workload.MixedWorkload {
					require.Equal(t, info.Kinds["ReplicaSet"], v.Owned)
				}
				require.Positive(t, res.Wall)
				require.Positive(t, res.Client)
				require.Positive(t, res.MaxRSSKB)
				require.GreaterOrEqual(t, res.Requests["POST"], float64(info.Objects), "one create per object at least")
				require.NotEmpty(t, res.Load)
			})
		}
	}
}

// TestVerifyFindsDamage restores with Ceiling in process, then damages the target one way
// per check and requires Verify to name each damage.
func TestVerifyFindsDamage(t *testing.T) {
	binDir := clusterBinaries(t)
	dir := t.TempDir()
	backup, info := writeWorkload(t, dir, workload.MixedWorkload, smokeSize)
	c, err := testcluster.Start(t.Context(), testcluster.Options{BinDir: binDir,
		ExtraAPIServerArgs: []string{"--service-cluster-ip-range=" + workload.ServiceCIDR}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Stop()) })
	cfg := c.RESTConfig()

	t.Run("scrape counts itself", func(t *testing.T) {
		httpc, err := rest.HTTPClientFor(cfg)
		require.NoError(t, err)
		seen := 1e9
		for range 3 { // the server's own controllers may GET meanwhile: take the least
			a, err := scrapeRequests(t.Context(), httpc, cfg.Host)
			require.NoError(t, err)
			b, err := scrapeRequests(t.Context(), httpc, cfg.Host)
			require.NoError(t, err)
			seen = min(seen, b["GET"]-a["GET"])
		}
		require.Equal(t, float64(scrapeRequestsSeen), seen)
	})

	n, err := Ceiling(t.Context(), cfg, backup, DefaultWorkers, wire.DynamicJSON)
	require.NoError(t, err)
	require.Equal(t, info.Objects, n)
	v, err := Verify(t.Context(), cfg, backup)
	require.NoError(t, err)
	require.NoError(t, v.Err(false))
	require.Equal(t, info.Kinds["ReplicaSet"], v.Remapped)

	client, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	ns := "mixed-0"
	list := func(resource, group string) []unstructured.Unstructured {
		l, err := client.Resource(schema.GroupVersionResource{Group: group, Version: "v1", Resource: resource}).Namespace(ns).List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		require.NotEmpty(t, l.Items, resource)
		return l.Items
	}
	ctx := t.Context()
	secrets := client.Resource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}).Namespace(ns)
	cms := client.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(ns)
	rss := client.Resource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}).Namespace(ns)

	s := list("secrets", "")[0]
	require.NoError(t, unstructured.SetNestedField(s.Object, "AAAA", "data", "extra"))
	_, err = secrets.Update(ctx, &s, metav1.UpdateOptions{})
	require.NoError(t, err)
	cm := list("configmaps", "")[0]
	require.NoError(t, cms.Delete(ctx, cm.GetName(), metav1.DeleteOptions{}))
	stray := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "stray"}}}
	_, err = cms.Create(ctx, stray, metav1.CreateOptions{})
	require.NoError(t, err)
	rsList := list("replicasets", "apps")
	require.GreaterOrEqual(t, len(rsList), 2)
	wrong, dropped := rsList[0], rsList[1]
	items, err := readBackup(ctx, backup)
	require.NoError(t, err)
	var backedUID string
	for _, it := range items {
		if it.obj.GetKind() == "ReplicaSet" && it.obj.GetName() == wrong.GetName() {
			backedUID = string(it.obj.GetOwnerReferences()[0].UID)
		}
	}
	require.NotEmpty(t, backedUID)
	refs := wrong.GetOwnerReferences()
	refs[0].UID = types.UID(backedUID)
	wrong.SetOwnerReferences(refs)
	_, err = rss.Update(ctx, &wrong, metav1.UpdateOptions{})
	require.NoError(t, err)
	dropped.SetOwnerReferences(nil)
	_, err = rss.Update(ctx, &dropped, metav1.UpdateOptions{})
	require.NoError(t, err)

	v, err = Verify(ctx, cfg, backup)
	require.NoError(t, err)
	require.Equal(t, Names{Count: 1, First: []string{"Secret " + ns + "/" + s.GetName()}}, v.DataDiffs)
	require.Equal(t, Names{Count: 1, First: []string{"ConfigMap " + ns + "/" + cm.GetName()}}, v.Missing)
	require.Equal(t, Names{Count: 1, First: []string{"ConfigMap " + ns + "/stray"}}, v.Extra)
	require.Equal(t, Names{Count: 1, First: []string{"ReplicaSet " + ns + "/" + dropped.GetName()}}, v.Dropped)
	require.Equal(t, 1, v.WrongOwner.Count)
	require.Contains(t, v.WrongOwner.First[0], "a backed-up UID")
	require.Equal(t, info.Kinds["ReplicaSet"]-2, v.Remapped)
	require.Equal(t, info.Kinds["ConfigMap"]-1, v.Found["ConfigMap"])

	err = v.Err(false)
	require.Error(t, err)
	for _, want := range []string{"1 missing", "1 not in the backup", "1 data differs", "1 ownerReferences dropped", "1 ownerReference not naming", "objects per kind"} {
		require.ErrorContains(t, err, want)
	}
	require.NotContains(t, v.Err(true).Error(), "dropped", "Velero's dropped ownerReferences are allowed")
}

func TestParseRequests(t *testing.T) {
	text := `# HELP apiserver_request_total [STABLE] Counter of apiserver requests
# TYPE apiserver_request_total counter
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="secrets",scope="resource",subresource="",verb="POST",version="v1"} 31000
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="namespaces",scope="resource",subresource="",verb="GET",version="v1"} 12
apiserver_request_total{code="404",component="apiserver",dry_run="",group="",resource="namespaces",scope="resource",subresource="",verb="GET",version="v1"} 1
apiserver_request_total{code="201",component="apiserver",dry_run="",group="networking.k8s.io",resource="ipaddresses",scope="resource",subresource="",verb="POST",version="v1"} 999
apiserver_request_total_other{verb="GET"} 7
apiserver_request_duration_seconds_count{verb="GET"} 99
`
	got, err := parseRequests(strings.NewReader(text))
	require.NoError(t, err)
	require.Equal(t, Verbs{"POST": 31000, "GET": 13}, got)
	require.Equal(t, 31013.0, got.Total())

	_, err = parseRequests(strings.NewReader(`apiserver_request_total{verb="GET"} x` + "\n"))
	require.ErrorContains(t, err, `metrics: "apiserver_request_total{verb=\"GET\"} x"`)
}

func TestProcessCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc on this system")
	}
	rusage := func() time.Duration {
		var ru syscall.Rusage
		require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	before, err := processCPU(os.Getpid())
	require.NoError(t, err)
	ruBefore := rusage()
	// Spin until the kernel has counted 300 ms of CPU (on a loaded machine that takes longer
	// than 300 ms of wall time), or give up after 20 s.
	x := 0
	for deadline := time.Now().Add(20 * time.Second); rusage()-ruBefore < 300*time.Millisecond && time.Now().Before(deadline); {
		x++
	}
	after, err := processCPU(os.Getpid())
	require.NoError(t, err)
	ruDelta := rusage() - ruBefore
	require.Positive(t, x)
	require.GreaterOrEqual(t, ruDelta, 300*time.Millisecond, "the spin did not get 300 ms of CPU in 20 s")
	require.InDelta(t, float64(ruDelta), float64(after-before), float64(100*time.Millisecond),
		"/proc/<pid>/stat and getrusage count the same CPU time (to the 10 ms tick, and the test's other goroutines)")
	_, err = processCPU(-1)
	require.Error(t, err)
}

// TestSmokeBackup backs up both workloads at the smallest size with examples/backup and
// lists them with the ceiling, each in a fresh cluster: every run must hold every workload
// object at every version the cluster serves it at, and the two must agree on what the
// backup holds.
func TestSmokeBackup(t *testing.T) {
	binDir := clusterBinaries(t)
	dir := t.TempDir()
	bins, err := Build("../..", dir)
	require.NoError(t, err)
	for _, wl := range workload.RestoreWorkloads {
		path, info := writeWorkload(t, dir, wl, smokeSize)
		runs := map[string]BackupResult{}
		for _, tool := range BackupTools {
			res, err := RunBackup(t.Context(), BackupSpec{Tool: tool, Workload: path, BackupBin: bins.Backup, ListBin: bins.List,
				ClusterBinDir: binDir, WorkDir: dir, Timeout: 5 * time.Minute})
			require.NoError(t, err)
			t.Logf("%s %s: %d items in %s, %.0f items/s, client CPU %s, server CPU %s, requests %v, peak RSS %d KiB, %d bytes",
				wl, tool, res.Items, time.Duration(res.Wall), res.ItemsPerSecond(), time.Duration(res.Client), time.Duration(res.Server),
				res.Requests, res.MaxRSSKB, res.Bytes)
			require.Empty(t, res.Failure)
			require.Equal(t, info.Objects, res.Workload)
			require.GreaterOrEqual(t, res.Items, info.Objects)
			require.Positive(t, res.Wall)
			require.Positive(t, res.MaxRSSKB)
			require.Positive(t, res.Requests["LIST"])
			runs[tool] = res
		}
		require.Positive(t, runs[ToolBackup].Bytes)
		for dv, n := range runs[ToolBackup].Listed {
			require.Equal(t, runs[ToolListCeiling].Listed[dv], n, "%s: the backup and the ceiling differ", dv)
		}
	}
}

// The check behind every backup run: a listing without a workload object, or short of
// one, is named.
func TestMissingWorkload(t *testing.T) {
	binDir := clusterBinaries(t)
	dir := t.TempDir()
	path, info := writeWorkload(t, dir, workload.SecretsWorkload, 3)
	c, err := testcluster.Start(t.Context(), testcluster.Options{BinDir: binDir})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	items, err := readBackup(t.Context(), path)
	require.NoError(t, err)
	listed, have := map[string]int{}, map[string]bool{}
	for _, it := range items {
		dv := listceiling.DirVersion(it.gvr)
		listed[dv]++
		have[itemKey(dv, it.obj.GetNamespace(), it.obj.GetName())] = true
	}
	require.Len(t, items, info.Objects)
	missing, err := missingWorkload(t.Context(), path, listed, have, c.RESTConfig())
	require.NoError(t, err)
	require.Empty(t, missing)

	short := maps.Clone(listed)
	short["secrets/v1"]--
	missing, err = missingWorkload(t.Context(), path, short, nil, c.RESTConfig())
	require.NoError(t, err)
	require.Contains(t, missing, "secrets/v1: 2 of the workload's 3")

	lost := maps.Clone(have)
	for k := range lost {
		if strings.HasPrefix(k, "secrets/v1/") {
			delete(lost, k)
			lost["secrets/v1/other/name"] = true
			break
		}
	}
	missing, err = missingWorkload(t.Context(), path, listed, lost, c.RESTConfig())
	require.NoError(t, err)
	require.Contains(t, missing, "secrets/v1: no Secret ")
}
