package restorejobs

import (
	"context"
	"os/exec"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
)

// childRun is what measureChild measured of one child process against one cluster.
type childRun struct {
	wall, client, server, maxRSSKB int64
	requests                       Verbs
	err                            error // the child's exit error, if any
}

// measureChild lets the API server at cfg settle, runs cmd to its end, and measures it:
// wall time, the child's CPU (rusage) and peak RSS, kube-apiserver's (pid apiPID) CPU, and
// the API server's requests per verb over the run. The error is for what keeps the
// measurement from happening; the child's own failure is childRun.err.
func measureChild(ctx context.Context, cfg *rest.Config, apiPID int, cmd *exec.Cmd) (childRun, error) {
	var res childRun
	httpc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return res, err
	}
	defer httpc.CloseIdleConnections()
	before, err := settle(ctx, httpc, cfg.Host)
	if err != nil {
		return res, err
	}
	cpuBefore, err := processCPU(apiPID)
	if err != nil {
		return res, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return res, err
	}
	peak := watchPeakRSS(cmd.Process.Pid)
	res.err = cmd.Wait()
	res.wall = time.Since(start).Nanoseconds()
	res.maxRSSKB = peak()
	cpuAfter, err := processCPU(apiPID)
	if err != nil {
		return res, err
	}
	res.server = cpuAfter - cpuBefore
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.client = ru.Utime.Nano() + ru.Stime.Nano()
	}
	time.Sleep(100 * time.Millisecond) // the child's watches end as it exits; let the server count them
	after, err := scrapeRequests(ctx, httpc, cfg.Host)
	if err != nil {
		return res, err
	}
	res.requests = Verbs{}
	for verb, n := range after {
		if d := n - before[verb]; d > 0 {
			res.requests[verb] = d
		}
	}
	res.requests["GET"] -= scrapeRequestsSeen // the scrape before the run
	if res.requests["GET"] <= 0 {
		delete(res.requests, "GET")
	}
	return res, nil
}
