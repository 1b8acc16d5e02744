package actions

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Default returns the built-in [ItemAction]s, in the order a restore runs them, as a
// new slice on every call, so that a caller may reorder it, replace an action (find it by
// Name) or append its own:
//
//   - [SkipCompleted]: Pods that had finished and Jobs that had completed
//   - [APIService]: APIServices the API server registers itself
//   - [Pod], [AddPVCFromPod]
//   - [Job]
//   - [Service]
//   - [ServiceAccount], [Secret] (without a lister of service accounts)
//   - [PersistentVolume], [PersistentVolumeClaim]
//   - [RoleBinding], [ClusterRoleBinding]
//   - [AdmissionWebhookConfiguration]
//   - [CRDPreserveUnknownFields]
//
// Actions that skip an item come first, so that no later action runs for it. The actions
// that need a mapping from the caller, [ChangeStorageClass] and
// [ChangeImageName], are not among them.
//
// Between them they do for Kubernetes' own kinds what Velero's built-in restore item
// actions and the per-kind rules of its restore do (pkg/restore/actions and
// pkg/restore/restore.go, Velero v1.18.1), leaving out what serves Velero's own machinery
// (restore hooks, pod volume restores, CSI snapshots and data movement) and what needs the
// restore as a whole (see [PersistentVolumeClaim] on spec.volumeName).
func Default() []ItemAction {
	return []ItemAction{
		SkipCompleted(),
		APIService(),
		Pod(),
		AddPVCFromPod(),
		Job(),
		Service(),
		ServiceAccount(),
		Secret(nil),
		PersistentVolume(),
		PersistentVolumeClaim(),
		RoleBinding(),
		ClusterRoleBinding(),
		AdmissionWebhookConfiguration(),
		CRDPreserveUnknownFields(),
	}
}

// builtinAction is an ItemAction made of its name, the resources it applies to and a
// function.
type builtinAction struct {
	name      string
	resources []string
	execute   func(ctx context.Context, in *Input) (*Output, error)
}

var _ ItemAction = (*builtinAction)(nil)

func (a *builtinAction) Name() string { return a.name }

func (a *builtinAction) AppliesTo() Selector {
	return Selector{IncludedResources: slices.Clone(a.resources)}
}

// Execute runs the action's function, naming the item in its error.
func (a *builtinAction) Execute(ctx context.Context, in *Input) (*Output, error) {
	if in == nil || in.Item == nil {
		return nil, fmt.Errorf("%s: no item", a.name)
	}
	out, err := a.execute(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", actItemName(in), err)
	}
	return out, nil
}

// actAnnotationLastAppliedConfig is kubectl's record of the object it last applied.
const actAnnotationLastAppliedConfig = "kubectl.kubernetes.io/last-applied-configuration"

// actKeys names resources as a Selector does: "<resource>" in the core group,
// "<resource>.<group>" otherwise.
func actKeys(grs ...schema.GroupResource) []string {
	keys := make([]string, len(grs))
	for i, gr := range grs {
		keys[i] = gr.String()
	}
	return keys
}

// actItemName names the item of in as backed up when the backup copy is given: its
// resource and namespace/name.
func actItemName(in *Input) string {
	u := in.ItemFromBackup
	if u == nil {
		u = in.Item
	}
	ref := ItemRef{GroupResource: in.Resource, Namespace: u.GetNamespace(), Name: u.GetName()}
	return ref.String()
}

// actBackup is the object as backed up, or the item when the backup copy is not given.
func actBackup(in *Input) *unstructured.Unstructured {
	if in.ItemFromBackup != nil {
		return in.ItemFromBackup
	}
	return in.Item
}

// actMap returns the map at path in obj: nil and no error when it is absent or null, an
// error naming the path when it is something else.
func actMap(obj map[string]any, path ...string) (map[string]any, error) {
	v, ok, err := unstructured.NestedFieldNoCopy(obj, path...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", actPath(path), err)
	}
	if !ok || v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is a %T, not an object", actPath(path), v)
	}
	return m, nil
}

// actSlice returns the list at path in obj, not copied: nil and no error when it is absent
// or null, an error naming the path when it is something else.
func actSlice(obj map[string]any, path ...string) ([]any, error) {
	v, ok, err := unstructured.NestedFieldNoCopy(obj, path...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", actPath(path), err)
	}
	if !ok || v == nil {
		return nil, nil
	}
	s, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is a %T, not a list", actPath(path), v)
	}
	return s, nil
}

// actObjects returns the list at path in obj as objects, an error naming the entry when one
// is not an object.
func actObjects(obj map[string]any, path ...string) ([]map[string]any, error) {
	s, err := actSlice(obj, path...)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(s))
	for i, v := range s {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s[%d] is a %T, not an object", actPath(path), i, v)
		}
		out = append(out, m)
	}
	return out, nil
}

// actString returns the string at path in obj: "" when absent or null, an error naming the
// path when it is something else.
func actString(obj map[string]any, path ...string) (string, error) {
	v, ok, err := unstructured.NestedFieldNoCopy(obj, path...)
	if err != nil {
		return "", fmt.Errorf("%s: %w", actPath(path), err)
	}
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s is a %T, not a string", actPath(path), v)
	}
	return s, nil
}

// actInt reads an integer as JSON decoders and converters leave it: an int of any width, a
// whole float64, or a decimal string (as some last-applied configurations hold node ports).
func actInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		if n != float64(int64(n)) {
			return 0, false
		}
		return int64(n), true
	case string:
		var i int64
		if _, err := fmt.Sscan(n, &i); err != nil || fmt.Sprint(i) != n {
			return 0, false
		}
		return i, true
	}
	return 0, false
}

func actPath(path []string) string { return strings.Join(path, ".") }

// actDeleteAnnotations removes the keys from the item's annotations, and the annotations
// field when none is left.
func actDeleteAnnotations(u *unstructured.Unstructured, keys ...string) error {
	ann, err := actMap(u.Object, "metadata", "annotations")
	if err != nil || ann == nil {
		return err
	}
	for _, k := range keys {
		delete(ann, k)
	}
	if len(ann) == 0 {
		unstructured.RemoveNestedField(u.Object, "metadata", "annotations")
	}
	return nil
}
