package manifest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/backupkit/backupkit/manifest"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWriteDOT(t *testing.T) {
	ns := item("Namespace", "namespaces", "", "", "web")
	dep := item("Deployment", "deployments", "apps", "web", `fr"ont`)
	rs := item("ReplicaSet", "replicasets", "apps", "web", "front-1", dep)
	rs.OwnerReferences = append(rs.OwnerReferences, metav1.OwnerReference{Kind: "Gone", Name: "gone", UID: "gone-uid"})
	m := build(t, []*manifest.Item{rs, dep, ns})
	var b strings.Builder
	require.NoError(t, m.WriteDOT(&b))
	require.Equal(t, `digraph manifest {
	rankdir=BT;
	node [shape=box];
	"resources/deployments.apps/namespaces/web/fr\"ont.json" [label="Deployment\nweb/fr\"ont"];
	"resources/namespaces/cluster/web.json" [label="Namespace\nweb"];
	"resources/replicasets.apps/namespaces/web/front-1.json" [label="ReplicaSet\nweb/front-1"];
	"resources/deployments.apps/namespaces/web/fr\"ont.json" -> "resources/namespaces/cluster/web.json" [label="Namespace"];
	"resources/replicasets.apps/namespaces/web/front-1.json" -> "resources/deployments.apps/namespaces/web/fr\"ont.json" [label="OwnerReference"];
	"resources/replicasets.apps/namespaces/web/front-1.json" -> "resources/namespaces/cluster/web.json" [label="Namespace"];
	"missing:gone-uid" [label="missing owner\nuid gone-uid", style=dashed];
	"resources/replicasets.apps/namespaces/web/front-1.json" -> "missing:gone-uid" [style=dotted, label="MissingOwner"];
}
`, b.String())

	require.ErrorContains(t, m.WriteDOT(failWriter{}), "manifest: writing DOT: disk full")
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
