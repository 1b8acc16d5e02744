package restore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	validfield "k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/backupkit/backupkit/archive/archivetest"
	"github.com/backupkit/backupkit/restore/actions"
)

// The resources of the dry-run tests: testResources' and a CRD's with its custom resource.
var dryRunResources = map[string]schema.GroupVersionResource{
	"Namespace":                {Version: "v1", Resource: "namespaces"},
	"ConfigMap":                {Version: "v1", Resource: "configmaps"},
	"ServiceAccount":           {Version: "v1", Resource: "serviceaccounts"},
	"CustomResourceDefinition": {Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
	"Widget":                   {Group: "example.com", Version: "v1", Resource: "widgets"},
}

// dryRunServer is the fake dynamic client behind a layer that answers dry-run creates and
// patches as an API server does, storing nothing, and records each write's options (the
// fake drops them): AlreadyExists for an object the fake holds, NotFound for the namespace
// of a namespaced object the fake lacks or for a resource it does not serve (unserved),
// 422 Invalid for an object named in refuse, 403 Forbidden for every patch with
// refusePatch. Writes without the dry-run option go on to the fake, which stores them.
type dryRunServer struct {
	dyn         *dynamicfake.FakeDynamicClient
	unserved    map[schema.GroupResource]bool
	refuse      map[string]bool
	refusePatch bool

	mu     sync.Mutex
	uids   int
	writes []dryRunWrite
}

// dryRunWrite is one write the server was sent.
type dryRunWrite struct {
	verb   string
	gvr    schema.GroupVersionResource
	ns     string
	obj    *unstructured.Unstructured // what a create sent
	dryRun []string
}

var _ dynamic.Interface = (*dryRunServer)(nil)

func newDryRunServer(t *testing.T, existing ...runtime.Object) (*dryRunServer, Cluster) {
	t.Helper()
	kinds := map[schema.GroupVersionResource]string{}
	mapper := meta.NewDefaultRESTMapper(nil)
	for kind, gvr := range dryRunResources {
		kinds[gvr] = kind + "List"
		scope := meta.RESTScopeNamespace
		if kind == "Namespace" || kind == "CustomResourceDefinition" {
			scope = meta.RESTScopeRoot
		}
		mapper.Add(gvr.GroupVersion().WithKind(kind), scope)
	}
	s := &dryRunServer{dyn: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), kinds, existing...),
		unserved: map[schema.GroupResource]bool{}, refuse: map[string]bool{}}
	return s, Cluster{Dynamic: s, Mapper: mapper}
}

func (s *dryRunServer) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	nri := s.dyn.Resource(gvr)
	return &dryRunResource{ResourceInterface: nri, nri: nri, s: s, gvr: gvr}
}

func (s *dryRunServer) record(w dryRunWrite) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = append(s.writes, w)
}

type dryRunResource struct {
	dynamic.ResourceInterface
	nri dynamic.NamespaceableResourceInterface
	s   *dryRunServer
	gvr schema.GroupVersionResource
	ns  string
}

func (r *dryRunResource) Namespace(ns string) dynamic.ResourceInterface {
	c := *r
	c.ns, c.ResourceInterface = ns, r.nri.Namespace(ns)
	return &c
}

func (r *dryRunResource) Create(ctx context.Context, obj *unstructured.Unstructured, opts metav1.CreateOptions, sub ...string) (*unstructured.Unstructured, error) {
	r.s.record(dryRunWrite{verb: "create", gvr: r.gvr, ns: r.ns, obj: obj.DeepCopy(), dryRun: opts.DryRun})
	if len(opts.DryRun) == 0 {
		return r.ResourceInterface.Create(ctx, obj, opts, sub...)
	}
	s, gr := r.s, r.gvr.GroupResource()
	if s.unserved[gr] {
		return nil, apierrors.NewGenericServerResponse(404, "post", gr, "", "", 0, false)
	}
	if _, err := s.dyn.Tracker().Get(r.gvr, r.ns, obj.GetName()); err == nil {
		return nil, apierrors.NewAlreadyExists(gr, obj.GetName())
	}
	if r.ns != "" {
		if _, err := s.dyn.Tracker().Get(dryRunResources["Namespace"], "", r.ns); err != nil {
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, r.ns)
		}
	}
	if s.refuse[obj.GetName()] {
		return nil, apierrors.NewInvalid(obj.GroupVersionKind().GroupKind(), obj.GetName(),
			validfield.ErrorList{validfield.Invalid(validfield.NewPath("data"), "x", "refused by the test's rule")})
	}
	u := obj.DeepCopy()
	s.mu.Lock()
	s.uids++
	u.SetUID(types.UID(fmt.Sprintf("dry-%d", s.uids)))
	s.mu.Unlock()
	return u, nil
}

func (r *dryRunResource) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, sub ...string) (*unstructured.Unstructured, error) {
	r.s.record(dryRunWrite{verb: "patch", gvr: r.gvr, ns: r.ns, dryRun: opts.DryRun})
	if len(opts.DryRun) == 0 {
		return r.ResourceInterface.Patch(ctx, name, pt, data, opts, sub...)
	}
	if r.s.refusePatch {
		return nil, apierrors.NewForbidden(r.gvr.GroupResource(), name, errors.New("no updates here"))
	}
	return r.ResourceInterface.Get(ctx, name, metav1.GetOptions{})
}

func (r *dryRunResource) Update(ctx context.Context, obj *unstructured.Unstructured, opts metav1.UpdateOptions, sub ...string) (*unstructured.Unstructured, error) {
	r.s.record(dryRunWrite{verb: "update", gvr: r.gvr, ns: r.ns, dryRun: opts.DryRun})
	return r.ResourceInterface.Update(ctx, obj, opts, sub...)
}

func (r *dryRunResource) UpdateStatus(ctx context.Context, obj *unstructured.Unstructured, opts metav1.UpdateOptions) (*unstructured.Unstructured, error) {
	r.s.record(dryRunWrite{verb: "update status", gvr: r.gvr, ns: r.ns, dryRun: opts.DryRun})
	return r.ResourceInterface.UpdateStatus(ctx, obj, opts)
}

func (r *dryRunResource) Delete(ctx context.Context, name string, opts metav1.DeleteOptions, sub ...string) error {
	r.s.record(dryRunWrite{verb: "delete", gvr: r.gvr, ns: r.ns, dryRun: opts.DryRun})
	return r.ResourceInterface.Delete(ctx, name, opts, sub...)
}

// snapshot is every object the tracker holds, for "nothing changed".
func (s *dryRunServer) snapshot(t *testing.T) map[string]any {
	t.Helper()
	out := map[string]any{}
	for kind, gvr := range dryRunResources {
		if s.unserved[gvr.GroupResource()] {
			continue
		}
		list, err := s.dyn.Tracker().List(gvr, gvr.GroupVersion().WithKind(kind), "")
		require.NoError(t, err)
		items, err := meta.ExtractList(list)
		require.NoError(t, err)
		for _, o := range items {
			u := o.(*unstructured.Unstructured)
			out[gvr.Resource+"/"+u.GetNamespace()+"/"+u.GetName()] = u.DeepCopy().Object
		}
	}
	return out
}

func dryRunBackup(t *testing.T, objs ...*unstructured.Unstructured) []byte {
	t.Helper()
	var buf bytes.Buffer
	_, err := archivetest.WriteObjects(&buf, func(kind string) string {
		gvr := dryRunResources[kind]
		return gvr.GroupResource().String()
	}, objs...)
	require.NoError(t, err)
	return buf.Bytes()
}

func crdObject(name, group, plural, kind string) *unstructured.Unstructured {
	return testObject("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", name, "uid-crd", map[string]any{"spec": map[string]any{
		"group": group, "scope": "Namespaced",
		"names":    map[string]any{"plural": plural, "singular": "widget", "kind": kind, "listKind": kind + "List"},
		"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object"}}}}}})
}

// A dry run sends every create with the dry-run option and changes nothing; it reports
// what would be created, what exists, what the target refuses with the server's reason
// (and skips what depends on it, as a real run would), and counts an object whose
// namespace or CRD the restore creates first as would-be-created, not refused.
func TestDryRunReportsWithoutChanging(t *testing.T) {
	cm := func(ns, name, uid string) *unstructured.Unstructured {
		return testObject("v1", "ConfigMap", ns, name, uid, map[string]any{"data": map[string]any{"k": name}})
	}
	child := cm("ns", "child", "uid-child")
	child.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "refused", UID: "uid-refused"}})
	owned := cm("ns", "owned", "uid-owned")
	owned.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "ok", UID: "uid-ok"}})
	backup := dryRunBackup(t,
		testObject("v1", "Namespace", "", "new-ns", "uid-new-ns", nil),
		cm("new-ns", "in-new-ns", "uid-a"),
		cm("unplanned-ns", "in-unplanned-ns", "uid-b"),
		cm("ns", "there", "uid-there"),
		cm("ns", "ok", "uid-ok"),
		owned,
		cm("ns", "refused", "uid-refused"),
		child,
		crdObject("widgets.example.com", "example.com", "widgets", "Widget"),
		testObject("example.com/v1", "Widget", "ns", "w1", "uid-w1", map[string]any{"spec": map[string]any{"size": int64(1)}}),
	)
	plan, err := NewPlan(t.Context(), FromBytes(backup), []metav1.APIGroup{group("", "v1", "v1"), group("apiextensions.k8s.io", "v1", "v1")})
	require.NoError(t, err)
	require.Equal(t, 10, plan.Restorable(), "%v", plan.Skipped)

	existing := []runtime.Object{
		testObject("v1", "Namespace", "", "ns", "uid-target-ns", nil),
		testObject("v1", "ConfigMap", "ns", "there", "uid-target-there", map[string]any{"data": map[string]any{"k": "theirs"}}),
	}
	s, c := newDryRunServer(t, existing...)
	s.unserved[schema.GroupResource{Group: "example.com", Resource: "widgets"}] = true
	s.refuse["refused"] = true
	before := s.snapshot(t)

	sum, events, err := runEvents(t, plan, c, WithDryRun(true), WithStatus([]schema.GroupResource{{Resource: "configmaps"}}, nil), WithWait(true))
	require.ErrorContains(t, err, "restore: dry run: 2 of 10 items would not be restored")
	require.True(t, sum.DryRun)
	require.Equal(t, map[Result]int{ResultWouldCreate: 7, ResultExists: 1, ResultRefused: 1, ResultSkipped: 1}, sum.Counts)
	require.Equal(t, 1, sum.Restored, "only the object already there is in the target")

	type want struct {
		result Result
		detail string
	}
	wants := map[string]want{
		"new-ns":              {ResultWouldCreate, DetailDryRunAccepted},
		"in-new-ns":           {ResultWouldCreate, detailNamespaceNotYet},
		"in-unplanned-ns":     {ResultWouldCreate, detailNamespaceNotYet},
		"there":               {ResultExists, DetailLeftAsFoundDiffers},
		"ok":                  {ResultWouldCreate, DetailDryRunAccepted},
		"owned":               {ResultWouldCreate, DetailDryRunAccepted},
		"refused":             {ResultRefused, ""},
		"child":               {ResultSkipped, "manifest: resources/configmaps/namespaces/ns/child.json skipped: its dependency resources/configmaps/namespaces/ns/refused.json Failed"},
		"widgets.example.com": {ResultWouldCreate, DetailDryRunAccepted},
		"w1":                  {ResultWouldCreate, detailCRDNotYet},
	}
	require.Len(t, events, len(wants))
	for name, w := range wants {
		ev := events[name]
		require.Equal(t, w.result, ev.Result, name)
		require.Equal(t, w.detail, ev.Detail, name)
		if w.result == ResultWouldCreate {
			require.Empty(t, ev.UID, "%s is not in the target", name)
			require.Positive(t, ev.Order, name)
		}
	}
	require.Equal(t, types.UID("uid-target-there"), events["there"].UID)

	var refused *RefusedError
	require.ErrorAs(t, events["refused"].Err, &refused)
	require.Equal(t, types.UID("uid-refused"), refused.UID)
	require.True(t, apierrors.IsInvalid(refused.Err))
	require.EqualError(t, events["refused"].Err, `the target refuses resources/configmaps/namespaces/ns/refused.json: ConfigMap "refused" is invalid: data: Invalid value: "x": refused by the test's rule`)

	// Every write was a dry-run create; nothing reached the store, nothing changed.
	var ownedSent *unstructured.Unstructured
	for _, w := range s.writes {
		require.Equal(t, "create", w.verb, "%s %s", w.verb, w.gvr)
		require.Equal(t, []string{metav1.DryRunAll}, w.dryRun, "%s %s %s", w.verb, w.gvr, w.ns)
		if w.obj.GetName() == "owned" {
			ownedSent = w.obj
		}
	}
	require.Len(t, s.writes, 10+1, "every planned item but the skipped one, and the namespace the plan lacks")
	for _, a := range s.dyn.Actions() {
		require.Contains(t, []string{"get", "list"}, a.GetVerb(), "%s %s reached the store", a.GetVerb(), a.GetResource())
	}
	require.Equal(t, before, s.snapshot(t))

	// The child of a would-be-created owner is sent pointing at the UID the owner's
	// dry-run create was given, as a real run points it at the owner's UID in the target.
	require.NotNil(t, ownedSent)
	refs := ownedSent.GetOwnerReferences()
	require.Len(t, refs, 1)
	require.Contains(t, string(refs[0].UID), "dry-")
}

// Under PolicyUpdate, an object that exists is dry-run updated: reported would-update when
// the target accepts it, and exists with the reason when it refuses, as a real run reports
// a failed update; nothing changes either way.
func TestDryRunExistingPolicyUpdate(t *testing.T) {
	backup := dryRunBackup(t, testObject("v1", "ConfigMap", "ns", "there", "uid-there", map[string]any{"data": map[string]any{"k": "ours"}}))
	plan, err := NewPlan(t.Context(), FromBytes(backup), []metav1.APIGroup{group("", "v1", "v1")})
	require.NoError(t, err)
	tests := []struct {
		name   string
		refuse bool
		result Result
		detail string
	}{
		{"accepted", false, ResultWouldUpdate, DetailDryRunAccepted},
		{"refused", true, ResultExists, `update failed, left as found: configmaps "there" is forbidden: no updates here`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c := newDryRunServer(t, testObject("v1", "Namespace", "", "ns", "uid-target-ns", nil),
				testObject("v1", "ConfigMap", "ns", "there", "uid-target-there", map[string]any{"data": map[string]any{"k": "theirs"}}))
			s.refusePatch = tt.refuse
			before := s.snapshot(t)
			sum, events, err := runEvents(t, plan, c, WithDryRun(true), WithExistingPolicy(PolicyUpdate))
			require.NoError(t, err)
			require.Equal(t, map[Result]int{tt.result: 1}, sum.Counts)
			require.Equal(t, tt.detail, events["there"].Detail)
			require.Equal(t, types.UID("uid-target-there"), events["there"].UID)
			var patched bool
			for _, w := range s.writes {
				patched = patched || w.verb == "patch"
				require.Equal(t, []string{metav1.DryRunAll}, w.dryRun, w.verb)
			}
			require.True(t, patched)
			require.Equal(t, before, s.snapshot(t))
		})
	}
}

// The item actions are told the restore is a dry run.
func TestDryRunTellsTheActions(t *testing.T) {
	backup := dryRunBackup(t, testObject("v1", "ConfigMap", "ns", "a", "uid-a", nil))
	plan, err := NewPlan(t.Context(), FromBytes(backup), []metav1.APIGroup{group("", "v1", "v1")})
	require.NoError(t, err)
	for _, dry := range []bool{false, true} {
		t.Run(fmt.Sprint("dry run ", dry), func(t *testing.T) {
			_, c := newDryRunServer(t, testObject("v1", "Namespace", "", "ns", "uid-target-ns", nil))
			var told []bool
			spy := &recordingAction{name: "test/spy", execute: func(in *actions.Input) *actions.Output {
				told = append(told, in.Restore.DryRun)
				return nil
			}}
			_, err := Run(t.Context(), plan, c, WithDryRun(dry), WithActions(spy))
			require.NoError(t, err)
			require.Equal(t, []bool{dry}, told)
		})
	}
}

// A namespace the restore creates under a mapped name is one it creates first, in a dry
// run too: what lives in it is would-create, not refused.
func TestDryRunMappedNamespace(t *testing.T) {
	cm := testObject("v1", "ConfigMap", "new-ns", "in-new-ns", "uid-a", map[string]any{"data": map[string]any{"k": "v"}})
	backup := dryRunBackup(t, testObject("v1", "Namespace", "", "new-ns", "uid-new-ns", nil), cm)
	plan, err := NewPlan(t.Context(), FromBytes(backup), []metav1.APIGroup{group("", "v1", "v1")},
		WithNamespaceMapping(map[string]string{"new-ns": "mapped-ns"}))
	require.NoError(t, err)
	s, c := newDryRunServer(t)
	before := s.snapshot(t)
	sum, events, err := runEvents(t, plan, c, WithDryRun(true))
	require.NoError(t, err)
	require.Equal(t, map[Result]int{ResultWouldCreate: 2}, sum.Counts)
	require.Equal(t, DetailDryRunAccepted, events["mapped-ns"].Detail)
	require.Equal(t, detailNamespaceNotYet, events["in-new-ns"].Detail)
	require.Equal(t, before, s.snapshot(t))
}

// In a namespace the dry run would create, the ServiceAccount "default" and the ConfigMap
// "kube-root-ca.crt" are predicted existing, not checked, when the target's controllers
// make them (its namespace "default" holds them, looked up once each): a real run finds
// them there. Without those controllers, or in a namespace that exists (where the
// dry-run create is the target's answer), they are what the target says.
func TestDryRunClusterMade(t *testing.T) {
	backup := dryRunBackup(t,
		testObject("v1", "Namespace", "", "new-ns", "uid-new-ns", nil),
		testObject("v1", "ServiceAccount", "new-ns", "default", "uid-sa-new", nil),
		testObject("v1", "ConfigMap", "new-ns", "kube-root-ca.crt", "uid-ca-new", nil),
		testObject("v1", "ServiceAccount", "new-ns", "web", "uid-web-new", nil),
		testObject("v1", "ServiceAccount", "unplanned-ns", "default", "uid-sa-unplanned", nil),
		testObject("v1", "ServiceAccount", "ns", "default", "uid-sa-ns", nil),
		testObject("v1", "ConfigMap", "ns", "kube-root-ca.crt", "uid-ca-ns", nil),
	)
	plan, err := NewPlan(t.Context(), FromBytes(backup), []metav1.APIGroup{group("", "v1", "v1")})
	require.NoError(t, err)
	made := ResultExists
	for _, tc := range []struct {
		name        string
		controllers bool // the target's namespace "default" holds what its controllers make
		inNew       Result
		inNewDetail string
		made        int // the report's count of what the target's controllers make
	}{
		{name: "the target's controllers make them", controllers: true, inNew: made, inNewDetail: detailMadeByCluster, made: 3},
		{name: "no such controllers", inNew: ResultWouldCreate, inNewDetail: detailNamespaceNotYet},
	} {
		t.Run(tc.name, func(t *testing.T) {
			existing := []runtime.Object{
				testObject("v1", "Namespace", "", "default", "uid-target-default", nil),
				testObject("v1", "Namespace", "", "ns", "uid-target-ns", nil),
			}
			if tc.controllers {
				existing = append(existing,
					testObject("v1", "ServiceAccount", "default", "default", "uid-target-sa", nil),
					testObject("v1", "ConfigMap", "default", "kube-root-ca.crt", "uid-target-ca", nil))
			}
			s, c := newDryRunServer(t, existing...)
			var buf bytes.Buffer
			rep := NewReportWriter(&buf, false, "")
			byUID := map[types.UID]Event{} // the events, one at a time (WithEvents)
			sum, err := Run(t.Context(), plan, c, WithDryRun(true), WithEvents(func(ev Event) {
				byUID[ev.Item.uid()] = ev
				rep.Add(ev)
			}))
			require.NoError(t, err)
			require.NoError(t, rep.Finish(sum))
			require.Len(t, byUID, plan.Restorable())
			for uid, w := range map[types.UID]struct {
				result Result
				detail string
			}{
				"uid-sa-new":       {tc.inNew, tc.inNewDetail},
				"uid-ca-new":       {tc.inNew, tc.inNewDetail},
				"uid-sa-unplanned": {tc.inNew, tc.inNewDetail},
				"uid-web-new":      {ResultWouldCreate, detailNamespaceNotYet},
				"uid-sa-ns":        {ResultWouldCreate, DetailDryRunAccepted},
				"uid-ca-ns":        {ResultWouldCreate, DetailDryRunAccepted},
			} {
				require.Equal(t, w.result, byUID[uid].Result, uid)
				require.Equal(t, w.detail, byUID[uid].Detail, uid)
				require.Empty(t, byUID[uid].UID, uid)
			}
			require.Contains(t, buf.String(), fmt.Sprintf("already there (%d of them not checked: made by the target's controllers in a namespace the restore creates)", tc.made))
			gets := map[string]int{}
			for _, a := range s.dyn.Actions() {
				if a.GetVerb() == "get" && a.GetNamespace() == "default" {
					gets[a.GetResource().Resource]++
				}
			}
			require.Equal(t, map[string]int{"serviceaccounts": 1, "configmaps": 1}, gets, "each looked up once")
		})
	}
}
