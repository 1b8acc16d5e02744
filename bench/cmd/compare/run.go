package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/backupkit/backupkit/bench/internal/archivejobs"
	"github.com/backupkit/backupkit/bench/internal/measure"
	"github.com/backupkit/backupkit/bench/internal/suite"
	"github.com/backupkit/backupkit/bench/internal/workload"
)

// seed is the seed of every generated workload.
const seed = 1

// sizes of each workload, full and small.
type sizes struct {
	backups      []int // item entries
	status       int   // objects
	reviews      []int // objects per ConversionReview
	orderBK      []int // objects ordered by backupkit
	orderCLI     []int // objects ordered by cli-utils (quadratic: capped)
	reviewTarget int   // objects converted per run, at least one review
}

var full = sizes{backups: []int{10_000, 100_000}, status: 100_000, reviews: []int{1, 100, 1000},
	orderBK: []int{10_000, 100_000, 1_000_000}, orderCLI: []int{5_000, 10_000}, reviewTarget: 20_000}

var small = sizes{backups: []int{1000}, status: 2000, reviews: []int{1, 100},
	orderBK: []int{1000}, orderCLI: []int{1000}, reviewTarget: 100}

func run(c config) error {
	sz := full
	if c.small {
		sz = small
	}
	if c.prepare {
		for _, n := range sz.backups {
			for _, dir := range []string{c.tmpfs, c.disk} {
				if err := os.MkdirAll(dir, 0o700); err != nil {
					return err
				}
				if _, err := ensureBackup(backupPath(dir, n), n); err != nil {
					return err
				}
			}
		}
		return nil
	}
	rep := &report{path: c.out, started: time.Now(), cfg: c}
	rep.machine()
	if err := rep.flush(); err != nil {
		return err
	}
	bin, err := os.MkdirTemp("", "bench-bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	archiveJob := filepath.Join(bin, "archivejob")
	orderJob := filepath.Join(bin, "orderjob")
	if c.wants("archive") {
		if err := goBuild(".", archiveJob, "./cmd/archivejob"); err != nil {
			return err
		}
	}
	if c.wants("order") {
		if err := goBuild(c.orderDir, orderJob, "."); err != nil {
			return err
		}
	}

	// Archives: generate each backup once per filesystem, then interleave the tools run by run.
	// Disk first: it is the longest and the least sensitive to other processes' CPU use.
	for _, fsys := range []struct{ name, dir string }{{"disk", c.disk}, {"tmpfs", c.tmpfs}} {
		for _, n := range sz.backups {
			if !c.wants("archive") {
				break
			}
			res, err := archiveRuns(c, archiveJob, fsys.name, fsys.dir, n)
			if err != nil {
				return err
			}
			rep.archive = append(rep.archive, res)
			if err := rep.flush(); err != nil {
				return err
			}
		}
	}

	if c.wants("status") {
		if err := statusSection(c, rep, sz); err != nil {
			return err
		}
	}
	if c.wants("webhook") {
		if err := webhookSection(c, rep, sz); err != nil {
			return err
		}
	}
	if c.wants("order") {
		if err := orderSection(c, rep, sz, orderJob); err != nil {
			return err
		}
	}
	if c.wants("restore") {
		if err := restoreSection(c, rep, bin); err != nil {
			return err
		}
	}
	rep.done = true
	return rep.flush()
}

func statusSection(c config, rep *report, sz sizes) error {
	objs := workload.StatusObjects(sz.status, seed)
	st := statusResult{n: sz.status, runs: map[string][]measure.Run{}}
	for range c.runs {
		for _, tool := range []string{suite.KStatus, suite.Backupkit} {
			r, err := suite.Status(tool, objs)
			if err != nil {
				return err
			}
			st.runs[tool] = append(st.runs[tool], r)
		}
	}
	rep.status = &st
	return rep.flush()
}

func webhookSection(c config, rep *report, sz sizes) error {
	for _, n := range sz.reviews {
		body, err := workload.Review(n, seed)
		if err != nil {
			return err
		}
		reviews := max(1, sz.reviewTarget/n)
		wr := webhookResult{n: n, reviews: reviews, bodyBytes: len(body), runs: map[string][]measure.Run{}}
		for range c.runs {
			for _, tool := range []string{suite.Controller, suite.Backupkit} {
				r, err := suite.Webhook(tool, body, reviews)
				if err != nil {
					return err
				}
				wr.runs[tool] = append(wr.runs[tool], r)
			}
		}
		rep.webhook = append(rep.webhook, wr)
		if err := rep.flush(); err != nil {
			return err
		}
	}
	return nil
}

// orderSection runs the ordering, one child process per tool and size.
func orderSection(c config, rep *report, sz sizes, orderJob string) error {
	for _, o := range []struct {
		tool  string
		sizes []int
	}{{"cli-utils", sz.orderCLI}, {"backupkit", sz.orderBK}} {
		for _, n := range o.sizes {
			runs, err := orderRuns(orderJob, o.tool, n, c.runs)
			if err != nil {
				return err
			}
			rep.order = append(rep.order, orderResult{tool: o.tool, n: n, runs: runs})
			if err := rep.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

func goBuild(dir, out, pkg string) error {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s in %s: %w", pkg, dir, err)
	}
	return nil
}

// archiveResult is every run of every archive job on one backup and filesystem.
type archiveResult struct {
	fs, dir    string
	entries    int
	info       workload.BackupInfo
	compressed int64
	runs       map[string][]measure.Run
}

// archiveRuns generates the backup of n entries under dir (kept between invocations,
// named for its size and seed) and runs every job c.runs times, interleaved.
func archiveRuns(c config, job, fsName, dir string, n int) (archiveResult, error) {
	res := archiveResult{fs: fsName, dir: dir, entries: n, runs: map[string][]measure.Run{}}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return res, err
	}
	path := backupPath(dir, n)
	info, err := ensureBackup(path, n)
	if err != nil {
		return res, err
	}
	res.info = info
	if st, err := os.Stat(path); err == nil {
		res.compressed = st.Size()
	}
	work := filepath.Join(dir, "work")
	if err := os.RemoveAll(work); err != nil {
		return res, err
	}
	if err := os.Mkdir(work, 0o700); err != nil {
		return res, err
	}
	defer os.RemoveAll(work)
	for range c.runs {
		for _, name := range archivejobs.Names {
			syscall.Sync() // earlier runs' dirty pages are not this run's work
			r, err := child(job, name, path, work)
			if err != nil {
				return res, err
			}
			res.runs[name] = append(res.runs[name], r)
		}
	}
	return res, nil
}

func backupPath(dir string, n int) string {
	return filepath.Join(dir, fmt.Sprintf("backup-%d-seed%d.tar.gz", n, seed))
}

// ensureBackup writes the backup at path unless it is there (workload.Cached).
func ensureBackup(path string, n int) (workload.BackupInfo, error) {
	return workload.Cached(path, nil, func(w io.Writer) (workload.BackupInfo, error) { return workload.WriteBackup(w, n, seed) })
}

// child runs one archive job in a child process and adds its peak RSS.
func child(job, name, path, work string) (measure.Run, error) {
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(context.Background(), job, "-job", name, "-backup", path, "-dir", work)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return measure.Run{}, fmt.Errorf("archivejob %s on %s: %w: %s", name, path, err, errb.String())
	}
	var r measure.Run
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return r, fmt.Errorf("archivejob %s: %w", name, err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && r.MaxRSSKB == 0 {
		r.MaxRSSKB = ru.Maxrss // kilobytes on Linux; includes the parent's RSS at fork (vfork)
	}
	return r, nil
}

// orderRuns runs the order module's command for tool on n objects, runs times, in one
// child process.
func orderRuns(job, tool string, n, runs int) ([]measure.Run, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command(job, "-tool", tool, "-n", fmt.Sprint(n), "-runs", fmt.Sprint(runs))
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("order %s %d: %w: %s", tool, n, err, errb.String())
	}
	var rs []measure.Run
	dec := json.NewDecoder(&out)
	for {
		var r measure.Run
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("order %s %d: %w", tool, n, err)
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// statusResult is every run of both status tools.
type statusResult struct {
	n    int
	runs map[string][]measure.Run
}

// webhookResult is every run of both webhooks on reviews of n objects.
type webhookResult struct {
	n, reviews, bodyBytes int
	runs                  map[string][]measure.Run
}

// orderResult is the runs of one ordering tool on n objects.
type orderResult struct {
	tool string
	n    int
	runs []measure.Run
}
