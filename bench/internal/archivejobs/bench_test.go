package archivejobs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/backupkit/backupkit/bench/internal/archivejobs"
	"github.com/backupkit/backupkit/bench/internal/workload"
)

// BenchmarkJobs runs each archive job in process, for profiling (go test -bench Jobs
// -cpuprofile). BENCH_BACKUP names a backup to use; by default one of 2,000 entries is
// generated. cmd/compare gives the side-by-side figures, one child process per run.
func BenchmarkJobs(b *testing.B) {
	path := os.Getenv("BENCH_BACKUP")
	dir := b.TempDir()
	if path == "" {
		path = filepath.Join(dir, "backup.tar.gz")
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := workload.WriteBackup(f, 2000, 1); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
	for _, job := range archivejobs.Names {
		b.Run(job, func(b *testing.B) {
			for b.Loop() {
				if _, err := archivejobs.Run(context.Background(), job, path, dir); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
