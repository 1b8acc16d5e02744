package restore

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/backupkit/backupkit/versionselect"
)

// Connect makes the Cluster a restore into the cluster cfg reaches runs against (a dynamic
// client, and a RESTMapper over cached discovery that Run resets when the restore creates
// CRDs) and reads what planning needs from it: the API groups it serves, for NewPlan's
// target, and the resources it serves at each version, as the PlanOption to pass to
// NewPlan (WithServedResources). A group whose discovery fails is left out of
// the served resources, as client-go's discovery reports it; any other failure is an error.
func Connect(ctx context.Context, cfg *rest.Config) (Cluster, []metav1.APIGroup, PlanOption, error) {
	d, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return Cluster{}, nil, nil, fmt.Errorf("restore: discovery client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return Cluster{}, nil, nil, fmt.Errorf("restore: dynamic client: %w", err)
	}
	target, err := versionselect.TargetGroups(ctx, d)
	if err != nil {
		return Cluster{}, nil, nil, fmt.Errorf("restore: the target's API groups: %w", err)
	}
	_, lists, err := d.ServerGroupsAndResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return Cluster{}, nil, nil, fmt.Errorf("restore: the target's served resources: %w", err)
	}
	c := Cluster{Dynamic: dyn, Mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(d))}
	return c, target, WithServedResources(lists), nil
}
