package versionselect_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	vs "github.com/backupkit/backupkit/versionselect"
)

// The ConfigMap as Velero's design document shows it.
const configMapYAML = `apiVersion: v1
kind: ConfigMap
metadata:
  name: enableapigroupversions
  namespace: velero
data:
  restoreResourcesVersionPriority: |
    rockbands.music.example.io=v2beta1,v2beta2
    orchestras.music.example.io=v2,v3alpha1
    subscriptions.operators.coreos.com=v2,v1
`

var wantPriorities = vs.Priorities{
	"rockbands.music.example.io":         {"v2beta1", "v2beta2"},
	"orchestras.music.example.io":        {"v2", "v3alpha1"},
	"subscriptions.operators.coreos.com": {"v2", "v1"},
}

func TestReadPriorities(t *testing.T) {
	tests := map[string]struct {
		in      string
		want    vs.Priorities
		wantErr string
		lineErr bool
	}{
		"the ConfigMap as YAML": {in: configMapYAML, want: wantPriorities},
		"the ConfigMap as JSON": {in: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"enableapigroupversions","namespace":"velero"},
			"data":{"restoreResourcesVersionPriority":"rockbands.music.example.io=v2beta1,v2beta2\norchestras.music.example.io=v2,v3alpha1\nsubscriptions.operators.coreos.com=v2,v1"}}`,
			want: wantPriorities},
		"the ConfigMap after a comment and a document marker": {in: "# mine\n---\n" + configMapYAML, want: wantPriorities},
		"bare text":        {in: "# prefer the beta\nrockbands.music.example.io = v2beta1\npods=v1\n", want: vs.Priorities{"rockbands.music.example.io": {"v2beta1"}, "pods": {"v1"}}},
		"empty":            {in: "", want: vs.Priorities{}},
		"bare, a bad line": {in: "pods=v1\nrockbands.music.example.io v2beta1\n", want: vs.Priorities{"pods": {"v1"}}, wantErr: `versionselect: priorities line 2 "rockbands.music.example.io v2beta1": no '=' between resource and versions`, lineErr: true},
		"a ConfigMap with a bad line": {in: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: p, namespace: ns}\ndata:\n  restoreResourcesVersionPriority: \"pods=v1\\npods=v2\"\n",
			want: vs.Priorities{"pods": {"v1"}}, wantErr: "ConfigMap ns/p: versionselect: priorities line 2", lineErr: true},
		"a ConfigMap without the key": {in: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: p, namespace: ns}\ndata: {other: x}\n",
			wantErr: "ConfigMap ns/p: versionselect: no restoreResourcesVersionPriority key"},
		"another kind":              {in: "apiVersion: v1\nkind: Secret\nmetadata: {name: p}\n", wantErr: `want a v1 ConfigMap, got apiVersion "v1" kind "Secret"`},
		"a manifest that is broken": {in: "apiVersion: v1\nkind: ConfigMap\ndata: [\n", wantErr: "versionselect: reading priorities ConfigMap: "},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := vs.ReadPriorities([]byte(tc.in))
			require.Equal(t, tc.want, got)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.wantErr)
			var le *vs.LineError
			require.Equal(t, tc.lineErr, errors.As(err, &le))
		})
	}
}

func TestPrioritiesFromConfigMap(t *testing.T) {
	_, err := vs.PrioritiesFromConfigMap(nil)
	require.EqualError(t, err, "versionselect: nil ConfigMap")
	_, err = vs.PrioritiesFromConfigMap(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "velero"}})
	require.ErrorIs(t, err, vs.ErrNoPrioritiesKey)
	require.EqualError(t, err, "ConfigMap velero/p: versionselect: no restoreResourcesVersionPriority key")
	got, err := vs.PrioritiesFromConfigMap(&corev1.ConfigMap{Data: map[string]string{vs.PrioritiesKey: "pods=v1"}})
	require.NoError(t, err)
	require.Equal(t, vs.Priorities{"pods": {"v1"}}, got)
}

func TestPrioritiesFromCluster(t *testing.T) {
	veleros := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: vs.DefaultPrioritiesConfigMap, Namespace: vs.DefaultPrioritiesNamespace},
		Data: map[string]string{vs.PrioritiesKey: "pods=v1"}}
	mine := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: "tools"},
		Data: map[string]string{vs.PrioritiesKey: "rockbands.music.example.io=v2beta1"}}

	client := fake.NewClientset(veleros, mine)
	got, err := vs.PrioritiesFromCluster(context.Background(), client.CoreV1(), "", "")
	require.NoError(t, err)
	require.Equal(t, vs.Priorities{"pods": {"v1"}}, got, "Velero's namespace and name by default")

	got, err = vs.PrioritiesFromCluster(context.Background(), client.CoreV1(), "tools", "mine")
	require.NoError(t, err)
	require.Equal(t, vs.Priorities{"rockbands.music.example.io": {"v2beta1"}}, got)

	got, err = vs.PrioritiesFromCluster(context.Background(), client.CoreV1(), "tools", "absent")
	require.NoError(t, err, "no ConfigMap: no priorities")
	require.Nil(t, got)

	client.PrependReactor("get", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(corev1.Resource("configmaps"), "mine", errors.New("no"))
	})
	_, err = vs.PrioritiesFromCluster(context.Background(), client.CoreV1(), "tools", "mine")
	require.ErrorContains(t, err, "versionselect: reading ConfigMap tools/mine: ")
	require.True(t, apierrors.IsForbidden(err))
}
