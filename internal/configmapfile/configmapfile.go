// Package configmapfile reads a file that Velero also takes from a ConfigMap (resource
// modifier rules, resource policies): the ConfigMap holds the file as its one data entry,
// and a user may hand over the file itself or a manifest of that ConfigMap.
package configmapfile

import (
	"errors"
	"fmt"

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
