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
	if err := res.run(cmd); err != nil {
		return res, err
	}
	cpuAfter, err := processCPU(apiPID)
	if err != nil {
		return res, err
	}
	res.server = cpuAfter - cpuBefore
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

// run runs cmd to its end and measures it: wall time, CPU (rusage) and peak RSS; the
// child's exit error is r.err. The error is cmd's failure to start.
func (r *childRun) run(cmd *exec.Cmd) error {
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	peak := watchPeakRSS(cmd.Process.Pid)
	r.err = cmd.Wait()
	r.wall = time.Since(start).Nanoseconds()
	r.maxRSSKB = peak()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.client = ru.Utime.Nano() + ru.Stime.Nano()
	}
	return nil
}

// childContext bounds a child process by timeout; zero or less: one hour.
func childContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		timeout = time.Hour
	}
	return context.WithTimeout(ctx, timeout)
}
