package main

import (
	"fmt"
	"os"

	"github.com/backupkit/backupkit/restore"
)

// readModifiers reads --resource-modifiers (restore.ReadResourceModifiers: a rules file, or
// a manifest of the ConfigMap Velero reads them from). "" reads none.
func readModifiers(path string) (*restore.ResourceModifiers, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err == nil {
		var m *restore.ResourceModifiers
		if m, err = restore.ReadResourceModifiers(data); err == nil {
			return m, nil
		}
	}
	return nil, fmt.Errorf("--resource-modifiers %s: %w", path, err)
}
