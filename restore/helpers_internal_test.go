package restore

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/archive/archivetest"
)

// mustPlan plans idx into target; conv, when not nil, converts and regroups.
func mustPlan(t *testing.T, idx *archive.Index, target []metav1.APIGroup, conv Converter) *Plan {
	t.Helper()
	cfg := defaultPlanConfig()
	if conv != nil {
		cfg.converter, cfg.regroup = conv, true
	}
	p, err := buildPlan(idx, target, cfg)
	require.NoError(t, err)
	return p
}

// backupOf writes objs as a Velero backup, each resource at v1 (preferred), resources
// named by testResources.
func backupOf(t *testing.T, objs ...*unstructured.Unstructured) []byte {
	t.Helper()
	tarball, _ := backupWithSibling(t, objs...)
	return tarball
}

// backupWithSibling is backupOf, with the sibling manifest the Writer writes beside it.
func backupWithSibling(t *testing.T, objs ...*unstructured.Unstructured) (tarball, sibling []byte) {
	t.Helper()
	var buf, sib bytes.Buffer
	w, err := archivetest.WriteObjects(&buf, func(kind string) string { return testResources[kind] }, objs...)
	require.NoError(t, err)
	require.NoError(t, w.WriteSibling(&sib))
	return buf.Bytes(), sib.Bytes()
}

var testResources = map[string]string{
	"ConfigMap": "configmaps", "Secret": "secrets", "Namespace": "namespaces", "Pod": "pods",
	"ServiceAccount": "serviceaccounts", "Deployment": "deployments.apps", "ReplicaSet": "replicasets.apps",
	"Service": "services", "Job": "jobs.batch",
	"ValidatingWebhookConfiguration": "validatingwebhookconfigurations.admissionregistration.k8s.io",
	"PersistentVolume":               "persistentvolumes", "PersistentVolumeClaim": "persistentvolumeclaims",
	"RoleBinding": "rolebindings.rbac.authorization.k8s.io", "ClusterRole": "clusterroles.rbac.authorization.k8s.io",
	"PriorityClass": "priorityclasses.scheduling.k8s.io",
}

func testObject(apiVersion, kind, ns, name, uid string, fields map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": name, "uid": uid}}}
	if ns != "" {
		u.SetNamespace(ns)
	}
	for k, v := range fields {
		u.Object[k] = v
	}
	return u
}
