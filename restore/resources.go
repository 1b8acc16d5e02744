package restore

import "k8s.io/apimachinery/pkg/runtime/schema"

// The resources of Kubernetes' own kinds that the item actions select, the references
// point at, and planning reads the bodies of: one name for each, shared by those files.
var (
	grPods                      = schema.GroupResource{Resource: "pods"}
	grReplicationControllers    = schema.GroupResource{Resource: "replicationcontrollers"}
	grServices                  = schema.GroupResource{Resource: "services"}
	grEndpoints                 = schema.GroupResource{Resource: "endpoints"}
	grServiceAccounts           = schema.GroupResource{Resource: "serviceaccounts"}
	grConfigMaps                = schema.GroupResource{Resource: "configmaps"}
	grSecrets                   = schema.GroupResource{Resource: "secrets"}
	grPVCs                      = schema.GroupResource{Resource: "persistentvolumeclaims"}
	grPVs                       = schema.GroupResource{Resource: "persistentvolumes"}
	grDeployments               = schema.GroupResource{Group: "apps", Resource: "deployments"}
	grStatefulSets              = schema.GroupResource{Group: "apps", Resource: "statefulsets"}
	grDaemonSets                = schema.GroupResource{Group: "apps", Resource: "daemonsets"}
	grReplicaSets               = schema.GroupResource{Group: "apps", Resource: "replicasets"}
	grJobs                      = schema.GroupResource{Group: "batch", Resource: "jobs"}
	grCronJobs                  = schema.GroupResource{Group: "batch", Resource: "cronjobs"}
	grEndpointSlices            = schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}
	grPriorityClasses           = schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"}
	grRuntimeClasses            = schema.GroupResource{Group: "node.k8s.io", Resource: "runtimeclasses"}
	grStorageClasses            = schema.GroupResource{Group: "storage.k8s.io", Resource: "storageclasses"}
	grRoles                     = schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "roles"}
	grClusterRoles              = schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}
	grRoleBindings              = schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}
	grClusterRoleBindings       = schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}
	grIngressClasses            = schema.GroupResource{Group: "networking.k8s.io", Resource: "ingressclasses"}
	grMutatingWebhookConfigs    = schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"}
	grValidatingWebhookConfigs  = schema.GroupResource{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}
	grAPIServices               = schema.GroupResource{Group: "apiregistration.k8s.io", Resource: "apiservices"}
	grCustomResourceDefinitions = schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}
)
