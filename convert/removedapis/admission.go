package removedapis

import (
	"github.com/backupkit/backupkit/convert"
)

// MutatingWebhookConfiguration and ValidatingWebhookConfiguration,
// admissionregistration.k8s.io/v1beta1 to and from v1. The fields are the same; the
// defaults are not, so on the way to v1 every webhook that lacks a field gets v1beta1's
// default (pkg/apis/admissionregistration/v1beta1/defaults.go), keeping what the
// configuration meant rather than taking v1's:
//
//	failurePolicy Ignore (v1: Fail)          matchPolicy Exact (v1: Equivalent)
//	timeoutSeconds 30 (v1: 10)               sideEffects Unknown (v1: required)
//	admissionReviewVersions [v1beta1] (v1: required)
//	namespaceSelector {}, objectSelector {}  reinvocationPolicy Never (mutating)
//	rules[].scope "*"
//
// A v1 API server creates no webhook whose sideEffects is Unknown or Some, so such a
// configuration converts but does not restore until its webhooks declare None or
// NoneOnDryRun. Back from v1 nothing changes.
func webhookFuncs(mutating bool) convert.SpokeFuncs {
	return specFuncs(func(obj map[string]any) error { return webhooksToV1(obj, mutating) }, func(map[string]any) error { return nil })
}

func webhooksToV1(obj map[string]any, mutating bool) error {
	return eachMap(obj, "webhooks", "", func(w map[string]any, path string) error {
		setIfAbsent(w, "failurePolicy", "Ignore")
		setIfAbsent(w, "matchPolicy", "Exact")
		setIfAbsent(w, "timeoutSeconds", int64(30))
		setIfAbsent(w, "sideEffects", "Unknown")
		setIfAbsent(w, "admissionReviewVersions", []any{"v1beta1"})
		setIfAbsent(w, "namespaceSelector", map[string]any{})
		setIfAbsent(w, "objectSelector", map[string]any{})
		if mutating {
			setIfAbsent(w, "reinvocationPolicy", "Never")
		}
		return eachMap(w, "rules", path, func(r map[string]any, _ string) error {
			setIfAbsent(r, "scope", "*")
			return nil
		})
	})
}
