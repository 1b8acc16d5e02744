package manifest_test

import (
	"testing"

	"github.com/backupkit/backupkit/manifest"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestValidate(t *testing.T) {
	type want struct {
		typ   manifest.FindingType
		item  string // name
		owner string // owner reference name
	}
	tests := map[string]struct {
		items func() []*manifest.Item
		want  []want
		text  []string
	}{
		"clean owner chain": {
			items: func() []*manifest.Item {
				d := item("Deployment", "deployments", "apps", "web", "front")
				return []*manifest.Item{d, item("ReplicaSet", "replicasets", "apps", "web", "front-1", d)}
			},
		},
		"cluster-scoped owner of a namespaced item is fine": {
			items: func() []*manifest.Item {
				cr := item("ClusterRole", "clusterroles", "rbac.authorization.k8s.io", "", "cr")
				return []*manifest.Item{cr, item("ConfigMap", "configmaps", "", "web", "cm", cr)}
			},
		},
		"owner in another namespace": {
			items: func() []*manifest.Item {
				o := item("ConfigMap", "configmaps", "", "a", "owner")
				return []*manifest.Item{o, item("ConfigMap", "configmaps", "", "b", "child", o)}
			},
			want: []want{{manifest.FindingCrossNamespaceOwner, "child", "owner"}},
			text: []string{`CrossNamespaceOwner: resources/configmaps/namespaces/b/child.json: owner ConfigMap owner (uid "uid-configmaps--a-owner") is in another namespace`},
		},
		"namespaced owner of a cluster-scoped item": {
			items: func() []*manifest.Item {
				o := item("ConfigMap", "configmaps", "", "a", "owner")
				return []*manifest.Item{o, item("ClusterRole", "clusterroles", "rbac.authorization.k8s.io", "", "cr", o)}
			},
			want: []want{{manifest.FindingNamespacedOwnerOfClusterScoped, "cr", "owner"}},
			text: []string{`NamespacedOwnerOfClusterScoped: resources/clusterroles.rbac.authorization.k8s.io/cluster/cr.json: owner ConfigMap owner (uid "uid-configmaps--a-owner") is namespaced, the item cluster-scoped`},
		},
		"two controllers": {
			items: func() []*manifest.Item {
				a := item("Deployment", "deployments", "apps", "web", "a")
				b := item("Deployment", "deployments", "apps", "web", "b")
				rs := item("ReplicaSet", "replicasets", "apps", "web", "rs")
				rs.OwnerReferences = []metav1.OwnerReference{ownerRef(a, true), ownerRef(b, true)}
				return []*manifest.Item{a, b, rs}
			},
			want: []want{{manifest.FindingMultipleControllers, "rs", "b"}},
			text: []string{`MultipleControllers: resources/replicasets.apps/namespaces/web/rs.json: owner Deployment b (uid "uid-deployments-apps-web-b") is a second controller`},
		},
		"owner missing from the backup": {
			items: func() []*manifest.Item {
				p := item("Pod", "pods", "", "web", "p")
				p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "gone", UID: "gone-uid"}}
				return []*manifest.Item{p}
			},
			want: []want{{manifest.FindingMissingOwner, "p", "gone"}},
			text: []string{`MissingOwner: resources/pods/namespaces/web/p.json: owner ReplicaSet gone (uid "gone-uid") is not in the backup`},
		},
		"self-ownership": {
			items: func() []*manifest.Item {
				p := item("Pod", "pods", "", "web", "p")
				p.OwnerReferences = []metav1.OwnerReference{ownerRef(p, false)}
				return []*manifest.Item{p}
			},
			want: []want{{manifest.FindingSelfOwner, "p", "p"}},
			text: []string{`SelfOwner: resources/pods/namespaces/web/p.json: owner Pod p (uid "uid-pods--web-p") is the item itself`},
		},
		"several findings in String order": {
			items: func() []*manifest.Item {
				z := item("Pod", "pods", "", "web", "z")
				z.OwnerReferences = []metav1.OwnerReference{{Kind: "X", Name: "gone", UID: "gone"}, ownerRef(z, false)}
				a := item("Pod", "pods", "", "web", "a")
				a.OwnerReferences = []metav1.OwnerReference{{Kind: "X", Name: "gone2", UID: "gone2", Controller: ptr(true)}, {Kind: "Y", Name: "gone3", UID: "gone3", Controller: ptr(true)}}
				return []*manifest.Item{z, a}
			},
			want: []want{
				{manifest.FindingMissingOwner, "a", "gone2"},
				{manifest.FindingMultipleControllers, "a", "gone3"},
				{manifest.FindingMissingOwner, "a", "gone3"},
				{manifest.FindingMissingOwner, "z", "gone"},
				{manifest.FindingSelfOwner, "z", "z"},
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			m := build(t, tc.items())
			findings := m.Validate()
			var got []want
			var text []string
			for _, f := range findings {
				got = append(got, want{f.Type, f.Item.Name, f.Owner.Name})
				text = append(text, f.String())
			}
			require.Equal(t, tc.want, got)
			if tc.text != nil {
				require.Equal(t, tc.text, text)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
