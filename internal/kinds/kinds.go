// Package kinds names the resources of Kubernetes' own kinds that restore plans and reads
// references from, and that the built-in item actions of restore/actions select: one
// schema.GroupResource for each, at its group (the core group is ""), so that a resource
// is spelled once for all of them. The values are never changed.
package kinds

import "k8s.io/apimachinery/pkg/runtime/schema"

// The core group's resources.
var (
	ConfigMaps             = schema.GroupResource{Resource: "configmaps"}
	Endpoints              = schema.GroupResource{Resource: "endpoints"}
	PersistentVolumeClaims = schema.GroupResource{Resource: "persistentvolumeclaims"}
	PersistentVolumes      = schema.GroupResource{Resource: "persistentvolumes"}
	Pods                   = schema.GroupResource{Resource: "pods"}
	ReplicationControllers = schema.GroupResource{Resource: "replicationcontrollers"}
	Secrets                = schema.GroupResource{Resource: "secrets"}
	ServiceAccounts        = schema.GroupResource{Resource: "serviceaccounts"}
	Services               = schema.GroupResource{Resource: "services"}
)

// The resources of the other groups built into Kubernetes.
var (
	APIServices                     = schema.GroupResource{Group: "apiregistration.k8s.io", Resource: "apiservices"}
	ClusterRoleBindings             = schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}
	ClusterRoles                    = schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}
	CronJobs                        = schema.GroupResource{Group: "batch", Resource: "cronjobs"}
	CustomResourceDefinitions       = schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}
	DaemonSets                      = schema.GroupResource{Group: "apps", Resource: "daemonsets"}
	Deployments                     = schema.GroupResource{Group: "apps", Resource: "deployments"}
	EndpointSlices                  = schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}
	IngressClasses                  = schema.GroupResource{Group: "networking.k8s.io", Resource: "ingressclasses"}
	Jobs                            = schema.GroupResource{Group: "batch", Resource: "jobs"}
	MutatingWebhookConfigurations   = schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"}
	PriorityClasses                 = schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"}
	ReplicaSets                     = schema.GroupResource{Group: "apps", Resource: "replicasets"}
	RoleBindings                    = schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}
	Roles                           = schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "roles"}
	RuntimeClasses                  = schema.GroupResource{Group: "node.k8s.io", Resource: "runtimeclasses"}
	StatefulSets                    = schema.GroupResource{Group: "apps", Resource: "statefulsets"}
	StorageClasses                  = schema.GroupResource{Group: "storage.k8s.io", Resource: "storageclasses"}
	ValidatingWebhookConfigurations = schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}
)
