package actions

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/internal/kinds"
)

// RoleBinding returns the action "backupkit.io/role-binding", which maps the
// namespace of each subject of a RoleBinding to the namespace it is restored into
// ([Info].TargetNamespace), as Velero's role binding action does.
func RoleBinding() ItemAction {
	return bindingAction("backupkit.io/role-binding", kinds.RoleBindings)
}

// ClusterRoleBinding returns the action "backupkit.io/cluster-role-binding", which
// maps the namespace of each subject of a ClusterRoleBinding as [RoleBinding] does.
func ClusterRoleBinding() ItemAction {
	return bindingAction("backupkit.io/cluster-role-binding", kinds.ClusterRoleBindings)
}

func bindingAction(name string, gr schema.GroupResource) ItemAction {
	return &builtinAction{
		name:      name,
		resources: actKeys(gr),
		execute: func(_ context.Context, in *Input) (*Output, error) {
			if in.Restore == nil || len(in.Restore.NamespaceMapping) == 0 {
				return &Output{}, nil
			}
			subjects, err := actObjects(in.Item.Object, "subjects")
			if err != nil {
				return nil, err
			}
			for i, s := range subjects {
				ns, err := actString(s, "namespace")
				if err != nil {
					return nil, fmt.Errorf("subjects[%d]: %w", i, err)
				}
				if ns != "" {
					s["namespace"] = in.Restore.TargetNamespace(ns)
				}
			}
			return &Output{}, nil
		},
	}
}

// AdmissionWebhookConfiguration returns the action
// "backupkit.io/admission-webhook-configuration", which, as Velero's action of that name
// does, sets to None the sideEffects of each webhook of an admissionregistration.k8s.io/v1
// MutatingWebhookConfiguration or ValidatingWebhookConfiguration that is neither None nor
// NoneOnDryRun: v1beta1 allowed Unknown and Some, v1 refuses them. An item at another
// version is left as it is.
func AdmissionWebhookConfiguration() ItemAction {
	return &builtinAction{
		name:      "backupkit.io/admission-webhook-configuration",
		resources: actKeys(kinds.MutatingWebhookConfigurations, kinds.ValidatingWebhookConfigurations),
		execute: func(_ context.Context, in *Input) (*Output, error) {
			if in.Item.GetAPIVersion() != "admissionregistration.k8s.io/v1" {
				return &Output{}, nil
			}
			webhooks, err := actObjects(in.Item.Object, "webhooks")
			if err != nil {
				return nil, err
			}
			for _, w := range webhooks {
				if s, _ := w["sideEffects"].(string); s != "None" && s != "NoneOnDryRun" {
					w["sideEffects"] = "None"
				}
			}
			return &Output{}, nil
		},
	}
}

// actAutoManagedLabel marks the APIServices the kube-apiserver registers itself.
const actAutoManagedLabel = "kube-aggregator.kubernetes.io/automanaged"

// APIService returns the action "backupkit.io/apiservice", which skips an APIService
// the kube-apiserver registers itself: one labelled kube-aggregator.kubernetes.io/automanaged
// (the APIServices Velero's action skips) or without spec.service, served locally, by the
// kube-apiserver, for a built-in group or one a CustomResourceDefinition makes. An
// APIService of an extension API server (with a spec.service) is restored.
func APIService() ItemAction {
	return &builtinAction{
		name:      "backupkit.io/apiservice",
		resources: actKeys(kinds.APIServices),
		execute: func(_ context.Context, in *Input) (*Output, error) {
			if _, ok := in.Item.GetLabels()[actAutoManagedLabel]; ok {
				return &Output{Skip: true, Reason: "the kube-apiserver registers it (label " + actAutoManagedLabel + ")"}, nil
			}
			svc, err := actMap(in.Item.Object, "spec", "service")
			if err != nil {
				return nil, err
			}
			if svc == nil {
				return &Output{Skip: true, Reason: "a local APIService (no spec.service): the kube-apiserver registers it"}, nil
			}
			return &Output{}, nil
		},
	}
}

// CRDPreserveUnknownFields returns the action
// "backupkit.io/crd-preserve-unknown-fields", which, as Velero's
// CRDV1PreserveUnknownFields action does, turns spec.preserveUnknownFields true of an
// apiextensions.k8s.io/v1 CustomResourceDefinition (a v1beta1 CRD converted to v1, which
// the API server refuses with it) into false, setting x-kubernetes-preserve-unknown-fields
// true at the root of the schema of each of its versions that has one. A CRD at another
// version is left as it is.
func CRDPreserveUnknownFields() ItemAction {
	return &builtinAction{
		name:      "backupkit.io/crd-preserve-unknown-fields",
		resources: actKeys(kinds.CustomResourceDefinitions),
		execute: func(_ context.Context, in *Input) (*Output, error) {
			obj := in.Item.Object
			if in.Item.GetAPIVersion() != "apiextensions.k8s.io/v1" {
				return &Output{}, nil
			}
			spec, err := actMap(obj, "spec")
			if err != nil || spec == nil || spec["preserveUnknownFields"] != true {
				return &Output{}, err
			}
			spec["preserveUnknownFields"] = false
			versions, err := actObjects(spec, "versions")
			if err != nil {
				return nil, fmt.Errorf("spec: %w", err)
			}
			for i, v := range versions {
				schema, err := actMap(v, "schema", "openAPIV3Schema")
				if err != nil {
					return nil, fmt.Errorf("spec.versions[%d]: %w", i, err)
				}
				if schema != nil {
					schema["x-kubernetes-preserve-unknown-fields"] = true
				}
			}
			return &Output{}, nil
		},
	}
}
