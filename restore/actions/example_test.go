package actions_test

import (
	"context"
	"fmt"

	"github.com/backupkit/backupkit/restore/actions"
)

// teamLabel is a caller's own action: it labels every Deployment with the team that owns
// the restore.
type teamLabel struct{ team string }

func (a teamLabel) Name() string { return "example.com/team-label" }

func (a teamLabel) AppliesTo() actions.Selector {
	return actions.Selector{IncludedResources: []string{"deployments.apps"}}
}

func (a teamLabel) Execute(_ context.Context, in *actions.Input) (*actions.Output, error) {
	labels := in.Item.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels["team"] = a.team
	in.Item.SetLabels(labels)
	return &actions.Output{}, nil
}

// A fork writes its own action (teamLabel, above), lists the built-in actions, replaces one
// (here the Secret action, with one that also asks the target which ServiceAccounts it has)
// and appends its own; restore.WithActions(list...) then runs them.
func Example() {
	accounts := func(ctx context.Context, namespace string) ([]string, error) {
		return []string{"default"}, nil // a real caller lists the target's ServiceAccounts
	}
	list := actions.Default()
	for i, a := range list {
		if a.Name() == "backupkit.io/secret" {
			list[i] = actions.Secret(accounts)
		}
	}
	list = append(list,
		actions.ChangeStorageClass(map[string]string{"gp2": "gp3"}, nil),
		teamLabel{team: "payments"})
	for _, a := range list {
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
