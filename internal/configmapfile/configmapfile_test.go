package configmapfile

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestEntry(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cm        *corev1.ConfigMap
		key, file string
		err       string
	}{
		{"none", nil, "", "", "no ConfigMap"},
		{"empty", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "velero", Name: "rules"}}, "", "", "ConfigMap velero/rules has 0 data entries, not 1"},
		{"two", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "velero", Name: "rules"}, Data: map[string]string{"a": "1", "b": "2"}}, "", "", "has 2 data entries, not 1"},
		{"one", &corev1.ConfigMap{Data: map[string]string{"rules.yaml": "version: v1"}}, "rules.yaml", "version: v1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, file, err := Entry(tc.cm)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.key, key)
			require.Equal(t, tc.file, file)
		})
	}
}

func TestManifest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		data  string
		isCM  bool
		err   string
		entry string
	}{
		{"a rules file", "version: v1\nresourceModifierRules: []\n", false, "", ""},
		{"not YAML", "{", false, "", ""},
		{"another kind", "apiVersion: v1\nkind: Secret\n", false, "", ""},
		{"a ConfigMap", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: r}\ndata: {f.yaml: 'version: v1'}\n", true, "", "version: v1"},
		{"a ConfigMap as JSON", `{"apiVersion":"v1","kind":"ConfigMap","data":{"f":"x"}}`, true, "", "x"},
		{"a ConfigMap with an unknown field", "apiVersion: v1\nkind: ConfigMap\ndatta: {}\n", true, "ConfigMap: ", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm, isCM, err := Manifest([]byte(tc.data))
			require.Equal(t, tc.isCM, isCM)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			if tc.isCM {
				_, file, err := Entry(cm)
				require.NoError(t, err)
				require.Equal(t, tc.entry, file)
			}
		})
	}
}
