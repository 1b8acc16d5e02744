package main

import (
	"k8s.io/client-go/rest"

	"github.com/backupkit/backupkit/restore/actions"
	"github.com/backupkit/backupkit/restore/hooks"
)

// itemActions are the built-in item actions and, last, the restore hooks' action, as
// Velero runs hooks: those the Pods' annotations declare always, and those of --hooks.
// Its exec hooks run through the pods/exec subresource of the cluster cfg reaches.
func itemActions(cfg *rest.Config, spec *hooks.Spec) ([]actions.ItemAction, error) {
	client, err := hooks.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	a, err := hooks.NewAction(spec, client)
	if err != nil {
		return nil, err
	}
	return append(actions.Default(), a), nil
}
