package manifest_test

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/backupkit/backupkit/manifest"
	"k8s.io/apimachinery/pkg/types"
)

// configMapItem builds the k-th item of a Velero backup of ConfigMaps as a reader of the
// tarball makes it: the resource a substring of the item's tar path, the version a
// substring of its own apiVersion, kind, namespace, name and uid strings of its own (a
// JSON decoder allocates each), a label on every other item when labels is set.
func configMapItem(k int, labels bool) *manifest.Item {
	ns := "ns-" + strconv.Itoa(k%50)
	name := "config-" + strconv.Itoa(k)
	path := "resources/configmaps/namespaces/" + ns + "/" + name + ".json"
	apiVersion := strings.Clone("v1")
	uid := "00000000-0000-0000-0000-" + strconv.FormatInt(1e11+int64(k), 10)
	it := &manifest.Item{
		Version: apiVersion, Resource: path[len("resources/") : len("resources/")+len("configmaps")],
		Kind: strings.Clone("ConfigMap"), Namespace: strings.Clone(ns), Name: name, UID: types.UID(uid),
	}
	if labels && k%2 == 0 {
		it.Labels = map[string]string{"app": "app-" + strconv.Itoa(k%20)}
	}
	return it
}

// retainedPerItem builds a manifest of n ConfigMap items, each also captured in a second
// version (as archive.Scan records the version-directory copy), and returns the heap it
// retains per item: the items with their strings and maps, and the manifest's own tables.
func retainedPerItem(tb testing.TB, n int, labels bool) float64 {
	tb.Helper()
	before := heapAlloc()
	m := manifest.New()
	for k := range n {
		it := configMapItem(k, labels)
		if err := m.Add(it); err != nil {
			tb.Fatal(err)
		}
		if _, err := m.AddVersion(it.UID, strings.Clone("v1beta1")); err != nil {
			tb.Fatal(err)
		}
	}
	after := heapAlloc()
	runtime.KeepAlive(m)
	return float64(int64(after)-int64(before)) / float64(n)
}

func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkRetained reports the heap a manifest of ConfigMaps retains per item, its
// Items included: B/item. The name (about 12 bytes) and uid (36) of each item are part
// of the figure.
func BenchmarkRetained(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		for _, labels := range []bool{false, true} {
			b.Run(strconv.Itoa(n)+"/labels="+strconv.FormatBool(labels), func(b *testing.B) {
				if n >= 1_000_000 && testing.Short() {
					b.Skip("1,000,000 items skipped under -short")
				}
				var sum float64
				for b.Loop() {
					sum += retainedPerItem(b, n, labels)
				}
				b.ReportMetric(sum/float64(b.N), "B/item")
			})
		}
	}
}

// TestAddKeepsNoBufferAlive: an item whose name and UID are cut from a large document (as a
// decoder may hand them in) keeps none of the document once added: Add copies them into
// the manifest's shared buffers.
func TestAddKeepsNoBufferAlive(t *testing.T) {
	const n, docBytes = 50, 1 << 20
	before := heapAlloc()
	m := manifest.New()
	for k := range n {
		doc := strings.Repeat("x", docBytes) + "name-" + strconv.Itoa(k) + "uid-" + strconv.Itoa(k)
		name := doc[docBytes : docBytes+len("name-")+len(strconv.Itoa(k))]
		uid := doc[docBytes+len(name):]
		it := &manifest.Item{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespace: "ns", Name: name, UID: types.UID(uid)}
		if err := m.Add(it); err != nil {
			t.Fatal(err)
		}
		if it.Name != name || string(it.UID) != uid {
			t.Fatalf("item %d: name %q uid %q after Add, want %q %q", k, it.Name, it.UID, name, uid)
		}
	}
	retained := int64(heapAlloc()) - int64(before)
	runtime.KeepAlive(m)
	if retained > n*docBytes/10 {
		t.Fatalf("%d items retain %d bytes: the documents their names were cut from are alive", n, retained)
	}
}
