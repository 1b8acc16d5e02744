package externaljob

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/convert"
)

// AddToScheme registers the three versions of ExternalJob in s.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypeWithName(GroupKind.WithVersion("v1"), &V1{})
	s.AddKnownTypeWithName(GroupKind.WithVersion("v2"), &V2{})
	s.AddKnownTypeWithName(GroupKind.WithVersion("v3"), &V3{})
	return nil
}

// NewScheme returns a new scheme holding ExternalJob's versions.
func NewScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = AddToScheme(s) // cannot fail
	return s
}

// Registry returns a new conversion registry holding ExternalJob, served as Resource, with
// original-version tracking on. Each call returns a registry of its own.
func Registry() (*convert.Registry, error) {
	r := convert.NewRegistry()
	if err := r.AddTyped(NewScheme(), GroupKind); err != nil {
		return nil, err
	}
	if err := r.AddResource(schema.GroupResource{Group: Group, Resource: Resource}, Kind); err != nil {
		return nil, err
	}
	r.SetTrackOriginalVersion(true)
	return r, nil
}
