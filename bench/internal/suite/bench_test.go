package suite_test

import (
	"fmt"
	"testing"

	"github.com/backupkit/backupkit/bench/internal/suite"
	"github.com/backupkit/backupkit/bench/internal/workload"
)

// BenchmarkStatus computes the status of 10,000 mixed objects per op, for profiling
// (go test -bench Status -cpuprofile); cmd/compare gives the side-by-side figures.
func BenchmarkStatus(b *testing.B) {
	objs := workload.StatusObjects(10_000, 1)
	for _, tool := range []string{suite.KStatus, suite.Backupkit} {
		b.Run(tool, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := suite.StatusCounts(tool, objs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWebhook posts one ConversionReview per op.
func BenchmarkWebhook(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		body, err := workload.Review(n, 1)
		if err != nil {
			b.Fatal(err)
		}
		for _, tool := range []string{suite.Controller, suite.Backupkit, suite.BackupkitUnstructured} {
			b.Run(fmt.Sprintf("%s/objects=%d", tool, n), func(b *testing.B) {
				h, err := suite.Handler(tool)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.SetBytes(int64(len(body)))
				for b.Loop() {
					if _, err := suite.Serve(h, body); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
