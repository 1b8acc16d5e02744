package restore_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/restore"
)

func grs(ss ...string) []schema.GroupResource {
	if len(ss) == 0 {
		return nil
	}
	out := make([]schema.GroupResource, len(ss))
	for i, s := range ss {
		out[i] = schema.ParseGroupResource(s)
	}
	return out
}

func TestParsePriorities(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  restore.ResourcePriorities
		err   string // the exact error; "" for none
	}{
		// Velero v1.18.1's pkg/types/priority_test.go, TestSetOfPriority, case for case.
		{name: "empty input", input: ""},
		{name: "only high priorities", input: "p0", want: restore.ResourcePriorities{High: grs("p0")}},
		{name: "only low priorities", input: "-,p9", want: restore.ResourcePriorities{Low: grs("p9")}},
		{name: "only separator", input: "-"},
		{name: "multiple separators", input: "-,-", err: `restore: priorities: entry 2: a second separator "-"`},
		{name: "contain both high and low priorities", input: "p0,p1,p2,-,p9",
			want: restore.ResourcePriorities{High: grs("p0", "p1", "p2"), Low: grs("p9")}},
		{name: "end with separator", input: "p0,-", want: restore.ResourcePriorities{High: grs("p0")}},

		// Ours.
		{name: "groups", input: "customresourcedefinitions,replicasets.apps,-,clusters.cluster.x-k8s.io",
			want: restore.ResourcePriorities{
				High: []schema.GroupResource{{Resource: "customresourcedefinitions"}, {Group: "apps", Resource: "replicasets"}},
				Low:  []schema.GroupResource{{Group: "cluster.x-k8s.io", Resource: "clusters"}},
			}},
		{name: "whitespace trimmed", input: " pods ,\tsecrets\r\n, - , configmaps",
			want: restore.ResourcePriorities{High: grs("pods", "secrets"), Low: grs("configmaps")}},
		{name: "blank input", input: " \t"},
		{name: "empty entry", input: "pods,,secrets", err: "restore: priorities: entry 2 is empty"},
		{name: "trailing comma", input: "pods,", err: "restore: priorities: entry 2 is empty"},
		{name: "leading comma", input: ",pods", err: "restore: priorities: entry 1 is empty"},
		{name: "separators apart", input: "a,-,b,-,c", err: `restore: priorities: entry 4: a second separator "-"`},
		{name: "duplicate in high", input: "pods,secrets,pods", err: `restore: priorities: entry 3 "pods" repeats entry 1`},
		{name: "duplicate across parts", input: "replicasets.apps,-,replicasets.apps",
			err: `restore: priorities: entry 3 "replicasets.apps" repeats entry 1`},
		{name: "same resource in two groups is no duplicate", input: "replicasets.apps,replicasets.extensions",
			want: restore.ResourcePriorities{High: grs("replicasets.apps", "replicasets.extensions")}},
		{name: "upper case", input: "Pods",
			err: `restore: priorities: entry 1 "Pods": malformed resource "Pods": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		{name: "subresource", input: "pods/log", err: `restore: priorities: entry 1 "pods/log": malformed resource "pods/log": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		{name: "empty group", input: "pods.", err: `restore: priorities: entry 1 "pods.": malformed: empty group after "pods."`},
		{name: "empty resource", input: ".apps", err: `restore: priorities: entry 1 ".apps": malformed resource "": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		{name: "bad group", input: "deployments.apps..io", err: `restore: priorities: entry 1 "deployments.apps..io": malformed group "apps..io": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{name: "inner space", input: "config maps", err: `restore: priorities: entry 1 "config maps": malformed resource "config maps": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := restore.ParseResourcePriorities(tt.input)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				require.Equal(t, restore.ResourcePriorities{}, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestPrioritiesString(t *testing.T) {
	tests := []struct {
		name string
		p    restore.ResourcePriorities
		want string
	}{
		// Velero's TestStringOfPriorities.
		{name: "high", p: restore.ResourcePriorities{High: grs("high")}, want: "high"},
		{name: "high and low", p: restore.ResourcePriorities{High: grs("high"), Low: grs("low")}, want: "high,-,low"},
		// Ours.
		{name: "zero", want: ""},
		{name: "low only", p: restore.ResourcePriorities{Low: grs("clusters.cluster.x-k8s.io")}, want: "-,clusters.cluster.x-k8s.io"},
		{name: "groups", p: restore.ResourcePriorities{High: grs("pods", "replicasets.apps")}, want: "pods,replicasets.apps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, tt.p.String())
		})
	}
}

func TestDefaultPriorities(t *testing.T) {
	const velero = "customresourcedefinitions,namespaces,storageclasses," +
		"volumesnapshotclass.snapshot.storage.k8s.io,volumesnapshotcontents.snapshot.storage.k8s.io," +
		"volumesnapshots.snapshot.storage.k8s.io,datauploads.velero.io,persistentvolumes," +
		"persistentvolumeclaims,clusterroles,roles,serviceaccounts,clusterrolebindings,rolebindings," +
		"secrets,configmaps,limitranges,priorityclasses,pods,replicasets.apps," +
		"clusterclasses.cluster.x-k8s.io,endpoints,services,-," +
		"clusterbootstraps.run.tanzu.vmware.com,clusters.cluster.x-k8s.io," +
		"clusterresourcesets.addons.cluster.x-k8s.io,apps.kappctrl.k14s.io,packageinstalls.packaging.carvel.dev"
	d := restore.DefaultResourcePriorities()
	require.Equal(t, velero, d.String())
	require.Len(t, d.High, 23)
	require.Len(t, d.Low, 5)
	require.Equal(t, schema.GroupResource{Group: "apps", Resource: "replicasets"}, d.High[19])
	p, err := restore.ParseResourcePriorities(velero)
	require.NoError(t, err)
	require.Equal(t, d, p)

	d.High[0] = schema.GroupResource{Resource: "changed"}
	require.Equal(t, "customresourcedefinitions", restore.DefaultResourcePriorities().High[0].String(), "each call returns new slices")
}

// genPriorities draws a ResourcePriorities that ParseResourcePriorities could return: valid, distinct
// resources, nil slices when empty.
func genPriorities() *rapid.Generator[restore.ResourcePriorities] {
	label := rapid.StringMatching(`[a-z0-9]([-a-z0-9]{0,6}[a-z0-9])?`)
	group := rapid.OneOf(rapid.Just(""), rapid.StringMatching(`[a-z0-9]{1,5}(\.[a-z0-9]([-a-z0-9]{0,3}[a-z0-9])?){0,3}`))
	gr := rapid.Custom(func(t *rapid.T) schema.GroupResource {
		return schema.GroupResource{Group: group.Draw(t, "group"), Resource: label.Draw(t, "resource")}
	})
	return rapid.Custom(func(t *rapid.T) restore.ResourcePriorities {
		all := rapid.SliceOfDistinct(gr, func(g schema.GroupResource) schema.GroupResource { return g }).Draw(t, "all")
		cut := rapid.IntRange(0, len(all)).Draw(t, "cut")
		var p restore.ResourcePriorities
		if cut > 0 {
			p.High = all[:cut]
		}
		if cut < len(all) {
			p.Low = all[cut:]
		}
		return p
	})
}

func TestPrioritiesRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genPriorities().Draw(t, "p")
		got, err := restore.ParseResourcePriorities(p.String())
		require.NoError(t, err, "%q", p.String())
		require.Equal(t, p, got)
	})
}

func FuzzParsePriorities(f *testing.F) {
	for _, s := range []string{"", "-", "-,-", "p0,p1,p2,-,p9", "-,p9", "p0,-", "pods,,secrets", "Pods",
		" pods , replicasets.apps ", "pods.", ".apps", restore.DefaultResourcePriorities().String()} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := restore.ParseResourcePriorities(s)
		if err != nil {
			require.Equal(t, restore.ResourcePriorities{}, p)
			return
		}
		again, err := restore.ParseResourcePriorities(p.String())
		require.NoError(t, err, "%q from %q", p.String(), s)
		require.Equal(t, p, again)
	})
}
