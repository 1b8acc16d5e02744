package manifest_test

import (
	"testing"

	"github.com/backupkit/backupkit/manifest"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

func TestRemapOwnerReferences(t *testing.T) {
	refs := []metav1.OwnerReference{
		{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "old-rs", Controller: ptr(true), BlockOwnerDeletion: ptr(true)},
		{APIVersion: "v1", Kind: "ConfigMap", Name: "gone", UID: "old-cm"},
		{APIVersion: "cluster.x-k8s.io/v1beta1", Kind: "Cluster", Name: "c", UID: "old-c"},
	}
	orig := []metav1.OwnerReference{*refs[0].DeepCopy(), *refs[1].DeepCopy(), *refs[2].DeepCopy()}
	newUIDs := map[types.UID]types.UID{"old-rs": "new-rs", "old-c": "new-c", "unused": "x"}

	tests := map[string]struct {
		refs         []metav1.OwnerReference
		wantRemapped []metav1.OwnerReference
		wantUnmapped []metav1.OwnerReference
	}{
		"mixed": {
			refs: refs,
			wantRemapped: []metav1.OwnerReference{
				{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "new-rs", Controller: ptr(true), BlockOwnerDeletion: ptr(true)},
				{APIVersion: "cluster.x-k8s.io/v1beta1", Kind: "Cluster", Name: "c", UID: "new-c"},
			},
			wantUnmapped: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "gone", UID: "old-cm"}},
		},
		"none": {refs: nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			remapped, unmapped := manifest.RemapOwnerReferences(tc.refs, newUIDs)
			require.Equal(t, tc.wantRemapped, remapped)
			require.Equal(t, tc.wantUnmapped, unmapped)
		})
	}
	require.Equal(t, orig, refs, "input not modified")
	remapped, _ := manifest.RemapOwnerReferences(refs, newUIDs)
	*remapped[0].Controller = false
	require.True(t, *refs[0].Controller, "results share no pointer with the input")
}

func TestRemapUnstructured(t *testing.T) {
	obj := func(refs ...any) *unstructured.Unstructured {
		md := map[string]any{"name": "p", "namespace": "web"}
		if refs != nil {
			md["ownerReferences"] = refs
		}
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": md}}
	}
	ref := func(uid string) any {
		return map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs-" + uid, "uid": uid, "controller": true}
	}
	newUIDs := map[types.UID]types.UID{"a": "A"}

	u := obj(ref("a"), ref("b"))
	dropped, err := manifest.RemapUnstructured(u, newUIDs)
	require.NoError(t, err)
	require.Equal(t, []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs-b", UID: "b", Controller: ptr(true)}}, dropped)
	require.Equal(t, []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs-a", UID: "A", Controller: ptr(true)}}, u.GetOwnerReferences())

	u = obj(ref("b"))
	_, err = manifest.RemapUnstructured(u, newUIDs)
	require.NoError(t, err)
	_, found, _ := unstructured.NestedFieldNoCopy(u.Object, "metadata", "ownerReferences")
	require.False(t, found, "field removed when nothing is left")

	u = obj()
	dropped, err = manifest.RemapUnstructured(u, newUIDs)
	require.NoError(t, err)
	require.Nil(t, dropped)

	u = obj("not an object")
	_, err = manifest.RemapUnstructured(u, newUIDs)
	require.ErrorIs(t, err, manifest.ErrInvalidItem)
	require.ErrorContains(t, err, `ownerReferences of Pod "p"`)
	require.Equal(t, []any{"not an object"}, u.Object["metadata"].(map[string]any)["ownerReferences"], "unchanged on error")
}
