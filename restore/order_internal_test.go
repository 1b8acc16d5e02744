package restore

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stesting "k8s.io/client-go/testing"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/archive"
)

// orderItem is one object of a backup written by orderedBackup.
type orderItem struct{ resource, apiVersion, kind, ns, name string }

// path is the item as the creates name it: resource, namespace, name.
func (o orderItem) path() string {
	return strings.SplitN(o.resource, ".", 2)[0] + "/" + o.ns + "/" + o.name
}

// orderedBackup writes items with archive.Writer in the order given, each of about 1 KB,
// and its sibling manifest.
func orderedBackup(t testing.TB, items []orderItem) (tarball, sibling []byte) {
	t.Helper()
	var buf, sib bytes.Buffer
	w := archive.NewWriter(&buf)
	for _, res := range []string{"namespaces", "configmaps", "secrets", "serviceaccounts", "clusterroles.rbac.authorization.k8s.io", "rolebindings.rbac.authorization.k8s.io", "priorityclasses.scheduling.k8s.io"} {
		require.NoError(t, w.SetPreferred(res, "v1"))
	}
	filler := strings.Repeat("x", 900)
	for k, it := range items {
		meta := fmt.Sprintf(`"name":%q,"uid":"uid-%d"`, it.name, k)
		if it.ns != "" {
			meta += fmt.Sprintf(`,"namespace":%q`, it.ns)
		}
		data := fmt.Appendf(nil, `{"apiVersion":%q,"kind":%q,"metadata":{%s},"metadata2":%q}`, it.apiVersion, it.kind, meta, filler)
		if it.kind == "ConfigMap" || it.kind == "Secret" {
			data = fmt.Appendf(nil, `{"apiVersion":%q,"kind":%q,"metadata":{%s},"data":{"k":%q}}`, it.apiVersion, it.kind, meta, filler)
		}
		require.NoError(t, w.Add(it.resource, "v1", it.ns, it.name, data))
	}
	require.NoError(t, w.Close())
	require.NoError(t, w.WriteSibling(&sib))
	return buf.Bytes(), sib.Bytes()
}

func nsItem(ns string) orderItem { return orderItem{"namespaces", "v1", "Namespace", "", ns} }
func cmItem(ns string, k int) orderItem {
	return orderItem{"configmaps", "v1", "ConfigMap", ns, fmt.Sprintf("cm-%03d", k)}
}

// byNamespace: the namespaces, then each namespace's ConfigMaps one namespace after the
// other. roundRobin: the namespaces, then the ConfigMaps one of each namespace in turn.
func byNamespace(nss, per int) []orderItem {
	var out []orderItem
	for n := range nss {
		out = append(out, nsItem(fmt.Sprintf("ns-%02d", n)))
	}
	for n := range nss {
		for k := range per {
			out = append(out, cmItem(fmt.Sprintf("ns-%02d", n), k))
		}
	}
	return out
}

func roundRobin(nss, per int) []orderItem {
	var out []orderItem
	for n := range nss {
		out = append(out, nsItem(fmt.Sprintf("ns-%02d", n)))
	}
	for k := range per {
		for n := range nss {
			out = append(out, cmItem(fmt.Sprintf("ns-%02d", n), k))
		}
	}
	return out
}

// veleroOrder is the order Velero's backup writes in: the core group's resources in
// alphabetical order (configmaps, namespaces, secrets, serviceaccounts), then the other
// groups' (rbac.authorization.k8s.io, scheduling.k8s.io), each resource's items namespace
// by namespace; the restore wants the namespaces, cluster roles and service accounts
// before the rest, so the walk asks for items far behind what the read has passed.
func veleroOrder(nss, per int) []orderItem {
	var cms, namespaces, secrets, sas, roles, bindings, prios []orderItem
	for n := range nss {
		ns := fmt.Sprintf("ns-%02d", n)
		namespaces = append(namespaces, nsItem(ns))
		for k := range per {
			cms = append(cms, cmItem(ns, k))
		}
		secrets = append(secrets, orderItem{"secrets", "v1", "Secret", ns, "s"})
		sas = append(sas, orderItem{"serviceaccounts", "v1", "ServiceAccount", ns, "sa"})
		bindings = append(bindings, orderItem{"rolebindings.rbac.authorization.k8s.io", "rbac.authorization.k8s.io/v1", "RoleBinding", ns, "rb"})
		roles = append(roles, orderItem{"clusterroles.rbac.authorization.k8s.io", "rbac.authorization.k8s.io/v1", "ClusterRole", "", "role-" + ns})
		prios = append(prios, orderItem{"priorityclasses.scheduling.k8s.io", "scheduling.k8s.io/v1", "PriorityClass", "", "prio-" + ns})
	}
	var out []orderItem
	for _, part := range [][]orderItem{cms, namespaces, secrets, sas, roles, bindings, prios} {
		out = append(out, part...)
	}
	return out
}

var orderTarget = []metav1.APIGroup{group("", "v1", "v1"), group("rbac.authorization.k8s.io", "v1", "v1"), group("scheduling.k8s.io", "v1", "v1")}

// orderRun restores items written in their order, the plan read from the tarball or from
// the sibling manifest, with the stream's read-ahead and cap at readAhead and held bytes,
// and checks that every item was created exactly once. It returns the summary and the
// stream once over.
func orderRun(t testing.TB, items []orderItem, fromSibling bool, parallel int, readAhead, held int64) (*Summary, *itemStream) {
	t.Helper()
	tarball, sib := orderedBackup(t, items)
	var opts []PlanOption
	if fromSibling {
		opts = append(opts, WithSiblingManifest(FromBytes(sib)))
	}
	plan, err := NewPlan(t.Context(), FromBytes(tarball), orderTarget, opts...)
	require.NoError(t, err)
	require.Equal(t, len(items), plan.Restorable())
	c, dyn := fakeCluster(t.(*testing.T))
	var stream *itemStream
	sum, err := Run(t.Context(), plan, c, WithParallelism(parallel), func(c *runConfig) {
		c.readAhead, c.heldCap, c.streamOver = readAhead, held, func(s *itemStream) { stream = s }
	})
	require.NoError(t, err)
	require.Equal(t, map[Result]int{ResultCreated: len(items)}, sum.Counts)
	created := map[string]int{}
	for _, a := range dyn.Actions() {
		if ca, ok := a.(k8stesting.CreateAction); ok && a.GetSubresource() == "" {
			created[a.GetResource().Resource+"/"+a.GetNamespace()+"/"+ca.GetObject().(interface{ GetName() string }).GetName()]++
		}
	}
	want := map[string]int{}
	for _, it := range items {
		want[it.path()] = 1
	}
	require.Equal(t, want, created, "every item created exactly once")
	return sum, stream
}

// Whatever order the backup was written in, the restore creates every item once and the
// second pass holds at most its cap (or its read-ahead, the larger) plus the items the
// workers wait for; a backup whose order the walk can follow (namespace by namespace,
// round-robin across namespaces, the plan read from the tarball) is read in one pass, one
// in Velero's order in a few.
func TestRunMemoryWhateverTheBackupOrder(t *testing.T) {
	const (
		nss, per  = 50, 4
		parallel  = 4
		readAhead = 8 << 10
		held      = 16 << 10
		largest   = 1 << 10
	)
	tests := []struct {
		name        string
		items       []orderItem
		fromSibling bool
		maxPasses   int // 0: any
	}{
		{"namespace by namespace", byNamespace(nss, per), false, 1},
		{"round-robin across namespaces", roundRobin(nss, per), false, 1},
		// At most a pass per resource the restore's order puts before one the backup holds
		// earlier: seven resources.
		{"Velero's order", veleroOrder(nss, per), false, 7},
		// The sibling's manifest is in String order (namespace by namespace), and so the
		// walk: about a pass per namespace, in bounded memory.
		{"round-robin, planned from the sibling manifest (String order)", roundRobin(nss, per), true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum, s := orderRun(t, tt.items, tt.fromSibling, parallel, readAhead, held)
			t.Logf("%d passes, held at most %d bytes", sum.Passes, s.highWater)
			require.LessOrEqual(t, s.highWater, int64(max(readAhead, held)+(parallel+1)*largest))
			require.Equal(t, s.passesMade(), sum.Passes)
			if tt.maxPasses > 0 {
				require.LessOrEqual(t, sum.Passes, tt.maxPasses)
			}
		})
	}
}

// Over random orders of a backup (the namespaces anywhere), the same holds: every item
// created once, the stream's holding bounded.
func TestPropertyRunMemoryAnyOrder(t *testing.T) {
	const (
		parallel  = 3
		readAhead = 4 << 10
		held      = 6 << 10
		largest   = 1 << 10
	)
	tt := t
	rapid.Check(t, func(t *rapid.T) {
		nss := rapid.IntRange(1, 5).Draw(t, "namespaces")
		per := rapid.IntRange(0, 4).Draw(t, "per namespace")
		items := rapid.Permutation(veleroOrder(nss, per)).Draw(t, "order")
		sum, s := orderRun(tt, items, rapid.Bool().Draw(t, "from sibling"), parallel, readAhead, held)
		require.LessOrEqual(t, s.highWater, int64(max(readAhead, held)+(parallel+1)*largest))
		require.GreaterOrEqual(t, sum.Passes, 1)
	})
}
