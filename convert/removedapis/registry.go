package removedapis

import (
	"errors"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/convert"
)

// Conversion is one removed version that Register converts: objects of Kind in Group at
// version Removed convert to and from Hub, the version Kubernetes 1.36 serves.
type Conversion struct {
	Group    string // "" for the core group
	Kind     string
	Resource string // the lower-case plural, as in versionselect's keys
	Removed  string // the removed version, "v1beta1"
	Hub      string // the version it converts to, "v1"
	// RemovedIn is the Kubernetes release that stopped serving Removed, "1.22".
	RemovedIn string
}

// kindSpec is one kind and the spokes registered for it.
type kindSpec struct {
	group, kind, resource, hub string
	spokes                     []spokeSpec
}

type spokeSpec struct {
	version, removedIn string
	funcs              convert.SpokeFuncs
}

// kinds is the table of every kind this package converts, built anew on each call so that
// nothing in the package is mutable.
func kinds() []kindSpec {
	one := func(group, kind, resource, hub, spoke, removedIn string, f convert.SpokeFuncs) kindSpec {
		return kindSpec{group: group, kind: kind, resource: resource, hub: hub, spokes: []spokeSpec{{spoke, removedIn, f}}}
	}
	return []kindSpec{
		one("networking.k8s.io", "Ingress", "ingresses", "v1", "v1beta1", "1.22", ingressFuncs()),
		one("networking.k8s.io", "IngressClass", "ingressclasses", "v1", "v1beta1", "1.22", identical()),
		{group: "autoscaling", kind: "HorizontalPodAutoscaler", resource: "horizontalpodautoscalers", hub: "v2", spokes: []spokeSpec{
			{"v2beta1", "1.25", hpaV2beta1Funcs()},
			{"v2beta2", "1.26", identical()},
		}},
		one("batch", "CronJob", "cronjobs", "v1", "v1beta1", "1.25", identical()),
		one("policy", "PodDisruptionBudget", "poddisruptionbudgets", "v1", "v1beta1", "1.25", pdbFuncs()),
		one("discovery.k8s.io", "EndpointSlice", "endpointslices", "v1", "v1beta1", "1.25", endpointSliceFuncs()),
		one("scheduling.k8s.io", "PriorityClass", "priorityclasses", "v1", "v1beta1", "1.22", identical()),
		one("coordination.k8s.io", "Lease", "leases", "v1", "v1beta1", "1.22", identical()),
		one("node.k8s.io", "RuntimeClass", "runtimeclasses", "v1", "v1beta1", "1.25", identical()),
		one("certificates.k8s.io", "CertificateSigningRequest", "certificatesigningrequests", "v1", "v1beta1", "1.22", csrFuncs()),
		one("rbac.authorization.k8s.io", "Role", "roles", "v1", "v1beta1", "1.22", identical()),
		one("rbac.authorization.k8s.io", "ClusterRole", "clusterroles", "v1", "v1beta1", "1.22", identical()),
		one("rbac.authorization.k8s.io", "RoleBinding", "rolebindings", "v1", "v1beta1", "1.22", identical()),
		one("rbac.authorization.k8s.io", "ClusterRoleBinding", "clusterrolebindings", "v1", "v1beta1", "1.22", identical()),
		one("storage.k8s.io", "StorageClass", "storageclasses", "v1", "v1beta1", "1.22", identical()),
		one("storage.k8s.io", "VolumeAttachment", "volumeattachments", "v1", "v1beta1", "1.22", identical()),
		one("storage.k8s.io", "CSIDriver", "csidrivers", "v1", "v1beta1", "1.22", identical()),
		one("storage.k8s.io", "CSINode", "csinodes", "v1", "v1beta1", "1.22", identical()),
		one("admissionregistration.k8s.io", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations", "v1", "v1beta1", "1.22", webhookFuncs(true)),
		one("admissionregistration.k8s.io", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations", "v1", "v1beta1", "1.22", webhookFuncs(false)),
		one("apiextensions.k8s.io", "CustomResourceDefinition", "customresourcedefinitions", "v1", "v1beta1", "1.22", crdFuncs()),
		{group: "flowcontrol.apiserver.k8s.io", kind: "FlowSchema", resource: "flowschemas", hub: "v1", spokes: []spokeSpec{
			{"v1beta1", "1.26", flowSchemaFuncs()}, {"v1beta2", "1.29", flowSchemaFuncs()}, {"v1beta3", "1.32", flowSchemaFuncs()},
		}},
		{group: "flowcontrol.apiserver.k8s.io", kind: "PriorityLevelConfiguration", resource: "prioritylevelconfigurations", hub: "v1", spokes: []spokeSpec{
			{"v1beta1", "1.26", plcRenamed()}, {"v1beta2", "1.29", plcRenamed()}, {"v1beta3", "1.32", plcV1beta3()},
		}},
		one("storage.k8s.io", "CSIStorageCapacity", "csistoragecapacities", "v1", "v1beta1", "1.27", identical()),
		one("events.k8s.io", "Event", "events", "v1", "v1beta1", "1.25", identical()),
	}
}

// Register adds to r a conversion for every removed version of Conversions, one kind at a
// time, and maps each kind's resource (AddResource) so that r.CanConvert answers for it. A
// kind r already has is an error (convert.ErrAlreadyRegistered) naming it; the other kinds
// are still added, and the errors come back joined.
func Register(r *convert.Registry) error {
	var errs []error
	for _, k := range kinds() {
		gk := schema.GroupKind{Group: k.group, Kind: k.kind}
		spokes := make(map[string]convert.SpokeFuncs, len(k.spokes))
		for _, s := range k.spokes {
			spokes[s.version] = s.funcs
		}
		if err := r.AddUnstructured(gk, k.hub, spokes); err != nil {
			errs = append(errs, fmt.Errorf("removedapis: %w", err))
			continue
		}
		if err := r.AddResource(schema.GroupResource{Group: k.group, Resource: k.resource}, k.kind); err != nil {
			errs = append(errs, fmt.Errorf("removedapis: %w", err))
		}
	}
	return errors.Join(errs...)
}

// Registry returns a new registry holding the conversions of Register.
func Registry() (*convert.Registry, error) {
	r := convert.NewRegistry()
	if err := Register(r); err != nil {
		return nil, err
	}
	return r, nil
}

// Conversions lists every removed version Register converts, sorted by group, kind and
// version. The slice is the caller's.
func Conversions() []Conversion {
	var out []Conversion
	for _, k := range kinds() {
		for _, s := range k.spokes {
			out = append(out, Conversion{Group: k.group, Kind: k.kind, Resource: k.resource, Removed: s.version, Hub: k.hub, RemovedIn: s.removedIn})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Removed < b.Removed
	})
	return out
}
