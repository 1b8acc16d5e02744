package readiness_test

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/readiness"
)

// mixedObjects returns n objects of ten kinds in several states, decoded from JSON as a
// client decodes them.
func mixedObjects(b *testing.B, n int) []*unstructured.Unstructured {
	templates := []string{
		`{` + deployHead + `,"spec":{"replicas":3},"status":{"observedGeneration":2,"replicas":3,"updatedReplicas":3,"readyReplicas":%d,"availableReplicas":3,"conditions":[{"type":"Available","status":"True","reason":"MinimumReplicasAvailable","message":"Deployment has minimum availability."},{"type":"Progressing","status":"True","reason":"NewReplicaSetAvailable","message":"ReplicaSet has successfully progressed."}]}}`,
		`{` + podHead + `,"spec":{"containers":[{"name":"app","image":"nginx"}]},"status":{"phase":"Running","conditions":[{"type":"Initialized","status":"True"},{"type":"Ready","status":"True"},{"type":"ContainersReady","status":"True"},{"type":"PodScheduled","status":"True"}],"containerStatuses":[{"name":"app","ready":true,"restartCount":%d,"state":{"running":{"startedAt":"2026-11-22T11:00:00Z"}}}]}}`,
		`{` + stsHead + `,"spec":{"replicas":3,"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":0}}},"status":{"observedGeneration":1,"replicas":3,"readyReplicas":%d,"availableReplicas":3,"currentReplicas":3,"updatedReplicas":3,"currentRevision":"db-1","updateRevision":"db-1"}}`,
		`{` + svcHead + `,"spec":{"type":"LoadBalancer","ports":[{"port":%d}]},"status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.7"}]}}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%d","namespace":"shop"},"data":{"a":"b"}}`,
		`{` + jobHead + `,"spec":{"completions":1},"status":{"succeeded":%d,"conditions":[{"type":"Complete","status":"True"}]}}`,
		`{` + crdHead + `,"status":{"conditions":[{"type":"NamesAccepted","status":"True","reason":"NoConflicts"},{"type":"Established","status":"True","reason":"InitialNamesAccepted"}],"storedVersions":["v%d"]}}`,
		`{` + pvcHead + `,"spec":{"resources":{"requests":{"storage":"%dGi"}}},"status":{"phase":"Bound"}}`,
		`{` + widgetHead + `,"spec":{"size":%d},"status":{"observedGeneration":3,"conditions":[{"type":"Ready","status":"True"}]}}`,
		`{` + dsHead + `,"status":{"observedGeneration":1,"desiredNumberScheduled":3,"currentNumberScheduled":3,"numberReady":%d,"numberAvailable":3,"updatedNumberScheduled":3}}`,
	}
	out := make([]*unstructured.Unstructured, n)
	for i := range out {
		out[i] = obj(b, fmt.Sprintf(templates[i%len(templates)], 1+i%4))
	}
	return out
}

// BenchmarkCompute: one op is a pass over n mixed objects; the per-object figures are
// reported as ns/object, cpu-ns/object and allocs/object. n=100000 is the figure of record
// (its maps do not fit in cache); n=1000 shows the cost when they do.
func BenchmarkCompute(b *testing.B) {
	for _, n := range []int{100_000, 1_000} {
		b.Run(fmt.Sprint("objects=", n), func(b *testing.B) {
			objs := mixedObjects(b, n)
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			cpu0 := cpuTime()
			passes := 0
			b.ResetTimer()
			for b.Loop() {
				for _, u := range objs {
					_ = readiness.Compute(u)
				}
				passes++
			}
			b.StopTimer()
			cpu := cpuTime() - cpu0
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(passes*n), "cpu-ns/object")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(passes*n), "ns/object")
			b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(passes*n), "allocs/object")
		})
	}
}

// cpuTime is the process's user+system CPU time: on a shared machine wall time overstates
// the cost, CPU time does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
