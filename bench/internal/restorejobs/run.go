package restorejobs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/backupkit/backupkit/bench/internal/wire"
	"github.com/backupkit/backupkit/bench/internal/workload"
	"github.com/backupkit/backupkit/internal/testcluster"
)

// Tools, as Run and cmd/compare name them.
const (
	ToolBackupkit = "backupkit" // the examples/restore binary at its defaults
	// ToolBackupkitProtobuf is examples/restore with --protobuf (restore/protowire: the
	// creates of Kubernetes' own kinds as protobuf; issue 45).
	ToolBackupkitProtobuf = "backupkit-protobuf"
	ToolCeiling           = "ceiling" // Ceiling, DefaultWorkers workers, wire.DynamicJSON
	// ToolCeilingTypedJSON and ToolCeilingTypedProtobuf are the ceiling with
	// wire.TypedJSON and wire.TypedProtobuf (issue 45).
	ToolCeilingTypedJSON     = "ceiling-typed-json"
	ToolCeilingTypedProtobuf = "ceiling-typed-protobuf"
	ToolVelero100            = "velero-qps100"  // Velero at its default client QPS 100 / burst 100
	ToolVelero1000           = "velero-qps1000" // Velero at QPS 1000 / burst 1000
)

// Tools lists every tool.
var Tools = []string{ToolBackupkit, ToolBackupkitProtobuf, ToolCeiling, ToolCeilingTypedJSON, ToolCeilingTypedProtobuf, ToolVelero100, ToolVelero1000}

// ceilingModes are the ceiling tools' wire modes.
var ceilingModes = map[string]wire.Mode{
	ToolCeiling:              wire.DynamicJSON,
	ToolCeilingTypedJSON:     wire.TypedJSON,
	ToolCeilingTypedProtobuf: wire.TypedProtobuf,
}

// Spec is one measured restore.
type Spec struct {
	Tool   string // one of Tools
	Backup string // the backup's path
	// BackupURL, when set, is what examples/restore (ToolBackupkit) is given as --backup
	// instead of Backup: the same backup in object storage (backupstore.SplitBackupURL).
	// Backup is still the local copy the target is verified against.
	BackupURL string
	// RestoreBin is the examples/restore binary (ToolBackupkit), JobBin cmd/restorejob (the others).
	RestoreBin, JobBin string
	// RestoreArgs are added to examples/restore's --kubeconfig and --backup; none: its defaults.
	RestoreArgs []string
	// ClusterBinDir holds kube-apiserver and etcd; empty: testcluster.EnvBinDir.
	ClusterBinDir string
	// WorkDir holds the kubeconfig and the restore's report; it must exist.
	WorkDir string
	// Timeout bounds the restore (the child process); zero: one hour.
	Timeout time.Duration
	// APIServerArgs are added to kube-apiserver's flags.
	APIServerArgs []string
}

// Result is one measured restore. A run that fails or does not verify has Failure set;
// its figures are then not to be reported as a time.
type Result struct {
	Tool     string        `json:"tool"`
	Objects  int           `json:"objects"`  // objects in the backup
	Restored int           `json:"restored"` // objects the tool says it restored; -1 when it does not say
	Wall     int64         `json:"wallNanos"`
	Client   int64         `json:"clientCPUNanos"` // the child's user+system CPU time (rusage)
	Server   int64         `json:"serverCPUNanos"` // kube-apiserver's user+system CPU time over the run
	MaxRSSKB int64         `json:"maxRSSKB"`       // the child's peak resident set
	Requests Verbs         `json:"requests"`       // apiserver_request_total over the run, per verb
	Load     string        `json:"load"`           // /proc/loadavg's three averages at the start
	Verified *Verification `json:"verification,omitempty"`
	Failure  string        `json:"failure,omitempty"`
}

// Verbs counts requests per verb.
type Verbs map[string]float64

// Total sums every verb.
func (v Verbs) Total() float64 {
	t := 0.0
	for _, n := range v {
		t += n
	}
	return t
}

// String lists the counts by verb, sorted: "GET 2, LIST 55".
func (v Verbs) String() string {
	parts := make([]string, 0, len(v))
	for _, k := range slices.Sorted(maps.Keys(v)) {
		parts = append(parts, fmt.Sprintf("%s %.0f", k, v[k]))
	}
	return strings.Join(parts, ", ")
}

// ObjectsPerSecond is objects restored per second of wall time.
func (r Result) ObjectsPerSecond() float64 { return float64(r.Objects) / (float64(r.Wall) / 1e9) }

// RequestsPerItem is the API server's requests per backed-up object.
func (r Result) RequestsPerItem() float64 { return r.Requests.Total() / float64(r.Objects) }

// Run starts a fresh kube-apiserver and etcd, restores spec.Backup into it with spec.Tool
// in a child process, measures it, verifies the target against the backup, and stops the
// cluster. The error is for what keeps the run from happening at all (no binaries, a
// cluster that does not start); a restore that fails or does not verify is a Result with
// Failure set.
func Run(ctx context.Context, spec Spec) (Result, error) {
	res := Result{Tool: spec.Tool, Restored: -1, Load: LoadAverage()}
	c, kubeconfig, err := startCluster(ctx, spec.ClusterBinDir, spec.WorkDir, spec.APIServerArgs)
	if err != nil {
		return res, err
	}
	defer c.Stop()
	defer os.Remove(kubeconfig)
	cfg := c.RESTConfig()

	var cmd *exec.Cmd
	cctx, cancel := childContext(ctx, spec.Timeout)
	defer cancel()
	var stdout io.Writer
	var stdoutBuf bytes.Buffer
	switch spec.Tool {
	case ToolBackupkit, ToolBackupkitProtobuf:
		from := spec.Backup
		if spec.BackupURL != "" {
			from = spec.BackupURL
		}
		args := []string{"--kubeconfig", kubeconfig, "--backup", from}
		if spec.Tool == ToolBackupkitProtobuf {
			args = append(args, "--protobuf")
		}
		cmd = exec.CommandContext(cctx, spec.RestoreBin, append(args, spec.RestoreArgs...)...)
		report, err := os.Create(filepath.Join(spec.WorkDir, "restore-report.txt"))
		if err != nil {
			return res, err
		}
		defer report.Close()
		stdout = report
	case ToolCeiling, ToolCeilingTypedJSON, ToolCeilingTypedProtobuf, ToolVelero100, ToolVelero1000:
		args := []string{"-kubeconfig", kubeconfig, "-backup", spec.Backup, "-tool", spec.Tool}
		cmd = exec.CommandContext(cctx, spec.JobBin, args...)
		stdout = &stdoutBuf
	default:
		return res, fmt.Errorf("restorejobs: unknown tool %q", spec.Tool)
	}
	stderr := &tail{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr

	m, err := measureChild(ctx, cfg, c.APIServerPID(), cmd)
	if err != nil {
		return res, err
	}
	runErr := m.err
	res.Wall, res.MaxRSSKB, res.Server, res.Client, res.Requests = m.wall, m.maxRSSKB, m.server, m.client, m.requests

	if runErr != nil {
		res.Failure = fmt.Sprintf("%s: %v: %s", spec.Tool, runErr, strings.TrimSpace(stderr.String()))
	} else if spec.Tool != ToolBackupkit && spec.Tool != ToolBackupkitProtobuf {
		var out jobOutput
		if err := json.Unmarshal(stdoutBuf.Bytes(), &out); err != nil {
			res.Failure = fmt.Sprintf("%s: output %q: %v", spec.Tool, stdoutBuf.String(), err)
		}
		res.Restored = out.Restored
		res.MaxRSSKB = max(res.MaxRSSKB, out.MaxRSSKB)
	}
	v, err := Verify(ctx, cfg, spec.Backup)
	if err != nil {
		return res, err
	}
	res.Objects = v.Objects
	res.Verified = &v
	if res.Failure == "" {
		if err := v.Err(spec.Tool == ToolVelero100 || spec.Tool == ToolVelero1000); err != nil {
			res.Failure = err.Error()
		}
	}
	return res, c.Stop()
}

// startCluster starts a fresh kube-apiserver and etcd from binDir for a benchmark run and
// writes its kubeconfig into workDir, with apiArgs added to kube-apiserver's flags; the
// caller stops the cluster and removes the file.
func startCluster(ctx context.Context, binDir, workDir string, apiArgs []string) (*testcluster.Cluster, string, error) {
	c, err := testcluster.Start(ctx, testcluster.Options{
		BinDir:             binDir,
		ExtraAPIServerArgs: append([]string{"--service-cluster-ip-range=" + workload.ServiceCIDR}, apiArgs...),
		// etcd's default quota, 2 GiB, holds about a million small objects with their
		// revisions: the scale benchmark's million needs more (etcd's suggested maximum).
		ExtraEtcdArgs: []string{"--quota-backend-bytes=" + strconv.Itoa(8<<30)},
	})
	if err != nil {
		return nil, "", err
	}
	kubeconfig := filepath.Join(workDir, "kubeconfig")
	if err := testcluster.WriteKubeconfig(c.RESTConfig(), kubeconfig); err != nil {
		_ = c.Stop()
		return nil, "", err
	}
	return c, kubeconfig, nil
}

// jobOutput is what cmd/restorejob prints.
type jobOutput struct {
	Restored int   `json:"restored"`
	MaxRSSKB int64 `json:"maxRSSKB"`
}

// RunJob is cmd/restorejob's work: restore with tool (a ceiling or a Velero tool) into
// the cluster of kubeconfig; it returns what the child prints.
func RunJob(ctx context.Context, tool, kubeconfig, backup string) (any, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	var n int
	switch tool {
	case ToolCeiling, ToolCeilingTypedJSON, ToolCeilingTypedProtobuf:
		n, err = Ceiling(ctx, cfg, backup, DefaultWorkers, ceilingModes[tool])
	case ToolVelero100:
		n, err = Velero(cfg, backup, VeleroDefaultQPS, VeleroDefaultBurst)
	case ToolVelero1000:
		n, err = Velero(cfg, backup, 1000, 1000)
	default:
		err = fmt.Errorf("restorejobs: unknown job %q", tool)
	}
	if err != nil {
		return nil, err
	}
	return jobOutput{Restored: n, MaxRSSKB: peakRSSKB(os.Getpid())}, nil
}

// scrapeRequestsSeen is how many GET requests one scrape of /metrics adds to
// apiserver_request_total: none, kube-apiserver does not count it (TestVerifyFindsDamage
// checks this). Were it counted, it would show in the next scrape.
const scrapeRequestsSeen = 0

// scrapeRequests reads kube-apiserver's /metrics and sums apiserver_request_total per verb.
func scrapeRequests(ctx context.Context, c interface {
	Do(*http.Request) (*http.Response, error)
}, host string) (Verbs, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, host+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	return parseRequests(resp.Body)
}

// settle waits for a new API server to finish its own bootstrap requests: until two
// scrapes 500 ms apart differ by at most one request, for at most 15 s. It returns the
// last scrape.
func settle(ctx context.Context, c interface {
	Do(*http.Request) (*http.Response, error)
}, host string) (Verbs, error) {
	prev, err := scrapeRequests(ctx, c, host)
	deadline := time.Now().Add(15 * time.Second)
	for err == nil && time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
		var cur Verbs
		if cur, err = scrapeRequests(ctx, c, host); err == nil {
			quiet := cur.Total()-prev.Total() <= 1
			prev = cur
			if quiet {
				break
			}
		}
	}
	return prev, err
}

// serverOwn are resources only the API server itself writes during a restore: it creates
// an IPAddress through its loopback client for every ClusterIP it allocates, whichever
// client created the Service. Their requests are not the restore's and are not counted.
var serverOwn = []string{`resource="ipaddresses"`}

// parseRequests sums the apiserver_request_total samples of a Prometheus text exposition
// per value of their verb label, leaving out serverOwn.
func parseRequests(r io.Reader) (Verbs, error) {
	out := Verbs{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, "apiserver_request_total{")
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			return nil, fmt.Errorf("metrics: malformed sample %q", line)
		}
		n, err := strconv.ParseFloat(strings.Fields(value)[0], 64)
		if err != nil {
			return nil, fmt.Errorf("metrics: %q: %w", line, err)
		}
		if slices.ContainsFunc(serverOwn, func(r string) bool { return strings.Contains(labels, r) }) {
			continue
		}
		verb := ""
		if _, after, ok := strings.Cut(labels, `verb="`); ok {
			verb, _, _ = strings.Cut(after, `"`)
		}
		out[verb] += n
	}
	return out, sc.Err()
}

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat: 100 on every
// Linux architecture Go supports.
const clockTicks = 100

// processCPU returns the user+system CPU time of process pid, in nanoseconds.
func processCPU(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces: count from its end.
	_, rest, ok := strings.Cut(string(b), ") ")
	if !ok {
		return 0, fmt.Errorf("/proc/%d/stat: malformed", pid)
	}
	f := strings.Fields(rest) // f[0] is field 3 (state); utime is field 14, stime 15
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: malformed", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: malformed", pid)
	}
	return (utime + stime) * int64(time.Second/clockTicks), nil
}

// peakRSSKB is VmHWM of /proc/<pid>/status in KiB; 0 if unreadable.
func peakRSSKB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

// watchPeakRSS reads the child's VmHWM every 20 ms until the returned function is called
// (once the child has exited), which returns the last value read: the child's peak but for
// what it added in its last 20 ms. The child's rusage ru_maxrss is not used: os/exec starts
// it with vfork, so that figure is never below this process's resident size at the fork.
func watchPeakRSS(pid int) func() int64 {
	var mu sync.Mutex
	var peak int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if v := peakRSSKB(pid); v > 0 {
				mu.Lock()
				peak = max(peak, v)
				mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(done)
		<-stopped
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// LoadAverage is /proc/loadavg's three averages, "" when unreadable.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
