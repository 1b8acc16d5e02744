// Package workload generates the deterministic, seeded inputs of the side-by-side
// benchmarks: Velero-layout backups, objects to compute status for, and ConversionReviews.
// The same seed and size give the same bytes on every run and machine.
package workload

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/backupkit/backupkit/archive"
)

// Resource is one backed-up resource: its directory name under resources/, its versions
// (preferred first), kind and scope.
type Resource struct {
	Dir      string
	Versions []string
	Kind     string
	Cluster  bool
}

// Resources are the 40 resources of a generated backup: core and apps kinds, and CRD groups
// with 2-3 versions.
func Resources() []Resource {
	var out []Resource
	add := func(cluster bool, versions []string, specs ...string) {
		for _, s := range specs {
			dir, kind, _ := strings.Cut(s, "=")
			out = append(out, Resource{Dir: dir, Kind: kind, Versions: versions, Cluster: cluster})
		}
	}
	v1 := []string{"v1"}
	add(false, v1, "pods=Pod", "services=Service", "configmaps=ConfigMap", "secrets=Secret",
		"serviceaccounts=ServiceAccount", "persistentvolumeclaims=PersistentVolumeClaim",
		"endpoints=Endpoints", "events=Event", "limitranges=LimitRange", "resourcequotas=ResourceQuota")
	add(true, v1, "namespaces=Namespace", "persistentvolumes=PersistentVolume")
	add(false, v1, "deployments.apps=Deployment", "replicasets.apps=ReplicaSet", "statefulsets.apps=StatefulSet",
		"daemonsets.apps=DaemonSet", "controllerrevisions.apps=ControllerRevision", "jobs.batch=Job",
		"cronjobs.batch=CronJob", "roles.rbac.authorization.k8s.io=Role",
		"rolebindings.rbac.authorization.k8s.io=RoleBinding", "ingresses.networking.k8s.io=Ingress",
		"networkpolicies.networking.k8s.io=NetworkPolicy", "poddisruptionbudgets.policy=PodDisruptionBudget",
		"endpointslices.discovery.k8s.io=EndpointSlice", "leases.coordination.k8s.io=Lease")
	add(true, v1, "clusterroles.rbac.authorization.k8s.io=ClusterRole",
		"clusterrolebindings.rbac.authorization.k8s.io=ClusterRoleBinding",
		"storageclasses.storage.k8s.io=StorageClass",
		"customresourcedefinitions.apiextensions.k8s.io=CustomResourceDefinition",
		"priorityclasses.scheduling.k8s.io=PriorityClass")
	add(false, []string{"v2", "v1"}, "horizontalpodautoscalers.autoscaling=HorizontalPodAutoscaler")
	add(false, []string{"v1", "v1beta1", "v1alpha1"}, "widgets.example.com=Widget")
	add(false, []string{"v2", "v1"}, "gadgets.example.com=Gadget")
	add(false, []string{"v1", "v1alpha2"}, "certificates.cert-manager.io=Certificate", "issuers.cert-manager.io=Issuer")
	add(false, []string{"v1"}, "backups.velero.io=Backup", "restores.velero.io=Restore", "schedules.velero.io=Schedule")
	add(false, []string{"v2beta1", "v1", "v1alpha1"}, "policies.kyverno.io=Policy")
	add(false, []string{"v1beta2", "v1beta1"}, "flowschemas.flowcontrol.apiserver.k8s.io=FlowSchema")
	return out
}

// EntriesPerItem is how many tar entries an object of r takes: one per version, plus the
// legacy unversioned copy of the preferred version (Velero writes the preferred version
// twice).
func (r Resource) EntriesPerItem() int { return len(r.Versions) + 1 }

// BackupInfo describes a generated backup.
type BackupInfo struct {
	Entries int   // item entries in the tar (besides metadata/version)
	Objects int   // distinct objects; each is stored EntriesPerItem times
	Bytes   int64 // item bytes, all entries, uncompressed
}

var words = strings.Fields("app web api backend frontend cache worker queue db primary replica metrics " +
	"logging ingress egress tls cert secret config volume mount path image registry tag latest stable " +
	"canary region zone cpu memory limit request port protocol tcp udp http https grpc health ready probe")

// gen draws the parts of generated objects from one seeded source.
type gen struct{ rng *rand.Rand }

func newGen(seed, stream uint64) gen { return gen{rand.New(rand.NewPCG(seed, stream))} }

func (g gen) word() string { return words[g.rng.IntN(len(words))] }

func (g gen) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.rng.IntN(16)]
	}
	return string(b)
}

func (g gen) uid() string {
	return g.hex(8) + "-" + g.hex(4) + "-" + g.hex(4) + "-" + g.hex(4) + "-" + g.hex(12)
}

// object returns one item of 1-4 KB of JSON: uid, labels, annotations, and for a third of
// the namespaced ones an ownerReference.
func (g gen) object(r Resource, version, ns, name, uid string) map[string]any {
	_, group, _ := strings.Cut(r.Dir, ".")
	apiVersion := version
	if group != "" {
		apiVersion = group + "/" + version
	}
	md := map[string]any{
		"name": name, "uid": uid, "resourceVersion": fmt.Sprint(g.rng.IntN(1 << 24)),
		"creationTimestamp": "2026-01-02T03:04:05Z", "generation": int64(1 + g.rng.IntN(5)),
		"labels": map[string]any{"app.kubernetes.io/name": g.word() + "-" + g.word(), "tier": g.word(),
			"release": fmt.Sprintf("r%d", g.rng.IntN(9))},
		"annotations": map[string]any{"checksum/config": g.hex(64), "backup.velero.io/source": g.word()},
	}
	if ns != "" {
		md["namespace"] = ns
		if g.rng.IntN(3) == 0 {
			md["ownerReferences"] = []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet",
				"name": name + "-owner", "uid": g.uid(), "controller": true, "blockOwnerDeletion": true}}
		}
	}
	spec := map[string]any{}
	target := 600 + g.rng.IntN(3000) // plus ~500 bytes of metadata: 1-4 KB in all
	for i := 0; i < target/40; i++ {
		v := g.word() + "-" + g.word() + "-" + g.word()
		if g.rng.IntN(4) == 0 {
			v = g.hex(8 + g.rng.IntN(24))
		}
		spec[fmt.Sprintf("%s%d", g.word(), i)] = v
	}
	return map[string]any{"apiVersion": apiVersion, "kind": r.Kind, "metadata": md, "spec": spec}
}

// WriteBackup writes to w a Velero 1.1.0 backup of about entries item entries (never
// fewer), generated from seed with archive.Writer: objects spread over Resources and 50
// namespaces, each stored in every version of its resource and once more at the legacy
// path. The same entries and seed give the same bytes.
func WriteBackup(w io.Writer, entries int, seed uint64) (BackupInfo, error) {
	g := newGen(seed, uint64(entries))
	res := Resources()
	bw := archive.NewWriter(w)
	for _, r := range res {
		if err := bw.SetPreferred(r.Dir, r.Versions[0]); err != nil {
			return BackupInfo{}, err
		}
	}
	var info BackupInfo
	for info.Entries < entries {
		r := res[g.rng.IntN(len(res))]
		ns := ""
		if !r.Cluster {
			ns = fmt.Sprintf("ns-%02d", g.rng.IntN(50))
		}
		name := fmt.Sprintf("%s-%s-%d", g.word(), g.word(), info.Objects)
		uid := g.uid()
		obj := g.object(r, r.Versions[0], ns, name, uid)
		for _, v := range r.Versions {
			_, group, _ := strings.Cut(r.Dir, ".")
			if group != "" {
				obj["apiVersion"] = group + "/" + v
			} else {
				obj["apiVersion"] = v
			}
			b, err := json.Marshal(obj)
			if err != nil {
				return BackupInfo{}, err
			}
			if err := bw.Add(r.Dir, v, ns, name, b); err != nil {
				return BackupInfo{}, err
			}
			info.Bytes += int64(len(b))
			if v == r.Versions[0] {
				info.Bytes += int64(len(b))
			}
		}
		info.Entries += r.EntriesPerItem()
		info.Objects++
	}
	return info, bw.Close()
}
