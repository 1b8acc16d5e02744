package backup

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// Discovery is what the plan reads of the cluster's discovery: the API groups with their
// preferred versions and the resources served at each group version.
// *discovery.DiscoveryClient and client-go's fake discovery are Discovery.
type Discovery interface {
	ServerGroupsAndResources() ([]*metav1.APIGroup, []*metav1.APIResourceList, error)
}

var _ Discovery = (*discovery.DiscoveryClient)(nil)

// Cluster is the cluster a backup reads.
type Cluster struct {
	// Discovery says what the cluster serves (NewPlan reads it once).
	Discovery Discovery
	// Dynamic lists the objects (Run), unless the Cluster was made by Connect.
	Dynamic dynamic.Interface

	raw rest.Interface // Connect's: see there
}

// Connect makes the Cluster of the cluster cfg reaches: a discovery client, a dynamic
// client, and a REST client of the dynamic client's settings, asking for JSON, through
// which Run lists: it reads each page's items itself, decodes each once, and writes the
// JSON the server sent ("apiVersion" and "kind" put first when the list left them out, as
// it does for the kinds the API server serves itself), where through Dynamic alone each
// object is decoded twice and written as encoding/json encodes it. It sends no request;
// NewPlan reads discovery. It takes no context for that reason. The caller sets cfg's
// rate limits (QPS, Burst) and warning handler.
func Connect(cfg *rest.Config) (Cluster, error) {
	d, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return Cluster{}, fmt.Errorf("backup: discovery client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return Cluster{}, fmt.Errorf("backup: dynamic client: %w", err)
	}
	rc := dynamic.ConfigFor(cfg)
	rc.ContentType, rc.AcceptContentTypes = "application/json", "application/json"
	raw, err := rest.UnversionedRESTClientFor(rc)
	if err != nil {
		return Cluster{}, fmt.Errorf("backup: REST client: %w", err)
	}
	return Cluster{Discovery: d, Dynamic: dyn, raw: raw}, nil
}
