package externaljob

import "k8s.io/apimachinery/pkg/runtime/schema"

// Group is the API group of ExternalJob; Kind its kind; Resource the resource it is served as.
const (
	Group    = "batch.backupkit.io"
	Kind     = "ExternalJob"
	Resource = "externaljobs"
)

// GroupKind is ExternalJob's group and kind.
var GroupKind = schema.GroupKind{Group: Group, Kind: Kind}
