package externaljob

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/convert"
	v1 "github.com/backupkit/backupkit/examples/externaljob/v1"
	v2 "github.com/backupkit/backupkit/examples/externaljob/v2"
	v3 "github.com/backupkit/backupkit/examples/externaljob/v3"
)

// AddToScheme registers the three versions of ExternalJob in s.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypeWithName(GroupKind.WithVersion("v1"), &v1.ExternalJob{})
	s.AddKnownTypeWithName(GroupKind.WithVersion("v2"), &v2.ExternalJob{})
	s.AddKnownTypeWithName(GroupKind.WithVersion("v3"), &v3.ExternalJob{})
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
