package restore

import (
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/backupkit/backupkit/manifest"
)

// TestHeldIn: without an item list, the manifest and the group versions say which item
// files a backup holds: the legacy path always, a version directory only for a version the
// item was captured in, suffixed exactly when it is the preferred one.
func TestHeldIn(t *testing.T) {
	m := manifest.New()
	it := &manifest.Item{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "ns", Name: "web", UID: "u-web"}
	require.NoError(t, m.Add(it))
	_, err := m.AddVersion("u-web", "v1beta1")
	require.NoError(t, err)
	g := metav1.APIGroup{PreferredVersion: metav1.GroupVersionForDiscovery{Version: "v1"}}
	for _, tc := range []struct {
		dir  string
		want bool
	}{
		{"", true},
		{"v1-preferredversion", true},
		{"v1", false}, // v1 is preferred: its directory is suffixed
		{"v1beta1", true},
		{"v1beta1-preferredversion", false},
		{"v2", false}, // not captured in v2
		{"v2-preferredversion", false},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			require.Equal(t, tc.want, heldIn(it, tc.dir, g))
		})
	}
}
