// Package removedapis converts Kubernetes' own kinds from the API versions that Kubernetes
// removed to the versions Kubernetes 1.36 serves, so that a backup of an old cluster
// restores into a new one. It works on unstructured objects, the way a restore reads them
// from a backup; no Go type of a removed version is needed.
//
// # Conversions
//
// Register adds the conversions to a convert.Registry (Registry returns a new one), one
// hub per kind, the version 1.36 serves, with the removed versions as spokes; Conversions
// lists them. Each resource is mapped with AddResource, so the registry is the Converter
// versionselect.WithConverter takes: a resource backed up only at a removed version is
// chosen by P4 (ReasonConversion) and converted by Registry.Convert. Field by field, the
// conversions do what Kubernetes' conversion and defaulting code did
// (k8s.io/kubernetes pkg/apis/<group>/<version>):
//
//   - Ingress networking.k8s.io/v1beta1 -> v1: backend and port fields renamed, pathType
//     defaulted (ingressFuncs).
//   - HorizontalPodAutoscaler autoscaling/v2beta1 -> v2: metric targets and current values
//     regrouped, behavior kept in Kubernetes' annotation; v2beta2 as it is.
//   - PodDisruptionBudget policy/v1beta1 -> v1: the empty selector's meaning kept.
//   - EndpointSlice discovery.k8s.io/v1beta1 -> v1: topology to zone and deprecatedTopology
//     (stashed as well, since a v1 API server drops it).
//   - CertificateSigningRequest certificates.k8s.io/v1beta1 -> v1: usages and signerName
//     defaulted as v1beta1 did.
//   - CustomResourceDefinition apiextensions.k8s.io/v1beta1 -> v1: per-version schemas,
//     subresources and columns, the conversion webhook, and preserveUnknownFields: true
//     turned into the schema's x-kubernetes-preserve-unknown-fields (stashed) since v1
//     refuses it.
//   - Mutating and ValidatingWebhookConfiguration admissionregistration.k8s.io/v1beta1 ->
//     v1: v1beta1's defaults made explicit, since v1's differ (failurePolicy Ignore, not
//     Fail); webhooks with sideEffects Unknown or Some convert but v1 refuses them.
//   - FlowSchema and PriorityLevelConfiguration flowcontrol.apiserver.k8s.io/v1beta1..3 ->
//     v1: assuredConcurrencyShares renamed, the default of 30 shares made explicit (a
//     v1beta3 level with a meant 0 converts but v1 refuses its annotation).
//   - CronJob, IngressClass, PriorityClass, Lease, RuntimeClass, the four RBAC kinds,
//     StorageClass, VolumeAttachment, CSIDriver, CSINode, CSIStorageCapacity, Event
//     events.k8s.io/v1beta1: the same fields in both versions. An event first written
//     through core/v1 (a kubelet's, with deprecatedSource and deprecatedCount) converts,
//     but events.k8s.io/v1 refuses to create it (TestLiveRefused); Velero leaves events out of
//     backups by default.
//
// Every conversion also runs back, from the hub to the removed version, so that round trips
// can be checked. Spoke to hub to spoke is lossless for objects as the old API server
// served them (defaulted): a v1beta1 Ingress path always had a pathType, an EndpointSlice
// endpoint with a nodeName always had the kubernetes.io/hostname topology entry. None of
// the removed versions has a field without a place in its hub, but two have values a v1
// API server drops or refuses: EndpointSlice's deprecatedTopology and CRD's
// preserveUnknownFields: true. What the conversion to v1 changes for them is kept with
// convert.Stash and restored from the stash on the way back. The other way, the one field a removed version lacks,
// HorizontalPodAutoscaler v2's spec.behavior, goes where Kubernetes put it, the annotation
// autoscaling.alpha.kubernetes.io/behavior, rather than into convert.Stash's bag, so
// that an old API server reading the object finds it there too.
//
// # Another group
//
// A Registry converts within one group and versionselect chooses within one group, so an
// Ingress backed up as extensions/v1beta1 is no conversion for them: Regroup moves it to
// networking.k8s.io/v1beta1 (the same fields), after which the Registry converts it.
// RegroupResource says which resources move. Velero backs an Ingress up once, from
// networking.k8s.io when the source serves it, so most backups need no regrouping.
//
// # Not restorable
//
// Removed reports the removed versions this package does not convert, with the release
// that removed them and why: PodSecurityPolicy has no successor; extensions and old apps
// versions of workloads are backed up by Velero at apps/v1 as well.
//
// Nothing in the package is mutable; every function is safe for concurrent use.
package removedapis
