package main

import (
	"fmt"
	"os"

	"github.com/backupkit/backupkit/restore/modifiers"
)

// readModifiers reads --resource-modifiers (modifiers.Read: a rules file, or
// a manifest of the ConfigMap Velero reads them from). "" reads none.
func readModifiers(path string) (*modifiers.Modifiers, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err == nil {
		var m *modifiers.Modifiers
		if m, err = modifiers.Read(data); err == nil {
			return m, nil
		}
	}
	return nil, fmt.Errorf("--resource-modifiers %s: %w", path, err)
}
