//go:build unix

package archive_test

import (
	"archive/tar"
	"bytes"
	stdgzip "compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/backupkit/backupkit/archive"
)

// benchResource is one resource of the generated backups: its directory name, versions
// (preferred first) and scope.
type benchResource struct {
	dir      string
	versions []string
	cluster  bool
}

// benchResources: 40 resources, built-in and CRD groups with 2-3 versions.
var benchResources = func() []benchResource {
	var out []benchResource
	for _, r := range strings.Fields("pods services configmaps secrets serviceaccounts persistentvolumeclaims endpoints events limitranges resourcequotas replicationcontrollers") {
		out = append(out, benchResource{dir: r, versions: []string{"v1"}})
	}
	for _, r := range strings.Fields("namespaces nodes persistentvolumes") {
		out = append(out, benchResource{dir: r, versions: []string{"v1"}, cluster: true})
	}
	for _, r := range strings.Fields("deployments.apps replicasets.apps statefulsets.apps daemonsets.apps controllerrevisions.apps jobs.batch cronjobs.batch roles.rbac.authorization.k8s.io rolebindings.rbac.authorization.k8s.io ingresses.networking.k8s.io networkpolicies.networking.k8s.io poddisruptionbudgets.policy endpointslices.discovery.k8s.io leases.coordination.k8s.io") {
		out = append(out, benchResource{dir: r, versions: []string{"v1"}})
	}
	for _, r := range strings.Fields("clusterroles.rbac.authorization.k8s.io clusterrolebindings.rbac.authorization.k8s.io storageclasses.storage.k8s.io customresourcedefinitions.apiextensions.k8s.io priorityclasses.scheduling.k8s.io") {
		out = append(out, benchResource{dir: r, versions: []string{"v1"}, cluster: true})
	}
	out = append(out,
		benchResource{dir: "horizontalpodautoscalers.autoscaling", versions: []string{"v2", "v1"}},
		benchResource{dir: "widgets.example.com", versions: []string{"v1", "v1beta1", "v1alpha1"}},
		benchResource{dir: "gadgets.example.com", versions: []string{"v2", "v1"}},
		benchResource{dir: "certificates.cert-manager.io", versions: []string{"v1", "v1alpha2"}},
		benchResource{dir: "backups.velero.io", versions: []string{"v1"}},
		benchResource{dir: "restores.velero.io", versions: []string{"v1"}},
		benchResource{dir: "policies.kyverno.io", versions: []string{"v2beta1", "v1", "v1alpha1"}},
	)
	return out
}()

var benchWords = strings.Fields("app web api backend frontend cache worker queue db primary replica metrics logging " +
	"ingress egress tls cert secret config volume mount path image registry tag latest stable canary region zone " +
	"cpu memory limit request port protocol tcp udp http https grpc health ready live probe timeout")

// benchObject returns one realistic object of 1-4 KB.
func benchObject(rng *rand.Rand, r benchResource, version, ns, name, uid string) []byte {
	resource, group, _ := strings.Cut(r.dir, ".")
	apiVersion := version
	if group != "" {
		apiVersion = group + "/" + version
	}
	word := func() string { return benchWords[rng.IntN(len(benchWords))] }
	hex := func(n int) string {
		const digits = "0123456789abcdef"
		b := make([]byte, n)
		for i := range b {
			b[i] = digits[rng.IntN(16)]
		}
		return string(b)
	}
	md := map[string]any{
		"name": name, "uid": uid, "resourceVersion": fmt.Sprint(rng.IntN(1 << 24)),
		"creationTimestamp": "2026-01-02T03:04:05Z",
		"labels":            map[string]string{"app": word() + "-" + word(), "tier": word(), "release": "r" + fmt.Sprint(rng.IntN(9))},
		"annotations":       map[string]string{"checksum/config": hex(64)},
	}
	if ns != "" {
		md["namespace"] = ns
	}
	if rng.IntN(3) == 0 {
		md["ownerReferences"] = []map[string]any{{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": name + "-rs", "uid": hex(8) + "-" + hex(4) + "-" + hex(4) + "-" + hex(4) + "-" + hex(12), "controller": true}}
	}
	spec := map[string]any{}
	target := 700 + rng.IntN(3000)
	for i := 0; i < target/40; i++ {
		var v string
		if rng.IntN(4) == 0 {
			v = hex(8 + rng.IntN(24))
		} else {
			v = word() + "-" + word() + "-" + word()
		}
		spec[fmt.Sprintf("%s%d", word(), i)] = v
	}
	obj := map[string]any{"apiVersion": apiVersion, "kind": strings.ToUpper(resource[:1]) + resource[1:len(resource)-1], "metadata": md, "spec": spec}
	b, _ := json.Marshal(obj)
	return b
}

// writeBenchBackup writes a backup of about n item files to w.
func writeBenchBackup(w io.Writer, n int) error {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	bw := archive.NewWriter(w)
	for _, r := range benchResources {
		if err := bw.SetPreferred(r.dir, r.versions[0]); err != nil {
			return err
		}
	}
	files := 0
	for i := 0; files < n; i++ {
		r := benchResources[rng.IntN(len(benchResources))]
		ns := ""
		if !r.cluster {
			ns = fmt.Sprintf("ns-%d", rng.IntN(50))
		}
		name := fmt.Sprintf("%s-%d", benchWords[rng.IntN(len(benchWords))], i)
		uid := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		for _, v := range r.versions {
			if err := bw.Add(r.dir, v, ns, name, benchObject(rng, r, v, ns, name, uid)); err != nil {
				return err
			}
		}
		files += len(r.versions) + 1
	}
	return bw.Close()
}

var benchFiles = struct {
	sync.Mutex
	dir   string
	paths map[int]string
}{paths: map[int]string{}}

// benchBackup returns the generated backup of about n items, written once per test binary
// run to a temporary file (removed by TestMain).
func benchBackup(b *testing.B, n int) []byte {
	b.Helper()
	benchFiles.Lock()
	defer benchFiles.Unlock()
	p, ok := benchFiles.paths[n]
	if !ok {
		if benchFiles.dir == "" {
			d, err := os.MkdirTemp("", "archive-bench")
			if err != nil {
				b.Fatal(err)
			}
			benchFiles.dir = d
		}
		p = filepath.Join(benchFiles.dir, fmt.Sprintf("backup-%d.tar.gz", n))
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		if err := writeBenchBackup(f, n); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		benchFiles.paths[n] = p
	}
	data, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchFiles.dir != "" {
		_ = os.RemoveAll(benchFiles.dir)
	}
	os.Exit(code)
}

var benchSizes = []int{10_000, 100_000}

// forSizes runs fn per backup size with b.SetBytes set to the compressed size.
func forSizes(b *testing.B, fn func(b *testing.B, data []byte)) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			data := benchBackup(b, n)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			fn(b, data)
		})
	}
}

// cpuTime returns the CPU time (user and system) this process has used so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loopCPU runs fn in a b.Loop and reports the process CPU time per operation as well, which
// other processes on a shared machine disturb less than wall time.
func loopCPU(b *testing.B, fn func()) {
	start := cpuTime(b)
	for b.Loop() {
		fn()
	}
	b.ReportMetric(float64((cpuTime(b)-start).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// BenchmarkFloor is the floor: the standard library's gzip and tar reading every entry and
// discarding the bytes.
func BenchmarkFloor(b *testing.B) {
	forSizes(b, func(b *testing.B, data []byte) {
		loopCPU(b, func() {
			zr, err := stdgzip.NewReader(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			tr := tar.NewReader(zr)
			for {
				_, err := tr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, tr); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// retainedMB returns the heap still held by what fn returns, in MB.
func retainedMB(fn func() any) float64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	keep := fn()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(keep)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
}

func benchScan(b *testing.B, opts ...archive.Option) {
	forSizes(b, func(b *testing.B, data []byte) {
		scan := func() any {
			idx, err := archive.Scan(context.Background(), bytes.NewReader(data), opts...)
			if err != nil {
				b.Fatal(err)
			}
			return idx
		}
		retained := retainedMB(scan)
		loopCPU(b, func() { scan() })
		b.ReportMetric(retained, "retained-MB")
	})
}

// BenchmarkScan is the streaming index: paths, coordinates and group versions.
func BenchmarkScan(b *testing.B) { benchScan(b) }

// BenchmarkScanMetadata adds each item's metadata (a JSON decode per item).
func BenchmarkScanMetadata(b *testing.B) { benchScan(b, archive.WithMetadata()) }

// BenchmarkScanManifest builds the manifest in the same pass.
func BenchmarkScanManifest(b *testing.B) { benchScan(b, archive.WithManifest()) }

// BenchmarkScanStoredManifest: the manifest Writer stored, checked by path, no item decoded.
func BenchmarkScanStoredManifest(b *testing.B) { benchScan(b, archive.WithStoredManifest()) }

func BenchmarkExtract(b *testing.B) {
	forSizes(b, func(b *testing.B, data []byte) {
		parent := b.TempDir()
		i := 0
		for b.Loop() {
			dest := filepath.Join(parent, fmt.Sprint(i))
			i++
			if err := os.Mkdir(dest, 0o700); err != nil {
				b.Fatal(err)
			}
			if err := archive.Extract(context.Background(), bytes.NewReader(data), dest); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if err := os.RemoveAll(dest); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
}

// BenchmarkOpen reads what GroupVersions needs of an extracted backup, no item listing
// (SetBytes: the compressed size).
func BenchmarkOpen(b *testing.B) { benchOpen(b, false) }

// BenchmarkOpenListed also reads the item listing (Problems), as Open did before it was read
// on first use.
func BenchmarkOpenListed(b *testing.B) { benchOpen(b, true) }

func benchOpen(b *testing.B, listed bool) {
	forSizes(b, func(b *testing.B, data []byte) {
		dest := b.TempDir()
		if err := archive.Extract(context.Background(), bytes.NewReader(data), dest); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for b.Loop() {
			bk, err := archive.Open(os.DirFS(dest))
			if err != nil {
				b.Fatal(err)
			}
			if listed {
				if _, err := bk.Problems(); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
