package workload

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"

	"github.com/backupkit/backupkit/archive"
)

// Restore workloads (issue 21): backups meant to be restored into a real API server, so
// every object is valid as stored, the way `velero backup` writes it (uid, resourceVersion,
// creationTimestamp, managedFields, status; a Service's spec.clusterIP).
const (
	// SecretsWorkload is one namespace of n Secrets (plus that Namespace).
	SecretsWorkload = "secrets"
	// MixedWorkload is n objects: a few Namespaces, ConfigMaps, Secrets, ServiceAccounts,
	// ClusterIP Services, and Deployments each owning one ReplicaSet.
	MixedWorkload = "mixed"
	// ConfigMapsWorkload is one namespace of n ConfigMaps (plus that Namespace), each
	// stored as ConfigMapBytes of JSON: the scale benchmark's workload (issue 28).
	ConfigMapsWorkload = "configmaps"
	// ConfigMapsByNamespaceWorkload is n ConfigMaps as ConfigMapsWorkload's, spread evenly
	// over ConfigMapsNamespaces namespaces (issue 45): the Namespaces first, then the
	// ConfigMaps namespace by namespace.
	ConfigMapsByNamespaceWorkload = "configmaps-by-namespace"
	// ConfigMapsRoundRobinWorkload holds what ConfigMapsByNamespaceWorkload holds, written
	// the Namespaces first, then the ConfigMaps round-robin across the namespaces: the
	// first ConfigMap of every namespace, then the second of every namespace, and so on.
	ConfigMapsRoundRobinWorkload = "configmaps-round-robin"
	// ConfigMapsVeleroWorkload holds what ConfigMapsByNamespaceWorkload holds, written in
	// the order Velero v1.18.3 writes it: the ConfigMaps first, as a LIST across every
	// namespace returns them (by namespace, then name), then the Namespaces. Velero takes
	// the core group's resources pods, persistentvolumeclaims, persistentvolumes first and
	// the rest in discovery's (alphabetical) order, so configmaps before namespaces
	// (pkg/backup/item_collector.go, sortCoreGroup and getResourceItems).
	ConfigMapsVeleroWorkload = "configmaps-velero"
	// ScaleMixedWorkload is n objects spread evenly over ConfigMapsNamespaces namespaces
	// (issue 45's million): the Namespaces first, then namespace by namespace a mix of
	// built-in kinds in turn, 6 ConfigMaps as ConfigMapsWorkload's, 2 Secrets, 1
	// ServiceAccount, and 1 Deployment owning 1 ReplicaSet in every 11 objects. No
	// Services, whose cluster IPs a million objects would run out of.
	ScaleMixedWorkload = "scale-mixed"
)

// ConfigMapsNamespaces is the number of namespaces of ConfigMapsByNamespaceWorkload,
// ConfigMapsRoundRobinWorkload and ConfigMapsVeleroWorkload.
const ConfigMapsNamespaces = 100

// RestoreWorkloads lists the restore workloads of the restore benchmark (issue 21);
// ConfigMapsWorkload, the scale benchmark's, is not among them.
var RestoreWorkloads = []string{SecretsWorkload, MixedWorkload}

// ConfigMapsNamespace is the namespace of ConfigMapsWorkload.
const ConfigMapsNamespace = "scale"

// ConfigMapBytes is the size of every ConfigMap of ConfigMapsWorkload as stored (its JSON).
const ConfigMapBytes = 1024

// SecretsNamespace is the namespace of SecretsWorkload.
const SecretsNamespace = "secrets"

// ServiceCIDR holds every spec.clusterIP of MixedWorkload (from 10.0.1.1 up, away from the
// first addresses an API server takes for itself): the target cluster's
// --service-cluster-ip-range must contain it for a restore that keeps the IPs (Velero's,
// without its plugins).
const ServiceCIDR = "10.0.0.0/16"

// RestoreInfo counts the objects of a restore workload per kind.
type RestoreInfo struct {
	Objects int            // every object, Namespaces included
	Kinds   map[string]int // per kind
}

// WriteRestore writes the restore workload name of n objects (n Secrets for
// SecretsWorkload) to w as a Velero 1.1.0 backup, generated from seed with
// archive.Writer. The same arguments give the same bytes.
func WriteRestore(w io.Writer, name string, n int, seed uint64) (RestoreInfo, error) {
	info, _, err := writeRestore(w, name, n, seed)
	return info, err
}

// writeRestore is WriteRestore, returning the closed Writer too (for its sibling manifest).
func writeRestore(w io.Writer, name string, n int, seed uint64) (RestoreInfo, *archive.Writer, error) {
	rb := &restoreBackup{g: newGen(seed, uint64(n)), bw: archive.NewWriter(w), info: RestoreInfo{Kinds: map[string]int{}}}
	for _, dir := range []string{"namespaces", "secrets", "configmaps", "serviceaccounts", "services", "deployments.apps", "replicasets.apps"} {
		if err := rb.bw.SetPreferred(dir, "v1"); err != nil {
			return rb.info, nil, err
		}
	}
	var err error
	switch name {
	case SecretsWorkload:
		err = rb.secrets(n)
	case MixedWorkload:
		err = rb.mixed(n)
	case ConfigMapsWorkload:
		err = rb.configMaps(n)
	case ConfigMapsByNamespaceWorkload, ConfigMapsRoundRobinWorkload, ConfigMapsVeleroWorkload:
		err = rb.configMapsOrdered(n, name)
	case ScaleMixedWorkload:
		err = rb.scaleMixed(n)
	default:
		err = fmt.Errorf("workload: unknown restore workload %q", name)
	}
	if err == nil {
		err = rb.bw.Close()
	}
	if err != nil {
		return rb.info, nil, err
	}
	return rb.info, rb.bw, nil
}

type restoreBackup struct {
	g    gen
	bw   *archive.Writer
	info RestoreInfo
	ips  int // Services written so far
}

func (rb *restoreBackup) secrets(n int) error {
	if _, err := rb.namespace(SecretsNamespace); err != nil {
		return err
	}
	for i := range n {
		if err := rb.secret(SecretsNamespace, fmt.Sprintf("secret-%06d", i)); err != nil {
			return err
		}
	}
	return nil
}

// configMaps writes n ConfigMaps of ConfigMapBytes in ConfigMapsNamespace: one key whose
// value (hex digits) pads the object to that size.
func (rb *restoreBackup) configMaps(n int) error {
	if _, err := rb.namespace(ConfigMapsNamespace); err != nil {
		return err
	}
	for i := range n {
		if err := rb.configMapOf(ConfigMapsNamespace, fmt.Sprintf("cm-%07d", i)); err != nil {
			return err
		}
	}
	return nil
}

// configMapsOrdered writes the ConfigMapsNamespaces namespaces "scale-00" on and n
// ConfigMaps as configMaps does, ConfigMap i in namespace i*ConfigMapsNamespaces/n (so
// each namespace holds consecutive names), in the order of workload name (one of
// ConfigMapsByNamespaceWorkload, ConfigMapsRoundRobinWorkload, ConfigMapsVeleroWorkload).
func (rb *restoreBackup) configMapsOrdered(n int, name string) error {
	nsOf := func(i int) string { return fmt.Sprintf("scale-%02d", i*ConfigMapsNamespaces/n) }
	namespaces := func() error {
		for i := range ConfigMapsNamespaces {
			if _, err := rb.namespace(fmt.Sprintf("scale-%02d", i)); err != nil {
				return err
			}
		}
		return nil
	}
	if name != ConfigMapsVeleroWorkload {
		if err := namespaces(); err != nil {
			return err
		}
	}
	order := make([]int, 0, n)
	if name == ConfigMapsRoundRobinWorkload {
		// starts[k] is the first ConfigMap of namespace k; take the j-th of each in turn.
		starts := make([]int, ConfigMapsNamespaces+1)
		for k := range starts {
			starts[k] = (k*n + ConfigMapsNamespaces - 1) / ConfigMapsNamespaces
		}
		for j := 0; len(order) < n; j++ {
			for k := range ConfigMapsNamespaces {
				if i := starts[k] + j; i < starts[k+1] {
					order = append(order, i)
				}
			}
		}
	} else {
		for i := range n {
			order = append(order, i)
		}
	}
	for _, i := range order {
		if err := rb.configMapOf(nsOf(i), fmt.Sprintf("cm-%07d", i)); err != nil {
			return err
		}
	}
	if name == ConfigMapsVeleroWorkload {
		return namespaces()
	}
	return nil
}

// scaleMixed writes ScaleMixedWorkload: n objects, Namespaces included.
func (rb *restoreBackup) scaleMixed(n int) error {
	for i := range min(n, ConfigMapsNamespaces) {
		if _, err := rb.namespace(fmt.Sprintf("scale-%02d", i)); err != nil {
			return err
		}
	}
	// A cycle of 10 slots, 11 objects: the Deployment brings its ReplicaSet.
	cycle := []string{"cm", "cm", "secret", "cm", "deploy", "cm", "sa", "cm", "secret", "cm"}
	left := n - min(n, ConfigMapsNamespaces)
	return rb.inTurn(left, cycle, func(i, done int, kind string) (string, string) {
		return fmt.Sprintf("scale-%02d", done*ConfigMapsNamespaces/max(left, 1)), fmt.Sprintf("%s-%07d", kind, i)
	}, rb.configMapOf)
}

// inTurn writes left objects, the kinds of cycle in turn: "cm" a ConfigMap (by cm),
// "secret", "sa" a ServiceAccount, "svc" a Service, "deploy" a Deployment and the
// ReplicaSet it owns (two objects; a ConfigMap when one is left). at gives the namespace
// and name of slot i, with done objects written before it.
func (rb *restoreBackup) inTurn(left int, cycle []string, at func(i, done int, kind string) (ns, name string), cm func(ns, name string) error) error {
	for i, done := 0, 0; done < left; i++ {
		kind := cycle[i%len(cycle)]
		ns, name := at(i, done, kind)
		var err error
		switch {
		case kind == "deploy" && left-done >= 2:
			if err := rb.deployment(ns, name); err != nil {
				return err
			}
			done += 2
			continue
		case kind == "cm" || kind == "deploy":
			err = cm(ns, name)
		case kind == "secret":
			err = rb.secret(ns, name)
		case kind == "sa":
			err = rb.object("serviceaccounts", "ServiceAccount", "v1", ns, name, nil)
		case kind == "svc":
			err = rb.service(ns, name)
		}
		if err != nil {
			return err
		}
		done++
	}
	return nil
}

// configMapOf adds one ConfigMap of ConfigMapBytes: one key whose value (hex digits) pads
// the object to that size.
func (rb *restoreBackup) configMapOf(ns, name string) error {
	md := rb.meta(ns, name, "kubectl")
	obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": map[string]any{"payload": ""}}
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	pad := ConfigMapBytes - len(b)
	if pad < 0 {
		return fmt.Errorf("workload: ConfigMap %s/%s: %d bytes before its payload, over %d", ns, name, len(b), ConfigMapBytes)
	}
	_, err = rb.add("configmaps", "ConfigMap", "v1", md, map[string]any{"data": map[string]any{"payload": rb.g.hex(pad)}})
	return err
}

// mixed writes n objects: min(5, max(2, n/2000)) Namespaces, then the rest in turn over the
// namespaces, in the proportions 25% ConfigMaps, 25% Secrets, 10% ServiceAccounts, 10%
// Services, 15% Deployments and 15% ReplicaSets (one per Deployment, owned by it).
func (rb *restoreBackup) mixed(n int) error {
	nsCount := min(5, max(2, n/2000))
	var nss []string
	for i := range nsCount {
		ns := fmt.Sprintf("mixed-%d", i)
		if _, err := rb.namespace(ns); err != nil {
			return err
		}
		nss = append(nss, ns)
	}
	// A cycle of 17 slots, 20 objects: 5 ConfigMaps, 5 Secrets, 2 ServiceAccounts, 2
	// Services, and 3 Deployments with their ReplicaSets (6 objects).
	cycle := []string{"cm", "secret", "cm", "deploy", "sa", "secret", "cm", "svc", "deploy", "secret", "cm", "sa", "secret", "deploy", "cm", "svc", "secret"}
	return rb.inTurn(n-nsCount, cycle, func(i, _ int, kind string) (string, string) {
		return nss[i%len(nss)], fmt.Sprintf("%s-%s-%05d", rb.g.word(), kind, i)
	}, rb.configMap)
}

// meta is the metadata of a backed-up object: what the API server had set.
func (rb *restoreBackup) meta(ns, name, manager string) map[string]any {
	g := rb.g
	md := map[string]any{
		"name": name, "uid": g.uid(), "resourceVersion": fmt.Sprint(1000 + g.rng.IntN(1<<24)),
		"creationTimestamp": "2026-01-02T03:04:05Z",
		"labels":            map[string]any{"app.kubernetes.io/name": g.word() + "-" + g.word(), "tier": g.word()},
		"annotations":       map[string]any{"checksum/config": g.hex(64)},
		"managedFields": []any{map[string]any{
			"manager": manager, "operation": "Update", "apiVersion": "v1", "time": "2026-01-02T03:04:05Z",
			"fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:metadata": map[string]any{"f:labels": map[string]any{".": map[string]any{}}}},
		}},
	}
	if ns != "" {
		md["namespace"] = ns
	}
	return md
}

// object adds one object of resource dir (kind, apiVersion) to the backup; fields are set
// besides apiVersion, kind and metadata.
func (rb *restoreBackup) object(dir, kind, apiVersion, ns, name string, fields map[string]any) error {
	_, err := rb.add(dir, kind, apiVersion, rb.meta(ns, name, "kubectl"), fields)
	return err
}

func (rb *restoreBackup) add(dir, kind, apiVersion string, md map[string]any, fields map[string]any) (map[string]any, error) {
	obj := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": md}
	for k, v := range fields {
		obj[k] = v
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	ns, _ := md["namespace"].(string)
	if err := rb.bw.Add(dir, "v1", ns, md["name"].(string), b); err != nil {
		return nil, err
	}
	rb.info.Objects++
	rb.info.Kinds[kind]++
	return md, nil
}

func (rb *restoreBackup) namespace(name string) (map[string]any, error) {
	md := rb.meta("", name, "kubectl")
	md["labels"].(map[string]any)["kubernetes.io/metadata.name"] = name
	return rb.add("namespaces", "Namespace", "v1", md, map[string]any{
		"spec": map[string]any{"finalizers": []any{"kubernetes"}}, "status": map[string]any{"phase": "Active"},
	})
}

// secret is an Opaque Secret of 2-4 keys, 32-512 random bytes each.
func (rb *restoreBackup) secret(ns, name string) error {
	data := map[string]any{}
	for i := range 2 + rb.g.rng.IntN(3) {
		b := make([]byte, 32+rb.g.rng.IntN(481))
		for j := range b {
			b[j] = byte(rb.g.rng.Uint32())
		}
		data[fmt.Sprintf("%s-%d", rb.g.word(), i)] = base64.StdEncoding.EncodeToString(b)
	}
	return rb.object("secrets", "Secret", "v1", ns, name, map[string]any{"type": "Opaque", "data": data})
}

// configMap holds 3-8 keys of text.
func (rb *restoreBackup) configMap(ns, name string) error {
	data := map[string]any{}
	for i := range 3 + rb.g.rng.IntN(6) {
		v := ""
		for range 4 + rb.g.rng.IntN(30) {
			v += rb.g.word() + "=" + rb.g.hex(8) + "\n"
		}
		data[fmt.Sprintf("%s-%d.conf", rb.g.word(), i)] = v
	}
	return rb.object("configmaps", "ConfigMap", "v1", ns, name, map[string]any{"data": data})
}

func (rb *restoreBackup) service(ns, name string) error {
	ip := fmt.Sprintf("10.0.%d.%d", 1+rb.ips/250, 1+rb.ips%250)
	rb.ips++
	return rb.object("services", "Service", "v1", ns, name, map[string]any{
		"spec": map[string]any{
			"type": "ClusterIP", "clusterIP": ip, "clusterIPs": []any{ip},
			"ipFamilies": []any{"IPv4"}, "ipFamilyPolicy": "SingleStack", "sessionAffinity": "None",
			"internalTrafficPolicy": "Cluster",
			"selector":              map[string]any{"app": name},
			"ports":                 []any{map[string]any{"name": "http", "port": int64(80), "protocol": "TCP", "targetPort": int64(8080)}},
		},
		"status": map[string]any{"loadBalancer": map[string]any{}},
	})
}

func podTemplate(name, image string, labels map[string]any) map[string]any {
	return map[string]any{
		"metadata": map[string]any{"labels": labels},
		"spec": map[string]any{"containers": []any{map[string]any{
			"name": "main", "image": image, "imagePullPolicy": "IfNotPresent",
			"ports":     []any{map[string]any{"containerPort": int64(8080), "protocol": "TCP"}},
			"resources": map[string]any{"requests": map[string]any{"cpu": "10m", "memory": "16Mi"}},
			"env":       []any{map[string]any{"name": "APP", "value": name}},
		}}, "restartPolicy": "Always", "dnsPolicy": "ClusterFirst", "terminationGracePeriodSeconds": int64(30)},
	}
}

// deployment adds a Deployment and the ReplicaSet it owns (ownerReferences with the
// Deployment's backed-up uid, controller: true), as a Deployment controller leaves them.
func (rb *restoreBackup) deployment(ns, name string) error {
	image := "registry.example/" + rb.g.word() + ":" + rb.g.hex(7)
	labels := map[string]any{"app": name}
	dmd, err := rb.add("deployments.apps", "Deployment", "apps/v1", rb.meta(ns, name, "kubectl"), map[string]any{
		"spec": map[string]any{
			"replicas": int64(1), "selector": map[string]any{"matchLabels": labels},
			"template": podTemplate(name, image, labels), "revisionHistoryLimit": int64(10),
			"strategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxSurge": "25%", "maxUnavailable": "25%"}},
		},
		"status": map[string]any{"observedGeneration": int64(1), "replicas": int64(1), "readyReplicas": int64(1), "updatedReplicas": int64(1), "availableReplicas": int64(1)},
	})
	if err != nil {
		return err
	}
	hash := rb.g.hex(10)
	rsLabels := map[string]any{"app": name, "pod-template-hash": hash}
	md := rb.meta(ns, name+"-"+hash, "kube-controller-manager")
	md["labels"] = rsLabels
	md["ownerReferences"] = []any{map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": name,
		"uid": dmd["uid"], "controller": true, "blockOwnerDeletion": true}}
	_, err = rb.add("replicasets.apps", "ReplicaSet", "apps/v1", md, map[string]any{
		"spec": map[string]any{
			"replicas": int64(1), "selector": map[string]any{"matchLabels": rsLabels},
			"template": podTemplate(name, image, rsLabels),
		},
		"status": map[string]any{"observedGeneration": int64(1), "replicas": int64(1), "readyReplicas": int64(1), "availableReplicas": int64(1)},
	})
	return err
}
