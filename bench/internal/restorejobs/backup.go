package restorejobs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backupstore"
	"github.com/backupkit/backupkit/bench/internal/listceiling"
	"github.com/backupkit/backupkit/bench/internal/wire"
)

// Backup tools, as RunBackup and cmd/backupbench name them.
const (
	ToolBackup      = "backup"       // the examples/backup binary at its defaults
	ToolListCeiling = "list-ceiling" // cmd/listjob: listceiling.List at its defaults, wire.DynamicJSON
	// ToolListCeilingProtobuf is cmd/listjob with -mode typed-protobuf (issue 45).
	ToolListCeilingProtobuf = "list-ceiling-protobuf"
)

// BackupTools lists every backup tool.
var BackupTools = []string{ToolBackup, ToolListCeiling, ToolListCeilingProtobuf}

// BackupSpec is one measured backup.
type BackupSpec struct {
	Tool string // one of BackupTools
	// Workload is a restore workload's backup: Ceiling restores it into the fresh cluster
	// before the measured run, which then backs the cluster up.
	Workload string
	// BackupBin is the examples/backup binary (ToolBackup), ListBin cmd/listjob (ToolListCeiling).
	BackupBin, ListBin string
	// ClusterBinDir holds kube-apiserver and etcd; empty: testcluster.EnvBinDir.
	ClusterBinDir string
	// WorkDir holds the kubeconfig and the backup written; it must exist.
	WorkDir string
	// OutputURL, when set, is where examples/backup (ToolBackup) writes the backup instead of
	// a file in WorkDir: the URL of a backup in object storage (backupstore.SplitBackupURL).
	// The tarball is downloaded into WorkDir afterwards, not measured, for the check.
	OutputURL string
	// Timeout bounds the backup (the child process); zero: one hour.
	Timeout time.Duration
	// APIServerArgs are added to kube-apiserver's flags.
	APIServerArgs []string
}

// BackupResult is one measured backup. A run that fails or misses a workload object has
// Failure set; its figures are then not to be reported as a time.
type BackupResult struct {
	Tool     string `json:"tool"`
	Workload int    `json:"workload"` // objects of the workload put into the cluster
	// FillWall is how long Ceiling took to put them there (not part of the measured run).
	FillWall int64          `json:"fillWallNanos"`
	Listed   map[string]int `json:"listed"` // objects per "<resource dir>/<version>" listed (the ceiling) or written (the backup)
	Items    int            `json:"items"`  // the sum of Listed: every object once per version
	Bytes    int64          `json:"bytes"`  // the tarball's size; 0 for the ceiling
	Wall     int64          `json:"wallNanos"`
	Client   int64          `json:"clientCPUNanos"`
	Server   int64          `json:"serverCPUNanos"`
	MaxRSSKB int64          `json:"maxRSSKB"`
	Requests Verbs          `json:"requests"`
	Load     string         `json:"load"`
	Failure  string         `json:"failure,omitempty"`
}

// ItemsPerSecond is items (objects at each version) listed or written per second of wall time.
func (r BackupResult) ItemsPerSecond() float64 { return float64(r.Items) / (float64(r.Wall) / 1e9) }

// RunBackup starts a fresh kube-apiserver and etcd, fills it with spec.Workload (restored
// by Ceiling, not measured), backs it up with spec.Tool in a child process, measures that,
// and checks the result: the backup must hold every workload object at every version the
// cluster serves its resource at (the ceiling must list them). The error is for what keeps
// the run from happening at all; a backup that fails or misses objects is a BackupResult
// with Failure set.
func RunBackup(ctx context.Context, spec BackupSpec) (BackupResult, error) {
	res := BackupResult{Tool: spec.Tool}
	c, kubeconfig, err := startCluster(ctx, spec.ClusterBinDir, spec.WorkDir, spec.APIServerArgs)
	if err != nil {
		return res, err
	}
	defer c.Stop()
	defer os.Remove(kubeconfig)
	cfg := c.RESTConfig()
	fillStart := time.Now()
	res.Workload, err = Ceiling(ctx, cfg, spec.Workload, DefaultWorkers, wire.DynamicJSON)
	res.FillWall = int64(time.Since(fillStart))
	if err != nil {
		return res, fmt.Errorf("filling the cluster with %s: %w", spec.Workload, err)
	}
	cctx, cancel := childContext(ctx, spec.Timeout)
	defer cancel()
	output := filepath.Join(spec.WorkDir, "backup-out.tar.gz")
	defer os.Remove(output)
	var cmd *exec.Cmd
	var stdout bytes.Buffer
	switch spec.Tool {
	case ToolBackup:
		to := output
		if spec.OutputURL != "" {
			to = spec.OutputURL
		}
		cmd = exec.CommandContext(cctx, spec.BackupBin, "--kubeconfig", kubeconfig, "--output", to)
	case ToolListCeiling:
		cmd = exec.CommandContext(cctx, spec.ListBin, "-kubeconfig", kubeconfig)
	case ToolListCeilingProtobuf:
		cmd = exec.CommandContext(cctx, spec.ListBin, "-kubeconfig", kubeconfig, "-mode", string(wire.TypedProtobuf))
	default:
		return res, fmt.Errorf("restorejobs: unknown backup tool %q", spec.Tool)
	}
	stderr := &tail{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	res.Load = LoadAverage()
	m, err := measureChild(ctx, cfg, c.APIServerPID(), cmd)
	if err != nil {
		return res, err
	}
	res.Wall, res.MaxRSSKB, res.Server, res.Client, res.Requests = m.wall, m.maxRSSKB, m.server, m.client, m.requests
	if m.err != nil {
		res.Failure = fmt.Sprintf("%s: %v: %s", spec.Tool, m.err, strings.TrimSpace(stderr.String()))
		return res, c.Stop()
	}
	var have map[string]bool // the backup's items, "<dir>/<version>/<namespace>/<name>"
	if spec.Tool == ToolBackup && spec.OutputURL != "" {
		err = download(ctx, spec.OutputURL, output)
	}
	if err == nil && spec.Tool == ToolBackup {
		res.Listed, have, res.Bytes, err = readWritten(ctx, output)
	} else {
		err = json.Unmarshal(stdout.Bytes(), &res.Listed)
	}
	if err != nil {
		res.Failure = fmt.Sprintf("%s: reading what it wrote: %v", spec.Tool, err)
		return res, c.Stop()
	}
	for _, n := range res.Listed {
		res.Items += n
	}
	if missing, err := missingWorkload(ctx, spec.Workload, res.Listed, have, cfg); err != nil {
		return res, err
	} else if missing != "" {
		res.Failure = missing
	}
	return res, c.Stop()
}

// readWritten reads the backup at path and counts its items per resource directory and
// version directory (the legacy paths aside), and lists them by itemKey; bytes is the
// file's size.
func readWritten(ctx context.Context, path string) (counts map[string]int, have map[string]bool, bytes int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, 0, err
	}
	idx, err := archive.Scan(ctx, f)
	if err != nil {
		return nil, nil, 0, err
	}
	if len(idx.Problems) > 0 {
		return nil, nil, 0, fmt.Errorf("%s: %s: %s", path, idx.Problems[0].Path, idx.Problems[0].Reason)
	}
	counts, have = map[string]int{}, map[string]bool{}
	for _, ref := range idx.Items {
		if ref.VersionDir != "" {
			key := ref.GroupResource + "/" + ref.Version()
			counts[key]++
			have[itemKey(key, ref.Namespace, ref.Name)] = true
		}
	}
	return counts, have, st.Size(), nil
}

// itemKey names an object at a version: "<dir>/<version>/<namespace>/<name>".
func itemKey(dirVersion, namespace, name string) string {
	return dirVersion + "/" + namespace + "/" + name
}

// missingWorkload says, in one line, how a listing falls short of the workload: every
// workload object must be there at every version the cluster serves its resource at. With
// have (a backup's items) each object is looked up by name; without (the ceiling, which
// counts) the count per resource and version must reach the workload's. "" when nothing is
// missing.
func missingWorkload(ctx context.Context, workloadPath string, listed map[string]int, have map[string]bool, cfg *rest.Config) (string, error) {
	type item struct {
		gr  schema.GroupResource
		key objKey
	}
	var items []item // the workload's objects, by name alone
	if _, err := eachBackedUp(ctx, workloadPath, func(gr schema.GroupResource, u *unstructured.Unstructured) error {
		items = append(items, item{gr, objKey{kind: u.GetKind(), namespace: u.GetNamespace(), name: u.GetName()}})
		return nil
	}); err != nil {
		return "", err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return "", err
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		return "", err
	}
	want := map[schema.GroupResource]int{}
	for _, it := range items {
		want[it.gr]++
	}
	var short []string
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			return "", err
		}
		for _, r := range l.APIResources {
			gvr := gv.WithResource(r.Name)
			dv := listceiling.DirVersion(gvr)
			if n := want[gvr.GroupResource()]; n > 0 && listed[dv] < n {
				short = append(short, fmt.Sprintf("%s: %d of the workload's %d", dv, listed[dv], n))
				continue
			}
			if have == nil {
				continue
			}
			for _, it := range items {
				if it.gr == gvr.GroupResource() && !have[itemKey(dv, it.key.namespace, it.key.name)] {
					short = append(short, fmt.Sprintf("%s: no %s", dv, it.key))
					break
				}
			}
		}
	}
	if len(short) == 0 {
		return "", nil
	}
	slices.Sort(short)
	return "missing workload objects: " + strings.Join(short, "; "), nil
}

// download copies the tarball of the backup at backupURL (backupstore.SplitBackupURL) to path.
func download(ctx context.Context, backupURL, path string) error {
	store, name, err := backupstore.OpenBackupURL(ctx, backupURL)
	if err != nil {
		return err
	}
	defer store.Close()
	rc, err := store.Tarball(name)(ctx)
	if err != nil {
		return err
	}
	defer rc.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, rc); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
