package restore_test

import (
	"context"
	"fmt"

	"github.com/backupkit/backupkit/restore"
)

// teamLabel is a caller's own action: it labels every Deployment with the team that owns
// the restore.
type teamLabel struct{ team string }

func (a teamLabel) Name() string { return "example.com/team-label" }

func (a teamLabel) AppliesTo() restore.Selector {
	return restore.Selector{IncludedResources: []string{"deployments.apps"}}
}

func (a teamLabel) Execute(_ context.Context, in *restore.Input) (*restore.Output, error) {
	labels := in.Item.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels["team"] = a.team
	in.Item.SetLabels(labels)
	return &restore.Output{}, nil
}

// A caller lists the built-in actions, replaces one (here the Secret action, with one that
// also asks the target which ServiceAccounts it has) and appends its own.
func Example_actions() {
	accounts := func(ctx context.Context, namespace string) ([]string, error) {
		return []string{"default"}, nil // a real caller lists the target's ServiceAccounts
	}
	actions := restore.DefaultActions()
	for i, a := range actions {
		if a.Name() == "backupkit.io/secret" {
			actions[i] = restore.SecretAction(accounts)
		}
	}
	actions = append(actions,
		restore.ChangeStorageClassAction(map[string]string{"gp2": "gp3"}, nil),
		teamLabel{team: "payments"})
	for _, a := range actions {
		fmt.Println(a.Name(), a.AppliesTo().IncludedResources)
	}
	// Output:
	// backupkit.io/skip-completed [pods jobs.batch]
	// backupkit.io/apiservice [apiservices.apiregistration.k8s.io]
	// backupkit.io/pod [pods]
	// backupkit.io/add-pvc-from-pod [pods]
	// backupkit.io/job [jobs.batch]
	// backupkit.io/service [services]
	// backupkit.io/service-account [serviceaccounts]
	// backupkit.io/secret [secrets]
	// backupkit.io/persistent-volume [persistentvolumes]
	// backupkit.io/persistent-volume-claim [persistentvolumeclaims]
	// backupkit.io/role-binding [rolebindings.rbac.authorization.k8s.io]
	// backupkit.io/cluster-role-binding [clusterrolebindings.rbac.authorization.k8s.io]
	// backupkit.io/admission-webhook-configuration [mutatingwebhookconfigurations.admissionregistration.k8s.io validatingwebhookconfigurations.admissionregistration.k8s.io]
	// backupkit.io/crd-preserve-unknown-fields [customresourcedefinitions.apiextensions.k8s.io]
	// backupkit.io/change-storage-class [persistentvolumes persistentvolumeclaims statefulsets.apps]
	// example.com/team-label [deployments.apps]
}
