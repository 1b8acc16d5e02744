package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestPrepare(t *testing.T) {
	tests := []struct {
		name     string
		in, want string
	}{
		{name: "metadata the target owns, and status",
			in: `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "n", "uid": "u", "resourceVersion": "7",
			  "creationTimestamp": "2026-01-01T00:00:00Z", "generation": 2, "managedFields": [], "labels": {"a": "b"}, "annotations": {"x": "y"}},
			  "data": {"k": "v"}, "status": {}}`,
			want: `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "n", "labels": {"a": "b"}, "annotations": {"x": "y"}},
			  "data": {"k": "v"}}`},
		{name: "Service: cluster IPs dropped",
			in:   `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"clusterIP": "10.0.0.7", "clusterIPs": ["10.0.0.7"], "ports": [{"port": 80}]}}`,
			want: `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}}`},
		{name: "headless Service: None kept",
			in:   `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"clusterIP": "None", "clusterIPs": ["None"]}}`,
			want: `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"clusterIP": "None", "clusterIPs": ["None"]}}`},
		{name: "Job as a 1.27+ API server returns it",
			in: `{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "labels": {"batch.kubernetes.io/controller-uid": "old", "controller-uid": "old", "job-name": "j"}},
			  "spec": {"selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "old"}},
			    "template": {"metadata": {"labels": {"batch.kubernetes.io/controller-uid": "old", "controller-uid": "old", "batch.kubernetes.io/job-name": "j", "job-name": "j", "app": "x"}},
			      "spec": {"restartPolicy": "Never"}}}}`,
			want: `{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "labels": {"batch.kubernetes.io/controller-uid": "old", "controller-uid": "old", "job-name": "j"}},
			  "spec": {"template": {"metadata": {"labels": {"batch.kubernetes.io/job-name": "j", "job-name": "j", "app": "x"}},
			    "spec": {"restartPolicy": "Never"}}}}`},
		{name: "Job with a manual selector: kept",
			in: `{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
			  "spec": {"manualSelector": true, "selector": {"matchLabels": {"app": "x"}}, "template": {"metadata": {"labels": {"app": "x"}}}}}`,
			want: `{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
			  "spec": {"manualSelector": true, "selector": {"matchLabels": {"app": "x"}}, "template": {"metadata": {"labels": {"app": "x"}}}}}`},
		{name: "a Job of another group is not batch's",
			in:   `{"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {"selector": {"matchLabels": {"controller-uid": "old"}}}}`,
			want: `{"apiVersion": "example.com/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {"selector": {"matchLabels": {"controller-uid": "old"}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in, want map[string]any
			require.NoError(t, json.Unmarshal([]byte(tt.in), &in))
			require.NoError(t, json.Unmarshal([]byte(tt.want), &want))
			u := &unstructured.Unstructured{Object: in}
			prepare(u)
			require.Equal(t, want, u.Object)
		})
	}
}
