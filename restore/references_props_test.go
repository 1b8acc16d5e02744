package restore

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/internal/kinds"
	"github.com/backupkit/backupkit/internal/references"
	"github.com/backupkit/backupkit/manifest"
)

// A slot is a place in an object where a reference can be written: the object at path at
// ("[]" appends a new element to the list before it) gets the name under key, the fields
// of extra, and, with nsKey, a namespace. The target is of resource gr, in the
// referrer's namespace (local), cluster-scoped (cluster), or in the namespace written
// (nsKey; an empty one means the referrer's when emptyLocal, no reference otherwise).
type slot struct {
	at         []string
	key        string
	extra      map[string]any
	gr         schema.GroupResource
	cluster    bool
	nsKey      string
	emptyLocal bool
}

func (s slot) list() bool { return slices.Contains(s.at, "[]") }

var podSlots = []slot{
	{at: []string{"volumes", "[]", "configMap"}, key: "name", gr: kinds.ConfigMaps},
	{at: []string{"volumes", "[]", "secret"}, key: "secretName", gr: kinds.Secrets},
	{at: []string{"volumes", "[]", "projected", "sources", "[]", "configMap"}, key: "name", gr: kinds.ConfigMaps},
	{at: []string{"volumes", "[]", "projected", "sources", "[]", "secret"}, key: "name", gr: kinds.Secrets},
	{at: []string{"volumes", "[]", "persistentVolumeClaim"}, key: "claimName", gr: kinds.PersistentVolumeClaims},
	{at: []string{"volumes", "[]", "csi", "nodePublishSecretRef"}, key: "name", gr: kinds.Secrets},
	{at: []string{"containers", "[]", "env", "[]", "valueFrom", "configMapKeyRef"}, key: "name", gr: kinds.ConfigMaps},
	{at: []string{"initContainers", "[]", "env", "[]", "valueFrom", "secretKeyRef"}, key: "name", gr: kinds.Secrets},
	{at: []string{"ephemeralContainers", "[]", "envFrom", "[]", "configMapRef"}, key: "name", gr: kinds.ConfigMaps},
	{at: []string{"containers", "[]", "envFrom", "[]", "secretRef"}, key: "name", gr: kinds.Secrets},
	{at: []string{"imagePullSecrets", "[]"}, key: "name", gr: kinds.Secrets},
	{key: "priorityClassName", gr: kinds.PriorityClasses, cluster: true},
	{key: "runtimeClassName", gr: kinds.RuntimeClasses, cluster: true},
}

// A shape is a kind of referrer: its apiVersion and kind, where its pod spec is (if it
// has one) and its slots outside the pod spec.
type shape struct {
	apiVersion, kind string
	podSpec          []string
	slots            []slot
	cluster          bool
}

var (
	roleRef = func(kind string, gr schema.GroupResource, cluster bool) slot {
		return slot{at: []string{"roleRef"}, key: "name", extra: map[string]any{"kind": kind, "apiGroup": "rbac.authorization.k8s.io"}, gr: gr, cluster: cluster}
	}
	subjects = func(emptyLocal bool) slot {
		return slot{at: []string{"subjects", "[]"}, key: "name", extra: map[string]any{"kind": "ServiceAccount"}, gr: kinds.ServiceAccounts,
			nsKey: "namespace", emptyLocal: emptyLocal}
	}
)

var (
	templateSpec = []string{"spec", "template", "spec"}
	cronJobSpec  = []string{"spec", "jobTemplate", "spec", "template", "spec"}
)

var shapes = []shape{
	{apiVersion: "v1", kind: "Pod", podSpec: []string{"spec"}},
	{apiVersion: "apps/v1", kind: "Deployment", podSpec: templateSpec},
	{apiVersion: "extensions/v1beta1", kind: "DaemonSet", podSpec: templateSpec},
	{apiVersion: "apps/v1beta2", kind: "ReplicaSet", podSpec: templateSpec},
	{apiVersion: "v1", kind: "ReplicationController", podSpec: templateSpec},
	{apiVersion: "batch/v1", kind: "Job", podSpec: templateSpec},
	{apiVersion: "batch/v1beta1", kind: "CronJob", podSpec: cronJobSpec},
	{apiVersion: "apps/v1", kind: "StatefulSet", podSpec: templateSpec, slots: []slot{
		{at: []string{"spec", "volumeClaimTemplates", "[]", "spec"}, key: "storageClassName", gr: kinds.StorageClasses, cluster: true}}},
	{apiVersion: "v1", kind: "PersistentVolumeClaim", slots: []slot{
		{at: []string{"spec"}, key: "storageClassName", gr: kinds.StorageClasses, cluster: true},
		{at: []string{"spec"}, key: "volumeName", gr: kinds.PersistentVolumes, cluster: true}}},
	{apiVersion: "v1", kind: "PersistentVolume", cluster: true, slots: []slot{
		{at: []string{"spec"}, key: "storageClassName", gr: kinds.StorageClasses, cluster: true}}},
	{apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", slots: []slot{roleRef("Role", kinds.Roles, false), subjects(true)}},
	{apiVersion: "rbac.authorization.k8s.io/v1beta1", kind: "RoleBinding", slots: []slot{roleRef("ClusterRole", kinds.ClusterRoles, true), subjects(true)}},
	{apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", cluster: true, slots: []slot{roleRef("ClusterRole", kinds.ClusterRoles, true), subjects(false)}},
	{apiVersion: "networking.k8s.io/v1", kind: "Ingress", slots: []slot{
		{at: []string{"spec"}, key: "ingressClassName", gr: kinds.IngressClasses, cluster: true},
		{at: []string{"spec", "defaultBackend", "service"}, key: "name", gr: kinds.Services},
		{at: []string{"spec", "rules", "[]", "http", "paths", "[]", "backend", "service"}, key: "name", gr: kinds.Services},
		{at: []string{"spec", "tls", "[]"}, key: "secretName", gr: kinds.Secrets}}},
	{apiVersion: "extensions/v1beta1", kind: "Ingress", slots: []slot{
		{at: []string{"spec", "backend"}, key: "serviceName", gr: kinds.Services},
		{at: []string{"spec", "rules", "[]", "http", "paths", "[]", "backend"}, key: "serviceName", gr: kinds.Services}}},
	{apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", slots: []slot{
		{at: []string{"spec", "scaleTargetRef"}, key: "name", extra: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment"}, gr: kinds.Deployments}}},
	{apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingWebhookConfiguration", cluster: true, slots: []slot{
		{at: []string{"webhooks", "[]", "clientConfig", "service"}, key: "name", gr: kinds.Services, nsKey: "namespace"}}},
	{apiVersion: "apiregistration.k8s.io/v1", kind: "APIService", cluster: true, slots: []slot{
		{at: []string{"spec", "service"}, key: "name", gr: kinds.Services, nsKey: "namespace"}}},
}

// targetKinds are the items a reference can name, with their kind and apiVersion.
var targetKinds = []struct {
	gr               schema.GroupResource
	apiVersion, kind string
	cluster          bool
}{
	{kinds.ServiceAccounts, "v1", "ServiceAccount", false}, {kinds.ConfigMaps, "v1", "ConfigMap", false},
	{kinds.Secrets, "v1", "Secret", false}, {kinds.PersistentVolumeClaims, "v1", "PersistentVolumeClaim", false},
	{kinds.PersistentVolumes, "v1", "PersistentVolume", true}, {kinds.PriorityClasses, "scheduling.k8s.io/v1", "PriorityClass", true},
	{kinds.RuntimeClasses, "node.k8s.io/v1", "RuntimeClass", true}, {kinds.StorageClasses, "storage.k8s.io/v1", "StorageClass", true},
	{kinds.Roles, "rbac.authorization.k8s.io/v1", "Role", false}, {kinds.ClusterRoles, "rbac.authorization.k8s.io/v1", "ClusterRole", true},
	{kinds.Services, "v1", "Service", false}, {kinds.IngressClasses, "networking.k8s.io/v1", "IngressClass", true},
	{kinds.Deployments, "apps/v1", "Deployment", false},
}

var (
	namePool      = []string{"a", "b", "default"}
	namespacePool = []string{"n1", "n2"}
)

// place returns the object at path at in obj, creating what is missing; "[]" appends a
// new element to the list named before it.
func place(obj map[string]any, at []string) map[string]any {
	cur := obj
	for i := 0; i < len(at); i++ {
		if i+1 < len(at) && at[i+1] == "[]" {
			l, _ := cur[at[i]].([]any)
			e := map[string]any{}
			cur[at[i]] = append(l, e)
			cur = e
			i++
			continue
		}
		next, ok := cur[at[i]].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[at[i]] = next
		}
		cur = next
	}
	return cur
}

// want is a reference the generator wrote: the test expects an edge to it when it is in
// the manifest.
type want struct {
	gr       schema.GroupResource
	ns, name string
}

// drawName draws a name from the pool or, sometimes, a value of the wrong type.
func drawName(t *rapid.T, label string) (any, string) {
	if rapid.IntRange(0, 5).Draw(t, label+"-wrong") == 0 {
		return rapid.SampledFrom([]any{int64(3), []any{"a"}, map[string]any{"name": "a"}, true, nil}).Draw(t, label+"-value"), ""
	}
	n := rapid.SampledFrom(namePool).Draw(t, label)
	return n, n
}

// writeSlot writes a drawn reference into obj at s (under prefix) and returns what it
// names, if anything.
func writeSlot(t *rapid.T, obj map[string]any, prefix []string, s slot, ns, label string) []want {
	at := append(slices.Clone(prefix), s.at...)
	m := place(obj, at)
	v, name := drawName(t, label)
	m[s.key] = v
	for k, x := range s.extra {
		m[k] = x
	}
	target := ns
	if s.cluster {
		target = ""
	}
	if s.nsKey != "" {
		pool := namespacePool
		if s.emptyLocal {
			pool = append([]string{""}, namespacePool...)
		}
		written := rapid.SampledFrom(pool).Draw(t, label+"-ns")
		m[s.nsKey] = written
		if written != "" {
			target = written
		}
	}
	if name == "" {
		return nil
	}
	return []want{{s.gr, target, name}}
}

// drawReferrer draws an object of a random shape with random references and returns it
// with the references it wrote.
func drawReferrer(t *rapid.T, i int) (*unstructured.Unstructured, []want) {
	sh := rapid.SampledFrom(shapes).Draw(t, fmt.Sprintf("shape%d", i))
	ns := ""
	if !sh.cluster {
		ns = rapid.SampledFrom(namespacePool).Draw(t, fmt.Sprintf("ns%d", i))
	}
	obj := map[string]any{}
	var wants []want
	write := func(prefix []string, slots []slot) {
		for j, s := range slots {
			label := fmt.Sprintf("r%d-%s-%d", i, s.key, j)
			n := rapid.IntRange(0, 1).Draw(t, label+"-n")
			if s.list() {
				n = rapid.IntRange(0, 2).Draw(t, label+"-n")
			}
			for k := range n {
				wants = append(wants, writeSlot(t, obj, prefix, s, ns, fmt.Sprintf("%s-%d", label, k))...)
			}
		}
	}
	if sh.podSpec != nil {
		spec := place(obj, sh.podSpec)
		san, sanName := drawName(t, fmt.Sprintf("r%d-san", i))
		sa, saName := drawName(t, fmt.Sprintf("r%d-sa", i))
		if rapid.Bool().Draw(t, fmt.Sprintf("r%d-has-san", i)) {
			spec["serviceAccountName"] = san
		} else {
			sanName = ""
		}
		if rapid.Bool().Draw(t, fmt.Sprintf("r%d-has-sa", i)) {
			spec["serviceAccount"] = sa
		} else {
			saName = ""
		}
		wants = append(wants, want{kinds.ServiceAccounts, ns, cmpOr(sanName, saName, "default")})
		write(sh.podSpec, podSlots)
	}
	write(nil, sh.slots)
	u := &unstructured.Unstructured{Object: obj}
	u.SetAPIVersion(sh.apiVersion)
	u.SetKind(sh.kind)
	u.SetNamespace(ns)
	u.SetName(rapid.SampledFrom(append([]string{fmt.Sprintf("r%d", i)}, namePool...)).Draw(t, fmt.Sprintf("name%d", i)))
	u.SetUID(types.UID(fmt.Sprintf("referrer-%d", i)))
	return u, wants
}

func cmpOr(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func TestDependenciesProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := manifest.New()
		refs := map[types.UID]references.Packed{}
		wants := map[types.UID][]want{}
		for i := range rapid.IntRange(1, 5).Draw(t, "referrers") {
			u, w := drawReferrer(t, i)
			it, err := manifest.NewItem(u, plural[u.GetKind()])
			require.NoError(t, err)
			if err := m.Add(it); err != nil {
				continue // the same identity drawn twice
			}
			refs[u.GetUID()] = references.Pack(string(u.GetUID()), references.Read(u))
			wants[u.GetUID()] = w
		}
		for _, tk := range targetKinds {
			nss := namespacePool
			if tk.cluster {
				nss = []string{""}
			}
			for _, ns := range nss {
				for _, name := range namePool {
					if !rapid.Bool().Draw(t, fmt.Sprintf("%s/%s/%s", tk.gr, ns, name)) {
						continue
					}
					u := &unstructured.Unstructured{Object: map[string]any{}}
					u.SetAPIVersion(tk.apiVersion)
					u.SetKind(tk.kind)
					u.SetNamespace(ns)
					u.SetName(name)
					u.SetUID(types.UID(fmt.Sprintf("%s/%s/%s", tk.gr, ns, name)))
					it, err := manifest.NewItem(u, tk.gr.Resource)
					require.NoError(t, err)
					_ = m.Add(it) // a referrer may hold this identity already
				}
			}
		}

		got := dependencies(m, refs)

		type pair struct{ from, to types.UID }
		edges := map[pair]bool{}
		prev := ""
		for _, d := range got {
			from, ok := m.Get(d.From)
			require.True(t, ok, "From %s not in the manifest", d.From)
			to, ok := m.Get(d.To)
			require.True(t, ok, "To %s not in the manifest", d.To)
			require.NotEqual(t, d.From, d.To)
			require.NotEmpty(t, d.Why)
			key := from.String() + "\x00" + to.String()
			require.Less(t, prev, key, "not in order, or repeated")
			prev = key
			edges[pair{d.From, d.To}] = true
		}
		for from, ws := range wants {
			for _, w := range ws {
				to, ok := m.Lookup(w.gr, w.ns, w.name)
				if !ok || to.UID == from {
					continue
				}
				require.True(t, edges[pair{from, to.UID}], "no edge %s -> %s %s/%s", from, w.gr, w.ns, w.name)
			}
		}

		// Deterministic: the same again, from a copy of refs built in another order.
		again := map[types.UID]references.Packed{}
		keys := make([]types.UID, 0, len(refs))
		for k := range refs {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b types.UID) int { return -strings.Compare(string(a), string(b)) })
		for _, k := range keys {
			again[k] = refs[k]
		}
		require.Equal(t, got, dependencies(m, again))
	})
}
