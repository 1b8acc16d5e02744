// Command objstorebench measures backups kept in object storage (issues 30 and 40) against
// the same backups in local files, in one run: examples/restore restoring a backup
// (-workload: workload.ConfigMapsWorkload, or workload.MixedWorkload, whose plan reads the
// tarball for the references) from a file and from a real S3 server (versitygw,
// internal/s3server) on loopback, through a proxy (internal/faultproxy, no faults) that
// counts the reads of the tarball from its first byte, each into a fresh kube-apiserver and
// etcd and verified (restorejobs.Run), and examples/backup backing a cluster the ceiling
// filled up to a file and to the S3 server (restorejobs.RunBackup), its peak RSS compared.
// The sibling in the bucket is copied there, without the upload's record, so a restore from
// S3 verifies it by reading the tarball. The runs alternate (file, S3, S3, file, ...) so
// that a drift of the machine's speed favours neither. It prints a Markdown section, with
// medians and bests.
//
//	cd bench && BACKUPKIT_TESTBIN="$(bash ../hack/testbin/build.sh)" BACKUPKIT_S3BIN="$(bash ../hack/s3bin/build.sh)" \
//		go run ./cmd/objstorebench -workload mixed -n 10000 -runs 3 -backups=false
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/backupstore"
	"github.com/backupkit/backupkit/bench/internal/restorejobs"
	"github.com/backupkit/backupkit/bench/internal/workload"
	"github.com/backupkit/backupkit/internal/faultproxy"
	"github.com/backupkit/backupkit/internal/s3server"
	"github.com/backupkit/backupkit/internal/testcluster"
)

const (
	seed   = 1
	bucket = "backups"
)

func main() {
	n := flag.Int("n", 10000, "objects in the backup restored (of -workload) and ConfigMaps in the cluster backed up")
	wl := flag.String("workload", workload.ConfigMapsWorkload, "the backup restored: configmaps (one namespace of ConfigMaps: the plan reads nothing of the tarball) or mixed (workloads, bindings, ...: the plan reads the tarball for the references)")
	runs := flag.Int("runs", 2, "runs of each of the four measurements")
	dir := flag.String("dir", "/var/tmp/backupkit-bench", "directory of the generated backups, kept between runs")
	restores := flag.Bool("restores", true, "measure the restores")
	backups := flag.Bool("backups", true, "measure the backups")
	flag.Parse()
	if err := run(context.Background(), *wl, *n, *runs, *dir, *restores, *backups); err != nil {
		fmt.Fprintln(os.Stderr, "objstorebench:", err)
		os.Exit(1)
	}
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "objstorebench: "+format+"\n", args...)
}

func run(ctx context.Context, wl string, n, runs int, dir string, restores, backups bool) error {
	binDir, err := testcluster.LookupBinaries(os.Getenv)
	if err != nil {
		return err
	}
	s3bin, err := s3server.LookupBinary(os.Getenv)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "objstorebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bins, err := restorejobs.Build(".", work)
	if err != nil {
		return err
	}
	srv, err := s3server.Start(ctx, s3bin, bucket)
	if err != nil {
		return err
	}
	defer srv.Stop()
	for _, kv := range srv.Env() { // the children (examples/backup, examples/restore) inherit it
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}

	// The backup, with its sibling beside it, as a file and as the same bytes in the bucket.
	path := filepath.Join(dir, fmt.Sprintf("objstore-%s-%d-seed%d.tar.gz", wl, n, seed))
	info, err := workload.EnsureRestore(path, wl, n, seed, archive.SiblingManifestName(path))
	if err != nil {
		return err
	}
	// The restores from S3 go through a proxy that forwards everything and counts the reads
	// of the tarball from its first byte (a resumed read starts further on).
	var reads atomic.Int64
	proxy, err := faultproxy.StartPlain(srv.Endpoint, func(r *http.Request, _ int64) faultproxy.Fault {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, ".tar.gz") {
			if rg := r.Header.Get("Range"); rg == "" || strings.HasPrefix(rg, "bytes=0-") {
				reads.Add(1)
			}
		}
		return faultproxy.None
	})
	if err != nil {
		return err
	}
	defer proxy.Close()
	bucketURL := srv.BucketURL(bucket, proxy.URL())
	store, err := backupstore.Open(ctx, bucketURL)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := copyFile(ctx, store, path, store.TarballKey("restore")); err != nil {
		return err
	}
	if err := copyFile(ctx, store, archive.SiblingManifestName(path), store.SiblingKey("restore")); err != nil {
		return err
	}
	backupURL := func(name string) string {
		base, query, _ := strings.Cut(bucketURL, "?")
		return base + "/" + name + "?" + query
	}

	type sample struct {
		wall  time.Duration
		rssKB int64
		reads int64 // of the tarball, from S3
	}
	results := map[string][]sample{}
	order := func(i int) []string {
		if i%2 == 0 {
			return []string{"file", "s3"}
		}
		return []string{"s3", "file"}
	}
	for i := range runs {
		if !restores {
			break
		}
		for _, from := range order(i) {
			spec := restorejobs.Spec{Tool: restorejobs.ToolBackupkit, Backup: path, RestoreBin: bins.Restore, JobBin: bins.Job,
				ClusterBinDir: binDir, WorkDir: work, Timeout: time.Hour}
			if from == "s3" {
				spec.BackupURL = backupURL("restore")
			}
			before := reads.Load()
			r, err := restorejobs.Run(ctx, spec)
			if err != nil {
				return err
			}
			if r.Failure != "" {
				return fmt.Errorf("restore from %s: %s", from, r.Failure)
			}
			progress("restore %d objects from %s: %s, peak RSS %d KiB", r.Objects, from, time.Duration(r.Wall), r.MaxRSSKB)
			results["restore "+from] = append(results["restore "+from], sample{time.Duration(r.Wall), r.MaxRSSKB, reads.Load() - before})
		}
	}
	for i := range runs {
		if !backups {
			break
		}
		for _, to := range order(i) {
			spec := restorejobs.BackupSpec{Tool: restorejobs.ToolBackup, Workload: path, BackupBin: bins.Backup,
				ClusterBinDir: binDir, WorkDir: work, Timeout: time.Hour}
			if to == "s3" {
				spec.OutputURL = backupURL(fmt.Sprintf("backup-%d", i))
			}
			r, err := restorejobs.RunBackup(ctx, spec)
			if err != nil {
				return err
			}
			if r.Failure != "" {
				return fmt.Errorf("backup to %s: %s", to, r.Failure)
			}
			progress("backup of %d objects to %s: %s, peak RSS %d KiB, %d bytes", r.Workload, to, time.Duration(r.Wall), r.MaxRSSKB, r.Bytes)
			results["backup "+to] = append(results["backup "+to], sample{time.Duration(r.Wall), r.MaxRSSKB, 0})
		}
	}

	median := func(key string, f func(sample) float64) float64 {
		var xs []float64
		for _, s := range results[key] {
			xs = append(xs, f(s))
		}
		sort.Float64s(xs)
		if len(xs)%2 == 1 {
			return xs[len(xs)/2]
		}
		return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	wall := func(s sample) float64 { return s.wall.Seconds() }
	rss := func(s sample) float64 { return float64(s.rssKB) }
	objects := float64(info.Objects)
	best := func(key string) float64 {
		b := 0.0
		for i, s := range results[key] {
			if i == 0 || s.wall.Seconds() < b {
				b = s.wall.Seconds()
			}
		}
		return b
	}
	fmt.Printf("Object storage: the %s workload, %d objects restored, %d runs of each, alternating; medians and bests.\n\n", wl, info.Objects, runs)
	fmt.Println("| measurement | wall (s) | best wall (s) | objects/s | peak RSS (MiB) | runs (s / MiB) |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, key := range []string{"restore file", "restore s3", "backup file", "backup s3"} {
		if len(results[key]) == 0 {
			continue
		}
		var each []string
		for _, s := range results[key] {
			each = append(each, fmt.Sprintf("%.1f / %.0f", s.wall.Seconds(), float64(s.rssKB)/1024))
		}
		fmt.Printf("| %s | %.1f | %.1f | %.0f | %.0f | %s |\n", key, median(key, wall), best(key), objects/median(key, wall),
			median(key, rss)/1024, strings.Join(each, ", "))
	}
	fmt.Println()
	if restores {
		ratio := median("restore file", wall) / median("restore s3", wall)
		fmt.Printf("Restore from S3 at %.2f× the throughput of the restore from a file, medians (goal ≥ 0.9×: %s).\n", ratio, verdict(ratio >= 0.9))
		bestRatio := best("restore file") / best("restore s3")
		fmt.Printf("Restore from S3 at %.2f× the throughput of the restore from a file, bests (goal ≥ 0.9×: %s).\n", bestRatio, verdict(bestRatio >= 0.9))
		var rs []string
		for _, s := range results["restore s3"] {
			rs = append(rs, fmt.Sprint(s.reads))
		}
		fmt.Printf("Reads of the tarball from its first byte, each restore from S3: %s.\n", strings.Join(rs, ", "))
	}
	if backups {
		mem := median("backup s3", rss) / median("backup file", rss)
		fmt.Printf("Backup to S3 at %.2f× the peak RSS of the backup to a file (goal ≤ 1.10×: %s).\n", mem, verdict(mem <= 1.10))
	}
	return nil
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "not met"
}

// copyFile uploads the file at path to key, as it is.
func copyFile(ctx context.Context, store *backupstore.Store, path, key string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := store.Bucket().NewWriter(wctx, key, nil)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, f); err != nil {
		cancel() // the object is not written
		_ = w.Close()
		return err
	}
	return w.Close()
}
