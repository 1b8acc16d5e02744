// Package hookspec holds what the hook specs of Velero's Backup and Restore share: reading
// a spec strictly from YAML or JSON, and the Pods one resource entry of a spec applies to
// (namespace globs and a label selector). The specs' own shapes and meanings stay with
// their packages (backup, restore/hooks).
package hookspec

import (
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/backupkit/backupkit/internal/resourcematch"
)

// Decode reads data, YAML or JSON, into a new T as the API server reads an object: field
// names match case-sensitively, and an unknown field or a key given twice is an error
// (every such problem joined).
func Decode[T any](data []byte) (*T, error) {
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, err
	}
	v := new(T)
	strict, err := kjson.UnmarshalStrict(j, v, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err == nil {
		err = errors.Join(strict...)
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Pods is the Pods one resource entry of a hook spec applies to: its namespace included
// and not excluded, and its labels matched by the label selector when there is one.
type Pods struct {
	namespaces *resourcematch.IncludesExcludes
	labels     labels.Selector // nil: every Pod
}

// NewPods compiles an entry's namespace globs and label selector; at names the entry in
// the errors (e.g. "resources[0]"), one per part that does not compile.
func NewPods(at string, included, excluded []string, selector *metav1.LabelSelector) (Pods, []error) {
	var p Pods
	var errs []error
	var err error
	if p.namespaces, err = resourcematch.NewNamespaces(included, excluded); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", at, err))
	}
	if selector != nil {
		if p.labels, err = metav1.LabelSelectorAsSelector(selector); err != nil {
			errs = append(errs, fmt.Errorf("%s.labelSelector: %w", at, err))
		}
	}
	return p, errs
}

// Match reports whether the entry applies to a Pod in namespace ns with labels l.
func (p Pods) Match(ns string, l map[string]string) bool {
	return p.namespaces != nil && p.namespaces.IncludesName(ns) && (p.labels == nil || p.labels.Matches(labels.Set(l)))
}
