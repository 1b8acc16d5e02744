// Package configmapfile reads a file that Velero also takes from a ConfigMap (resource
// modifier rules, resource policies): the ConfigMap holds the file as its one data entry,
// and a user may hand over the file itself or a manifest of that ConfigMap.
package configmapfile

import (
	"errors"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Entry returns the one data entry of cm: its key and the file it holds.
func Entry(cm *corev1.ConfigMap) (key, file string, err error) {
	if cm == nil {
		return "", "", errors.New("no ConfigMap")
	}
	if len(cm.Data) != 1 {
		return "", "", fmt.Errorf("ConfigMap %s/%s has %d data entries, not 1", cm.Namespace, cm.Name, len(cm.Data))
	}
	for k, v := range cm.Data { // the one entry
		key, file = k, v
	}
	return key, file, nil
}

// Manifest reports whether data (YAML or JSON) is a manifest of a ConfigMap (apiVersion
// v1, kind ConfigMap), and if so returns it, decoded strictly (unknown fields refused).
// Anything else is not one: the file itself.
func Manifest(data []byte) (*corev1.ConfigMap, bool, error) {
	var head struct{ APIVersion, Kind string }
	if yaml.Unmarshal(data, &head) != nil || head.APIVersion != "v1" || head.Kind != "ConfigMap" {
		return nil, false, nil
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(data, &cm); err != nil {
		return nil, true, fmt.Errorf("ConfigMap: %w", err)
	}
	return &cm, true, nil
}

// FromConfigMap parses the one data entry of cm with parse; an error naming the ConfigMap
// and the key, an unusable ConfigMap one wrapping invalid.
func FromConfigMap[T any](cm *corev1.ConfigMap, parse func([]byte) (T, error), invalid error) (T, error) {
	var zero T
	key, file, err := Entry(cm)
	if err != nil {
		return zero, fmt.Errorf("%w: %w", invalid, err)
	}
	v, err := parse([]byte(file))
	if err != nil {
		return zero, fmt.Errorf("ConfigMap %s/%s, key %q: %w", cm.Namespace, cm.Name, key, err)
	}
	return v, nil
}

// Read parses data with parse, or, when data is a manifest of a ConfigMap, its one entry
// (FromConfigMap); a ConfigMap that does not decode is an error wrapping invalid.
func Read[T any](data []byte, parse func([]byte) (T, error), invalid error) (T, error) {
	cm, isCM, err := Manifest(data)
	switch {
	case !isCM:
		return parse(data)
	case err != nil:
		var zero T
		return zero, fmt.Errorf("%w: %w", invalid, err)
	}
	return FromConfigMap(cm, parse, invalid)
}

// ReadFile reads the file at path with Read. An error reading the file is os.ReadFile's,
// which names path; an error of Read is returned prefixed by path ("<path>: <error>").
func ReadFile[T any](path string, parse func([]byte) (T, error), invalid error) (T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := Read(data, parse, invalid)
	if err != nil {
		return v, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
