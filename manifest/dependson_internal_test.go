package manifest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// parseDependsOn collects what forEachDependsOn yields.
func parseDependsOn(v string) []objRef {
	var out []objRef
	forEachDependsOn(v, func(r objRef) { out = append(out, r) })
	return out
}

func TestParseDependsOn(t *testing.T) {
	tests := map[string]struct {
		in   string
		want []objRef
	}{
		"empty":           {in: ""},
		"namespaced core": {in: "/namespaces/web/ConfigMap/cm", want: []objRef{{namespace: "web", kind: "ConfigMap", name: "cm"}}},
		"cluster group":   {in: "rbac.authorization.k8s.io/ClusterRole/view", want: []objRef{{group: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view"}}},
		"list with spaces": {
			in:   " apps/namespaces/web/Deployment/front ,\t/Namespace/web\n",
			want: []objRef{{group: "apps", namespace: "web", kind: "Deployment", name: "front"}, {kind: "Namespace", name: "web"}},
		},
		"malformed dropped": {
			in:   "a/b,a/b/c/d,apps/space/web/Deployment/x,/namespaces//ConfigMap/x,//x,/Kind/,,/Namespace/ok",
			want: []objRef{{kind: "Namespace", name: "ok"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, parseDependsOn(tc.in))
		})
	}
}

// FuzzDependsOn: any annotation value parses without panicking, and every reference it
// yields renders back to a string that parses to exactly that reference.
func FuzzDependsOn(f *testing.F) {
	f.Add("/namespaces/web/ConfigMap/cm, apps/Deployment/x")
	f.Add("a/b/c/d/e/f,,/,//")
	f.Fuzz(func(t *testing.T, v string) {
		for _, r := range parseDependsOn(v) {
			s := r.group + "/" + r.kind + "/" + r.name
			if r.namespace != "" {
				s = r.group + "/namespaces/" + r.namespace + "/" + r.kind + "/" + r.name
			}
			if strings.ContainsAny(s, ",") || strings.TrimSpace(s) != s {
				t.Fatalf("reference %+v holds a separator or edge space", r)
			}
			require.Equal(t, []objRef{r}, parseDependsOn(s))
		}
	})
}
