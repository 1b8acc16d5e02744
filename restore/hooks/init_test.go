package hooks_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/restore/actions"
	"github.com/backupkit/backupkit/restore/hooks"
)

// specInit is a spec of one resource hook, named name, for the namespaces given (none:
// all), adding init containers named containers.
func specInit(name string, namespaces []string, containers ...string) hooks.ResourceHookSpec {
	in := &hooks.InitHook{}
	for _, c := range containers {
		in.InitContainers = append(in.InitContainers, corev1.Container{Name: c, Image: "busybox", Command: []string{"echo", c}})
	}
	return hooks.ResourceHookSpec{Name: name, IncludedNamespaces: namespaces, PostHooks: []hooks.ResourceHook{{Init: in}}}
}

// The init containers a restored Pod gets, as Velero's InitRestoreHookPodAction adds
// them (the cases of Velero v1.18.3's TestHandleRestoreHooks and
// TestGetInitContainerFromAnnotations): from the annotations when the Pod has them, else
// from every resource hook that selects it by its namespace in the target and its labels;
// before the Pod's own init containers, after a restore-wait container that comes first.
func TestExecuteInitContainers(t *testing.T) {
	fromAnnotations := []string{hooks.InitImageAnnotation, "busybox", hooks.InitNameAnnotation, "restore-hook-init1", hooks.InitCommandAnnotation, `["a","b","c"]`}
	for _, tc := range []struct {
		name string
		spec []hooks.ResourceHookSpec
		pod  *corev1.Pod
		want []string // the init containers' names, in order; nil: the item unchanged
	}{
		{name: "from annotations, the pod has none", pod: newPod("default", "app1", []string{"c"}, annotated(fromAnnotations...)),
			want: []string{"restore-hook-init1"}},
		{name: "from annotations, before the pod's own", pod: newPod("default", "app1", []string{"c"}, annotated(fromAnnotations...), initContainers("init-app-step1", "init-app-step2")),
			want: []string{"restore-hook-init1", "init-app-step1", "init-app-step2"}},
		{name: "from annotations, the spec ignored", spec: []hooks.ResourceHookSpec{specInit("h1", []string{"default"}, "spec-init1", "spec-init2")},
			pod:  newPod("default", "app1", []string{"c"}, annotated(fromAnnotations...), initContainers("init-app-step1")),
			want: []string{"restore-hook-init1", "init-app-step1"}},
		{name: "from the spec, the pod has none", spec: []hooks.ResourceHookSpec{specInit("h1", []string{"default"}, "restore-init-container-1", "restore-init-container-2")},
			pod: newPod("default", "app1", []string{"c"}), want: []string{"restore-init-container-1", "restore-init-container-2"}},
		{name: "from the spec, before the pod's own", spec: []hooks.ResourceHookSpec{specInit("h1", nil, "restore-init-container-1", "restore-init-container-2")},
			pod:  newPod("default", "app1", []string{"c"}, initContainers("init-app-step1", "init-app-step2")),
			want: []string{"restore-init-container-1", "restore-init-container-2", "init-app-step1", "init-app-step2"}},
		{name: "from several resource hooks, in the spec's order", spec: []hooks.ResourceHookSpec{specInit("h1", nil, "a"), specInit("h2", nil, "b", "c")},
			pod: newPod("default", "app1", []string{"c"}), want: []string{"a", "b", "c"}},
		{name: "no resource hook selects the pod's namespace", spec: []hooks.ResourceHookSpec{specInit("h1", []string{"ns-1"}, "restore-init-container-1")},
			pod: newPod("default", "app1", []string{"c"}, initContainers("init-app-step1"))},
		{name: "restore-wait alone stays first", spec: []hooks.ResourceHookSpec{specInit("h1", nil, "restore-init-container-1", "restore-init-container-2")},
			pod:  newPod("default", "app1", []string{"c"}, initContainers(hooks.RestoreWaitContainer)),
			want: []string{hooks.RestoreWaitContainer, "restore-init-container-1", "restore-init-container-2"}},
		{name: "restore-wait first among others stays first", spec: []hooks.ResourceHookSpec{specInit("h1", nil, "restore-init-container-1")},
			pod:  newPod("default", "app1", []string{"c"}, initContainers(hooks.RestoreWaitContainer, "init-app-step1")),
			want: []string{hooks.RestoreWaitContainer, "restore-init-container-1", "init-app-step1"}},
		{name: "restore-wait not first is the pod's own", spec: []hooks.ResourceHookSpec{specInit("h1", nil, "restore-init-container-1")},
			pod:  newPod("default", "app1", []string{"c"}, initContainers("init-app-step1", hooks.RestoreWaitContainer)),
			want: []string{"restore-init-container-1", "init-app-step1", hooks.RestoreWaitContainer}},
		{name: "no spec", pod: newPod("default", "app1", []string{"c"}, initContainers("init-app-step1"))},
		{name: "a resource hook without hooks", spec: []hooks.ResourceHookSpec{{Name: "h1"}}, pod: newPod("default", "app1", []string{"c"})},
		{name: "the pod's target namespace is selected, not its backed-up one: mapped away",
			spec: []hooks.ResourceHookSpec{specInit("h1", []string{"default"}, "restore-init-container-1")},
			pod:  newPod("new", "app1", []string{"c"})},
		{name: "the pod's target namespace is selected, not its backed-up one: mapped to",
			spec: []hooks.ResourceHookSpec{specInit("h1", []string{"new"}, "restore-init-container-1")},
			pod:  newPod("new", "app1", []string{"c"}), want: []string{"restore-init-container-1"}},
		{name: "by labels", spec: []hooks.ResourceHookSpec{func() hooks.ResourceHookSpec {
			s := specInit("h1", nil, "restore-init-container-1")
			s.LabelSelector = mustSelector(t, "app=db")
			return s
		}()}, pod: newPod("default", "app1", []string{"c"}, labelled("app", "db")), want: []string{"restore-init-container-1"}},
		{name: "by labels, not matching", spec: []hooks.ResourceHookSpec{func() hooks.ResourceHookSpec {
			s := specInit("h1", nil, "restore-init-container-1")
			s.LabelSelector = mustSelector(t, "app=db")
			return s
		}()}, pod: newPod("default", "app1", []string{"c"}, labelled("app", "web"))},
		{name: "by a namespace glob, excluded", spec: []hooks.ResourceHookSpec{func() hooks.ResourceHookSpec {
			s := specInit("h1", []string{"def*"}, "x")
			s.ExcludedNamespaces = []string{"default"}
			return s
		}()}, pod: newPod("default", "app1", []string{"c"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := hooks.NewAction(&hooks.Spec{Resources: tc.spec}, nil)
			require.NoError(t, err)
			item := toUnstructured(tc.pod)
			out, err := a.Execute(t.Context(), &actions.Input{Item: item, Resource: schema.GroupResource{Resource: "pods"}})
			require.NoError(t, err)
			if tc.want == nil {
				require.Nil(t, out)
				return
			}
			require.NotNil(t, out)
			var got []string
			list, _, _ := unstructuredSlice(out.Item.Object, "spec", "initContainers")
			for _, c := range list {
				got = append(got, c.(map[string]any)["name"].(string))
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// The init container from the annotations (Velero's getInitContainerFromAnnotation): none
// without an image; a name made from the Pod's identity when none is given; the command a
// JSON array, or the whole value as one word (a malformed array too); none: the image's.
func TestExecuteInitFromAnnotations(t *testing.T) {
	for _, tc := range []struct {
		name        string
		annotations []string
		want        *corev1.Container
	}{
		{name: "no image", annotations: []string{hooks.InitImageAnnotation, "", hooks.InitNameAnnotation, "n", hooks.InitCommandAnnotation, "/usr/bin/data-populator"}},
		{name: "image missing", annotations: []string{hooks.InitNameAnnotation, "n", hooks.InitCommandAnnotation, "/usr/bin/data-populator"}},
		{name: "name empty: made from the pod", annotations: []string{hooks.InitImageAnnotation, "busybox", hooks.InitNameAnnotation, "", hooks.InitCommandAnnotation, "/usr/bin/data-populator /user-data full"},
			want: &corev1.Container{Name: "velero-restore-init-d6d72834", Image: "busybox", Command: []string{"/usr/bin/data-populator /user-data full"}}},
		{name: "name missing: made from the pod", annotations: []string{hooks.InitImageAnnotation, "busybox"},
			want: &corev1.Container{Name: "velero-restore-init-d6d72834", Image: "busybox"}},
		{name: "all given", annotations: []string{hooks.InitImageAnnotation, "busybox", hooks.InitNameAnnotation, "restore-init", hooks.InitCommandAnnotation, "/usr/bin/data-populator /user-data full"},
			want: &corev1.Container{Name: "restore-init", Image: "busybox", Command: []string{"/usr/bin/data-populator /user-data full"}}},
		{name: "command a JSON array", annotations: []string{hooks.InitImageAnnotation, "busybox", hooks.InitNameAnnotation, "restore-init", hooks.InitCommandAnnotation, `["a","b","c"]`},
			want: &corev1.Container{Name: "restore-init", Image: "busybox", Command: []string{"a", "b", "c"}}},
		{name: "command a malformed JSON array", annotations: []string{hooks.InitImageAnnotation, "busybox", hooks.InitNameAnnotation, "restore-init", hooks.InitCommandAnnotation, `["a","b","c"`},
			want: &corev1.Container{Name: "restore-init", Image: "busybox", Command: []string{`["a","b","c"`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := hooks.NewAction(nil, nil)
			require.NoError(t, err)
			out, err := a.Execute(t.Context(), &actions.Input{Item: toUnstructured(newPod("ns", "pod", []string{"c"}, annotated(tc.annotations...)))})
			require.NoError(t, err)
			if tc.want == nil {
				require.Nil(t, out)
				return
			}
			got := podOf(t, out.Item)
			require.Equal(t, []corev1.Container{*tc.want}, got.Spec.InitContainers)
		})
	}
}
