package restore

import "k8s.io/apimachinery/pkg/types"

type Dependency struct {
	From, To types.UID
	Ready    bool
	Why      string
}

type ResourcePriorities struct{}

func ParseResourcePriorities(string) (ResourcePriorities, error) { return ResourcePriorities{}, nil }
func WithResourcePriorities(ResourcePriorities) PlanOption       { return nil }
