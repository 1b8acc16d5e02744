package actions

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/backupkit/backupkit/internal/kinds"
)

// SkipCompleted returns the action "backupkit.io/skip-completed": it skips a Pod whose
// phase was Succeeded or Failed when backed up, and a Job that had a completion time, as
// Velero's restore does: created again, either would run again.
// It reads the status of the object as backed up.
func SkipCompleted() ItemAction {
	return &builtinAction{
		name:      "backupkit.io/skip-completed",
		resources: actKeys(kinds.Pods, kinds.Jobs),
		execute: func(_ context.Context, in *Input) (*Output, error) {
			from := actBackup(in).Object
			switch in.Resource {
			case kinds.Pods:
				phase, err := actString(from, "status", "phase")
				if err != nil {
					return nil, err
				}
				if phase == "Succeeded" || phase == "Failed" {
					return &Output{Skip: true, Reason: "the Pod had finished (phase " + phase + ")"}, nil
				}
			case kinds.Jobs:
				t, err := actString(from, "status", "completionTime")
				if err != nil {
					return nil, err
				}
				if t != "" {
					return &Output{Skip: true, Reason: "the Job had completed (at " + t + ")"}, nil
				}
			}
			return &Output{}, nil
		},
	}
}

// actMirrorPodAnnotation marks the API server's copy of a static Pod, which the kubelet of its
// node runs from a file.
const actMirrorPodAnnotation = "kubernetes.io/config.mirror"

// Pod returns the action "backupkit.io/pod", which does to a Pod what Velero's pod
// action does, and what its restore does for mirror Pods:
//
//   - a mirror Pod (annotation kubernetes.io/config.mirror) is skipped: the kubelet of a
//     node makes it from a static Pod's file;
//   - spec.nodeName goes, so that the scheduler places the Pod, and spec.priority, which
//     the API server sets from spec.priorityClassName (it refuses a Pod whose priority
//     differs from its class's);
//   - the volumes named "<service account>-token-<suffix>", the Secret volumes of the
//     service account's legacy token, go with their mounts in containers and init
//     containers: the target makes its own token;
//   - spec.ephemeralContainers go: the API server refuses them on create (they are added
//     to a running Pod through its ephemeralcontainers subresource);
//   - the PriorityClass of spec.priorityClassName is an additional item.
func Pod() ItemAction {
	return &builtinAction{
		name:      "backupkit.io/pod",
		resources: actKeys(kinds.Pods),
		execute:   podExecute,
	}
}

func podExecute(_ context.Context, in *Input) (*Output, error) {
	obj := in.Item.Object
	if v, ok := in.Item.GetAnnotations()[actMirrorPodAnnotation]; ok && v != "" {
		return &Output{Skip: true, Reason: "a mirror Pod: the kubelet of its node makes it from a static Pod"}, nil
	}
	unstructured.RemoveNestedField(obj, "spec", "nodeName")
	unstructured.RemoveNestedField(obj, "spec", "priority")
	unstructured.RemoveNestedField(obj, "spec", "ephemeralContainers")

	sa, err := actString(obj, "spec", "serviceAccountName")
	if err != nil {
		return nil, err
	}
	isToken := func(name string) bool { return strings.HasPrefix(name, sa+"-token-") }
	if err := actDropNamed(obj, isToken, "spec", "volumes"); err != nil {
		return nil, err
	}
	for _, field := range []string{"containers", "initContainers"} {
		containers, err := actObjects(obj, "spec", field)
		if err != nil {
			return nil, err
		}
		for _, c := range containers {
			if err := actDropNamed(c, isToken, "volumeMounts"); err != nil {
				return nil, fmt.Errorf("spec.%s: %w", field, err)
			}
		}
	}

	out := &Output{}
	pc, err := actString(obj, "spec", "priorityClassName")
	if err != nil {
		return nil, err
	}
	if pc != "" {
		out.AdditionalItems = []ItemRef{{GroupResource: kinds.PriorityClasses, Name: pc}}
	}
	return out, nil
}

// actDropNamed removes from the list at path in obj the objects whose name drop selects, and
// the field when nothing is left of a list it shortened.
func actDropNamed(obj map[string]any, drop func(string) bool, path ...string) error {
	list, err := actObjects(obj, path...)
	if err != nil || len(list) == 0 {
		return err
	}
	kept := make([]any, 0, len(list))
	for _, m := range list {
		if name, _ := m["name"].(string); drop(name) {
			continue
		}
		kept = append(kept, m)
	}
	switch {
	case len(kept) == len(list):
		return nil
	case len(kept) == 0:
		unstructured.RemoveNestedField(obj, path...)
		return nil
	}
	return unstructured.SetNestedField(obj, kept, path...)
}

// AddPVCFromPod returns the action "backupkit.io/add-pvc-from-pod": the
// PersistentVolumeClaims a Pod's volumes name are additional items of the Pod, as in
// Velero's action of that name, so that a claim is restored before the Pod that mounts it.
func AddPVCFromPod() ItemAction {
	return &builtinAction{
		name:      "backupkit.io/add-pvc-from-pod",
		resources: actKeys(kinds.Pods),
		execute: func(_ context.Context, in *Input) (*Output, error) {
			from := actBackup(in)
			volumes, err := actObjects(from.Object, "spec", "volumes")
			if err != nil {
				return nil, err
			}
			out := &Output{}
			for i, v := range volumes {
				claim, err := actString(v, "persistentVolumeClaim", "claimName")
				if err != nil {
					return nil, fmt.Errorf("spec.volumes[%d]: %w", i, err)
				}
				if claim != "" {
					out.AdditionalItems = append(out.AdditionalItems,
						ItemRef{GroupResource: kinds.PersistentVolumeClaims, Namespace: from.GetNamespace(), Name: claim})
				}
			}
			return out, nil
		},
	}
}

// actJobUIDLabels are the labels the API server sets on a Job's selector and Pod template from
// the Job's UID (the first since Kubernetes 1.27, the second before it and beside it since).
var actJobUIDLabels = []string{"batch.kubernetes.io/controller-uid", "controller-uid"}

// Job returns the action "backupkit.io/job", which drops what the API server derived
// from the backed-up Job's UID: the UID labels of spec.selector.matchLabels and of the Pod
// template, as Velero's job action does, and, unless spec.manualSelector is true, the whole
// selector, which the API server generates again: it refuses a selector it did not
// generate ("`selector` not auto-generated").
func Job() ItemAction {
	return &builtinAction{
		name:      "backupkit.io/job",
		resources: actKeys(kinds.Jobs),
		execute: func(_ context.Context, in *Input) (*Output, error) {
			obj := in.Item.Object
			manual, _, err := unstructured.NestedFieldNoCopy(obj, "spec", "manualSelector")
			if err != nil {
				return nil, err
			}
			if manual != true {
				unstructured.RemoveNestedField(obj, "spec", "selector")
			}
			for _, path := range [][]string{{"spec", "selector", "matchLabels"}, {"spec", "template", "metadata", "labels"}} {
				labels, err := actMap(obj, path...)
				if err != nil {
					return nil, err
				}
				for _, l := range actJobUIDLabels {
					delete(labels, l)
				}
			}
			return &Output{}, nil
		},
	}
}

// ImageNameRule is one rule of [ChangeImageName]: an image whose name contains Old
// has every occurrence of Old replaced by New.
type ImageNameRule struct {
	Old, New string
}

// ImageNameRules reads the rules of the data of Velero's ConfigMap for its
// change-image-name action: each value is "<old>,<new>" (spaces around either part
// ignored), and the key only names the rule. The rules come in the order of their keys;
// values without a comma or with an empty part are left out.
func ImageNameRules(data map[string]string) []ImageNameRule {
	var rules []ImageNameRule
	for _, k := range slices.Sorted(maps.Keys(data)) {
		old, repl, ok := strings.Cut(data[k], ",")
		old, repl = strings.TrimSpace(old), strings.TrimSpace(repl)
		if ok && old != "" && repl != "" {
			rules = append(rules, ImageNameRule{Old: old, New: repl})
		}
	}
	return rules
}

// ChangeImageName returns the action "backupkit.io/change-image-name", Velero's
// change-image-name action with its rules given here rather than read from a ConfigMap: in
// every container and init container of a Pod, and of the Pod template of a Deployment,
// StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Job or CronJob, the first rule
// whose Old the image contains rewrites it. Rules with an empty Old or New are ignored.
func ChangeImageName(rules ...ImageNameRule) ItemAction {
	rules = slices.DeleteFunc(slices.Clone(rules), func(r ImageNameRule) bool { return r.Old == "" || r.New == "" })
	return &builtinAction{
		name: "backupkit.io/change-image-name",
		resources: actKeys(kinds.Pods, kinds.Deployments, kinds.StatefulSets, kinds.DaemonSets, kinds.ReplicaSets,
			kinds.ReplicationControllers, kinds.Jobs, kinds.CronJobs),
		execute: func(_ context.Context, in *Input) (*Output, error) {
			podSpec := []string{"spec", "template", "spec"}
			switch in.Resource {
			case kinds.Pods:
				podSpec = []string{"spec"}
			case kinds.CronJobs:
				podSpec = []string{"spec", "jobTemplate", "spec", "template", "spec"}
			}
			for _, field := range []string{"containers", "initContainers"} {
				path := append(slices.Clone(podSpec), field)
				containers, err := actObjects(in.Item.Object, path...)
				if err != nil {
					return nil, err
				}
				for i, c := range containers {
					image, err := actString(c, "image")
					if err != nil {
						return nil, fmt.Errorf("%s[%d]: %w", actPath(path), i, err)
					}
					for _, r := range rules {
						if strings.Contains(image, r.Old) {
							c["image"] = strings.ReplaceAll(image, r.Old, r.New)
							break
						}
					}
				}
			}
			return &Output{}, nil
		},
	}
}
