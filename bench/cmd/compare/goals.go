package main

import (
	"bytes"
	"fmt"

	"github.com/backupkit/backupkit/bench/internal/archivejobs"
	"github.com/backupkit/backupkit/bench/internal/measure"
	"github.com/backupkit/backupkit/bench/internal/suite"
)

// largest returns the archive result of the largest backup on fs.
func (r *report) largest(fs string) *archiveResult {
	var best *archiveResult
	for i := range r.archive {
		a := &r.archive[i]
		if a.fs == fs && (best == nil || a.entries > best.entries) {
			best = a
		}
	}
	return best
}

func (r *report) goals(b *bytes.Buffer) {
	var gs []measure.Goal
	tm, dk := r.largest("tmpfs"), r.largest("disk")
	if tm != nil {
		fl := median(tm.runs[archivejobs.Floor], nanos)
		bk := median(tm.runs[archivejobs.BackupkitScan], nanos)
		v := median(tm.runs[archivejobs.VeleroRead], readTime)
		gs = append(gs,
			measure.NewGoal(fmt.Sprintf("read %d entries, tmpfs", tm.entries), "≤ 1.3× floor, nothing on disk", fmt.Sprintf("%.2f× floor (%s vs %s), 0 bytes on disk", bk/fl, dur(bk), dur(fl)), bk/fl <= 1.3),
			measure.NewGoal(fmt.Sprintf("read %d entries, tmpfs", tm.entries), "≥ 5× Velero", fmt.Sprintf("%.1f× (Velero %s)", v/bk, dur(v)), v/bk >= 5))
	}
	if dk != nil {
		bk := median(dk.runs[archivejobs.BackupkitScan], nanos)
		v := median(dk.runs[archivejobs.VeleroRead], readTime)
		del := median(dk.runs[archivejobs.VeleroRead], phase("delete"))
		inf := median(dk.runs[archivejobs.Inflate], nanos)
		gs = append(gs, measure.NewGoal(fmt.Sprintf("read %d entries, disk", dk.entries), "≥ 40× Velero",
			fmt.Sprintf("%.1f× (Velero %s, +%s to delete); inflating alone, without reading the tar, is %.1f× (%s)", v/bk, dur(v), dur(del), v/inf, dur(inf)), v/bk >= 40))
	}
	for _, a := range []*archiveResult{tm, dk} {
		if a == nil {
			continue
		}
		bk := median(a.runs[archivejobs.BackupkitXtrct], phase("extract"))
		v := median(a.runs[archivejobs.VeleroRead], phase("extract"))
		gs = append(gs, measure.NewGoal(fmt.Sprintf("extract %d entries, %s", a.entries, a.fs), "no slower than Velero, every check on", fmt.Sprintf("%s vs Velero %s (%.2f×)", dur(bk), dur(v), bk/v), bk <= v))
	}
	if s := r.status; s != nil {
		k, bk := s.runs[suite.KStatus], s.runs[suite.Backupkit]
		t := median(bk, nanos) / median(k, nanos)
		a := median(bk, mallocs) / median(k, mallocs)
		n := float64(s.n)
		gs = append(gs, measure.NewGoal(fmt.Sprintf("status of %d objects", s.n), "≤ 0.25× kstatus time and allocations",
			fmt.Sprintf("%.2f× time (%s vs %s per object), %.2f× allocs (%.1f vs %.1f per object)", t, dur(median(bk, nanos)/n), dur(median(k, nanos)/n),
				a, median(bk, mallocs)/n, median(k, mallocs)/n), t <= 0.25 && a <= 0.25))
	}
	for _, w := range r.webhook {
		if w.n != 1000 {
			continue
		}
		cr, bk := w.runs[suite.Controller], w.runs[suite.Backupkit]
		speed := median(cr, nanos) / median(bk, nanos)
		bytesRatio := median(bk, allocs) / median(cr, allocs)
		gs = append(gs, measure.NewGoal("ConversionReview of 1,000 objects", "≥ 4× objects per second, ≤ 0.3× bytes",
			fmt.Sprintf("%.2f× objects/s, %.2f× bytes", speed, bytesRatio), speed >= 4 && bytesRatio <= 0.3))
	}
	var cu10, bk10, bk1m []float64
	for _, o := range r.order {
		switch {
		case o.tool == "cli-utils" && o.n == 10_000:
			cu10 = []float64{median(o.runs, nanos)}
		case o.tool == "backupkit" && o.n == 10_000:
			bk10 = []float64{median(o.runs, nanos)}
		case o.tool == "backupkit" && o.n == 1_000_000:
			bk1m = []float64{median(o.runs, nanos), median(o.runs, allocs) / float64(o.n), median(o.runs, phase("waves")), float64(o.n)}
		}
	}
	if cu10 != nil && bk10 != nil {
		gs = append(gs, measure.NewGoal("order 10,000 objects", "≥ 100× cli-utils SortObjs", fmt.Sprintf("%.0f× (%s vs %s)", cu10[0]/bk10[0], dur(bk10[0]), dur(cu10[0])), cu10[0]/bk10[0] >= 100))
	}
	if bk1m != nil {
		gs = append(gs, measure.NewGoal("order 1,000,000 objects", "< 2 s, < 400 B per item",
			fmt.Sprintf("%s (Waves alone %s), %.0f B per item", dur(bk1m[0]), dur(bk1m[2]), bk1m[1]), bk1m[0] < 2e9 && bk1m[1] < 400))
	}
	measure.WriteGoals(b, "## Goals of issue 10, judged on this run", "", gs)
}
