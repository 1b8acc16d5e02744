package hooks

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// RestoreWaitContainer is the init container Velero's pod volume restore puts first in a
// Pod; init containers from hooks go after it, so that the volumes are restored before
// they run.
const RestoreWaitContainer = "restore-wait"

// withInitContainers returns the init containers the Pod gets, as Velero orders them: a
// RestoreWaitContainer first in the Pod stays first, then the init containers of the
// hooks, then the Pod's other init containers. Those of the hooks come from the Pod's
// annotations when they declare one, else from every resource hook that applies to the
// Pod in namespace ns (its namespace in the target), in the spec's order. added says
// how many were added.
func withInitContainers(rhs []resourceHooks, pod *corev1.Pod, ns string) (_ []corev1.Container, added int) {
	var fromHooks []corev1.Container
	if c := initFromAnnotations(ns, pod.Name, pod.Annotations); c != nil {
		fromHooks = append(fromHooks, *c)
	} else {
		for i := range rhs {
			if !rhs[i].applies(ns, pod.Labels) {
				continue
			}
			for _, h := range rhs[i].spec.PostHooks {
				if h.Init != nil {
					for _, c := range h.Init.InitContainers {
						fromHooks = append(fromHooks, *c.DeepCopy())
					}
				}
			}
		}
	}
	if len(fromHooks) == 0 {
		return pod.Spec.InitContainers, 0
	}
	existing := pod.Spec.InitContainers
	var out []corev1.Container
	if len(existing) > 0 && existing[0].Name == RestoreWaitContainer {
		out, existing = append(out, existing[0]), existing[1:]
	}
	out = append(append(out, fromHooks...), existing...)
	return out, len(fromHooks)
}

// Source says where a hook was declared.
type Source string

const (
	SourceAnnotation Source = "annotation" // the Pod's annotations
	SourceSpec       Source = "spec"       // the Spec
)

// podHook is one exec hook to run in a Pod, its container defaulted.
type podHook struct {
	name   string // the resource hook's name, or AnnotationHookName
	source Source
	hook   ExecHook
}

// execHooks returns the exec hooks of the Pod, grouped by container in the order of the
// Pod's containers (and the containers the Pod lacks last, by name), each group in the
// spec's order: the hook its annotations declare when they declare one, else those of
// every resource hook that applies to it. A hook without a container runs in the Pod's
// first; a Pod without containers has none.
func execHooks(rhs []resourceHooks, pod *corev1.Pod) [][]podHook {
	if len(pod.Spec.Containers) == 0 {
		return nil
	}
	first := pod.Spec.Containers[0].Name
	var all []podHook
	if h := execFromAnnotations(pod.Annotations); h != nil {
		all = append(all, podHook{name: AnnotationHookName, source: SourceAnnotation, hook: *h})
	} else {
		for i := range rhs {
			if !rhs[i].applies(pod.Namespace, pod.Labels) {
				continue
			}
			for _, h := range rhs[i].spec.PostHooks {
				if h.Exec != nil {
					all = append(all, podHook{name: rhs[i].spec.Name, source: SourceSpec, hook: *h.Exec})
				}
			}
		}
	}
	var order []string
	by := map[string][]podHook{}
	for _, ph := range all {
		if ph.hook.Container == "" {
			ph.hook.Container = first
		}
		if _, ok := by[ph.hook.Container]; !ok {
			order = append(order, ph.hook.Container)
		}
		by[ph.hook.Container] = append(by[ph.hook.Container], ph)
	}
	rank := func(name string) int {
		if i := slices.IndexFunc(pod.Spec.Containers, func(c corev1.Container) bool { return c.Name == name }); i >= 0 {
			return i
		}
		return len(pod.Spec.Containers)
	}
	slices.SortStableFunc(order, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		if rank(a) == len(pod.Spec.Containers) && a != b {
			if a < b {
				return -1
			}
			return 1
		}
		return 0
	})
	out := make([][]podHook, 0, len(order))
	for _, c := range order {
		out = append(out, by[c])
	}
	return out
}
