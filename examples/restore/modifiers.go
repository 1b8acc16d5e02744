package main

import (
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/backupkit/backupkit/restore"
)

// readModifiers reads --resource-modifiers: a file of Velero's resource modifier rules
// (YAML or JSON), or a manifest of the ConfigMap Velero reads them from (kind ConfigMap,
// one data entry holding the rules). "" reads none.
func readModifiers(path string) (*restore.ResourceModifiers, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--resource-modifiers %s: %w", path, err)
	}
	var head struct{ APIVersion, Kind string }
	var m *restore.ResourceModifiers
	if yaml.Unmarshal(data, &head) == nil && head.APIVersion == "v1" && head.Kind == "ConfigMap" {
		var cm corev1.ConfigMap
		if err = yaml.UnmarshalStrict(data, &cm); err == nil {
			m, err = restore.ResourceModifiersFromConfigMap(&cm)
		}
	} else {
		m, err = restore.ParseResourceModifiers(data)
	}
	if err != nil {
		return nil, fmt.Errorf("--resource-modifiers %s: %w", path, err)
	}
	return m, nil
}
