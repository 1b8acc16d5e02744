package restore

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/archive"
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
// named by resourceOf.
func backupOf(t *testing.T, objs ...*unstructured.Unstructured) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := archive.NewWriter(&buf)
	for _, o := range objs {
		res := testResources[o.GetKind()]
		require.NotEmpty(t, res, o.GetKind())
		require.NoError(t, w.SetPreferred(res, "v1"))
		b, err := json.Marshal(o.Object)
		require.NoError(t, err)
		require.NoError(t, w.Add(res, "v1", o.GetNamespace(), o.GetName(), b))
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

var testResources = map[string]string{
	"ConfigMap": "configmaps", "Secret": "secrets", "Namespace": "namespaces", "Pod": "pods",
	"ServiceAccount": "serviceaccounts", "Deployment": "deployments.apps", "ReplicaSet": "replicasets.apps",
	"Service": "services", "Job": "jobs.batch",
	"ValidatingWebhookConfiguration": "validatingwebhookconfigurations.admissionregistration.k8s.io",
	"PersistentVolume":               "persistentvolumes", "PersistentVolumeClaim": "persistentvolumeclaims",
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
