package actions_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/restore/actions"
)

// actCase is one row of an action's table: the item (and, when it differs, the object as
// backed up) as JSON, and what the action must make of it.
type actCase struct {
	name   string
	item   string
	backup string // "" : the same as item
	info   *actions.Info
	want   string // "" : the item unchanged
	skip   bool
	refs   []actions.ItemRef
	err    string // a part of the error expected
}

func actJSON(t *testing.T, s string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &m), s)
	return &unstructured.Unstructured{Object: m}
}

// runActCases runs every case through a, checking that a applies to gr, that the object as
// backed up is left alone, and the result.
func runActCases(t *testing.T, a actions.ItemAction, gr schema.GroupResource, cases []actCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			item := actJSON(t, tc.item)
			backupJSON := tc.backup
			if backupJSON == "" {
				backupJSON = tc.item
			}
			backup := actJSON(t, backupJSON)
			require.Contains(t, a.AppliesTo().IncludedResources, gr.String(), "%s does not apply to %s", a.Name(), gr)
			info := tc.info
			if info == nil {
				info = &actions.Info{Name: "r"}
			}
			out, err := a.Execute(context.Background(), &actions.Input{Item: item, ItemFromBackup: backup, Resource: gr, Restore: info})
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, out)
			require.Equal(t, actJSON(t, backupJSON).Object, backup.Object, "the object as backed up changed")
			require.Equal(t, tc.skip, out.Skip)
			if tc.skip {
				require.NotEmpty(t, out.Reason)
			}
			require.Equal(t, tc.refs, out.AdditionalItems)
			if !tc.skip {
				got := out.Item
				if got == nil {
					got = item
				}
				want := tc.want
				if want == "" {
					want = tc.item
				}
				require.Equal(t, actJSON(t, want).Object, got.Object)
			}
		})
	}
}

func TestDefaultActions(t *testing.T) {
	a, b := actions.Default(), actions.Default()
	var names []string
	for _, x := range a {
		names = append(names, x.Name())
	}
	require.Equal(t, []string{
		"backupkit.io/skip-completed", "backupkit.io/apiservice", "backupkit.io/pod", "backupkit.io/add-pvc-from-pod",
		"backupkit.io/job", "backupkit.io/service", "backupkit.io/service-account", "backupkit.io/secret",
		"backupkit.io/persistent-volume", "backupkit.io/persistent-volume-claim", "backupkit.io/role-binding",
		"backupkit.io/cluster-role-binding", "backupkit.io/admission-webhook-configuration",
		"backupkit.io/crd-preserve-unknown-fields",
	}, names)
	a[0] = nil
	require.NotNil(t, b[0], "each call returns a new slice")
	require.NotNil(t, actions.Default()[0])

	sel := b[1].AppliesTo()
	sel.IncludedResources[0] = "changed"
	require.Equal(t, []string{"apiservices.apiregistration.k8s.io"}, b[1].AppliesTo().IncludedResources)
}

func TestActionErrorsNameTheItem(t *testing.T) {
	in := &actions.Input{
		Item:           actJSON(t, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"to"},"spec":{"volumes":"x"}}`),
		ItemFromBackup: actJSON(t, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"from"}}`),
		Resource:       schema.GroupResource{Resource: "pods"},
		Restore:        &actions.Info{},
	}
	_, err := actions.Pod().Execute(context.Background(), in)
	require.EqualError(t, err, "pods from/p: spec.volumes is a string, not a list")

	_, err = actions.Pod().Execute(context.Background(), &actions.Input{})
	require.Error(t, err)
}

var (
	actGRPods = schema.GroupResource{Resource: "pods"}
	actGRJobs = schema.GroupResource{Group: "batch", Resource: "jobs"}
)

func TestSkipCompletedAction(t *testing.T) {
	runActCases(t, actions.SkipCompleted(), actGRPods, []actCase{
		{name: "running pod", item: `{"metadata":{"name":"p"}}`, backup: `{"metadata":{"name":"p"},"status":{"phase":"Running"}}`},
		{name: "succeeded pod", item: `{"metadata":{"name":"p"}}`, backup: `{"metadata":{"name":"p"},"status":{"phase":"Succeeded"}}`, skip: true},
		{name: "failed pod", item: `{"metadata":{"name":"p"}}`, backup: `{"metadata":{"name":"p"},"status":{"phase":"Failed"}}`, skip: true},
		{name: "phase not a string", item: `{}`, backup: `{"status":{"phase":3}}`, err: "status.phase is a float64"},
	})
	runActCases(t, actions.SkipCompleted(), actGRJobs, []actCase{
		{name: "running job", item: `{}`, backup: `{"status":{"active":1}}`},
		{name: "completed job", item: `{}`, backup: `{"status":{"completionTime":"2024-01-01T00:00:00Z"}}`, skip: true},
		{name: "empty completion time", item: `{}`, backup: `{"status":{"completionTime":""}}`},
	})
}

func TestPodAction(t *testing.T) {
	runActCases(t, actions.Pod(), actGRPods, []actCase{
		// Velero's table.
		{name: "nodeName goes, and nothing else",
			item: `{"metadata":{"name":"pod-1"},"spec":{"nodeName":"foo","serviceAccountName":"bar"}}`,
			want: `{"metadata":{"name":"pod-1"},"spec":{"serviceAccountName":"bar"}}`},
		{name: "priority goes, and nothing else",
			item: `{"metadata":{"name":"pod-1"},"spec":{"priority":1,"serviceAccountName":"bar"}}`,
			want: `{"metadata":{"name":"pod-1"},"spec":{"serviceAccountName":"bar"}}`},
		{name: "volumes named <service account>-token-* go",
			item: `{"metadata":{"name":"pod-1"},"spec":{"serviceAccountName":"foo","volumes":[{"name":"foo"},{"name":"foo-token-foo"}]}}`,
			want: `{"metadata":{"name":"pod-1"},"spec":{"serviceAccountName":"foo","volumes":[{"name":"foo"}]}}`},
		{name: "and their mounts in containers",
			item: `{"metadata":{"name":"pod-1"},"spec":{"serviceAccountName":"foo","volumes":[{"name":"foo"},{"name":"foo-token-foo"}],
				"containers":[{"volumeMounts":[{"name":"foo"},{"name":"foo-token-foo"}]}]}}`,
			want: `{"metadata":{"name":"pod-1"},"spec":{"serviceAccountName":"foo","volumes":[{"name":"foo"}],
				"containers":[{"volumeMounts":[{"name":"foo"}]}]}}`},
		{name: "and in init containers",
			item: `{"metadata":{"name":"pod-1"},"spec":{"serviceAccountName":"foo","volumes":[{"name":"foo"},{"name":"foo-token-foo"}],
				"initContainers":[{"volumeMounts":[{"name":"foo"},{"name":"foo-token-foo"}]}]}}`,
			want: `{"metadata":{"name":"pod-1"},"spec":{"serviceAccountName":"foo","volumes":[{"name":"foo"}],
				"initContainers":[{"volumeMounts":[{"name":"foo"}]}]}}`},
		{name: "containers without mounts",
			item: `{"metadata":{"name":"pod-1"},"spec":{"serviceAccountName":"foo","volumes":[{"name":"foo"},{"name":"foo-token-foo"}],"containers":[{"name":"c"}]}}`,
			want: `{"metadata":{"name":"pod-1"},"spec":{"serviceAccountName":"foo","volumes":[{"name":"foo"}],"containers":[{"name":"c"}]}}`},
		{name: "the priority class is an additional item",
			item: `{"metadata":{"name":"pod-1"},"spec":{"serviceAccountName":"foo","priorityClassName":"testPriorityClass","volumes":[{"name":"foo"},{"name":"foo-token-foo"}]}}`,
			want: `{"metadata":{"name":"pod-1"},"spec":{"serviceAccountName":"foo","priorityClassName":"testPriorityClass","volumes":[{"name":"foo"}]}}`,
			refs: []actions.ItemRef{{GroupResource: schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"}, Name: "testPriorityClass"}}},
		// Ours.
		{name: "only token volume: the list goes",
			item: `{"metadata":{"name":"p"},"spec":{"serviceAccountName":"sa","volumes":[{"name":"sa-token-x"}],"containers":[{"volumeMounts":[{"name":"sa-token-x"}]}]}}`,
			want: `{"metadata":{"name":"p"},"spec":{"serviceAccountName":"sa","containers":[{}]}}`},
		{name: "another account's token stays",
			item: `{"metadata":{"name":"p"},"spec":{"serviceAccountName":"sa","volumes":[{"name":"other-token-x"},{"name":"kube-api-access-1"}]}}`},
		{name: "ephemeral containers go",
			item: `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}],"ephemeralContainers":[{"name":"debug"}]}}`,
			want: `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}]}}`},
		{name: "mirror pod skipped",
			item: `{"metadata":{"name":"p","annotations":{"kubernetes.io/config.mirror":"abc"}},"spec":{"nodeName":"n"}}`, skip: true},
		{name: "container not an object", item: `{"spec":{"containers":["c"]}}`, err: "spec.containers[0] is a string"},
	})
}

func TestAddPVCFromPodAction(t *testing.T) {
	pvcs := schema.GroupResource{Resource: "persistentvolumeclaims"}
	runActCases(t, actions.AddPVCFromPod(), actGRPods, []actCase{
		// Velero's table.
		{name: "no volumes, no additional items", item: `{}`},
		{name: "the claims of its volumes, in order",
			item: `{"metadata":{"namespace":"ns-1","name":"foo"},"spec":{"volumes":[
				{"emptyDir":{}},{"persistentVolumeClaim":{"claimName":"pvc-1"}},{"persistentVolumeClaim":{"claimName":"pvc-2"}},
				{"hostPath":{"path":"/"}},{"persistentVolumeClaim":{"claimName":"pvc-3"}}]}}`,
			refs: []actions.ItemRef{{GroupResource: pvcs, Namespace: "ns-1", Name: "pvc-1"},
				{GroupResource: pvcs, Namespace: "ns-1", Name: "pvc-2"}, {GroupResource: pvcs, Namespace: "ns-1", Name: "pvc-3"}}},
		// Ours: additional items are named as backed up, before namespace mapping.
		{name: "namespace as backed up",
			item:   `{"metadata":{"namespace":"to","name":"foo"},"spec":{"volumes":[{"persistentVolumeClaim":{"claimName":"c"}}]}}`,
			backup: `{"metadata":{"namespace":"from","name":"foo"},"spec":{"volumes":[{"persistentVolumeClaim":{"claimName":"c"}}]}}`,
			info:   &actions.Info{NamespaceMapping: map[string]string{"from": "to"}},
			refs:   []actions.ItemRef{{GroupResource: pvcs, Namespace: "from", Name: "c"}}},
	})
}

func TestJobAction(t *testing.T) {
	runActCases(t, actions.Job(), actGRJobs, []actCase{
		// Velero's table.
		{name: "no selector nor template", item: `{"metadata":{"name":"job-1"}}`},
		{name: "selector without matchLabels", item: `{"metadata":{"name":"job-1"},"spec":{"selector":{}}}`,
			want: `{"metadata":{"name":"job-1"},"spec":{}}`},
		{name: "selector without matchLabels, manual", item: `{"metadata":{"name":"job-1"},"spec":{"manualSelector":true,"selector":{}}}`},
		{name: "controller-uid leaves a manual selector",
			item: `{"metadata":{"name":"job-1"},"spec":{"manualSelector":true,"selector":{"matchLabels":{"controller-uid":"foo","hello":"world"}}}}`,
			want: `{"metadata":{"name":"job-1"},"spec":{"manualSelector":true,"selector":{"matchLabels":{"hello":"world"}}}}`},
		{name: "template without labels", item: `{"metadata":{"name":"job-1"},"spec":{"template":{}}}`},
		{name: "controller-uid leaves the template's labels",
			item: `{"metadata":{"name":"job-1"},"spec":{"template":{"metadata":{"labels":{"controller-uid":"foo","hello":"world"}}}}}`,
			want: `{"metadata":{"name":"job-1"},"spec":{"template":{"metadata":{"labels":{"hello":"world"}}}}}`},
		// Ours: a generated selector goes whole (Velero leaves {"hello":"world"}, which the
		// API server refuses when manualSelector is not true).
		{name: "generated selector goes",
			item: `{"metadata":{"name":"j"},"spec":{"selector":{"matchLabels":{"batch.kubernetes.io/controller-uid":"u","hello":"world"}},
				"template":{"metadata":{"labels":{"batch.kubernetes.io/controller-uid":"u","controller-uid":"u","batch.kubernetes.io/job-name":"j"}}}}}`,
			want: `{"metadata":{"name":"j"},"spec":{"template":{"metadata":{"labels":{"batch.kubernetes.io/job-name":"j"}}}}}`},
		{name: "manualSelector false", item: `{"spec":{"manualSelector":false,"selector":{"matchLabels":{"a":"b"}}}}`,
			want: `{"spec":{"manualSelector":false}}`},
		{name: "labels not an object", item: `{"spec":{"template":{"metadata":{"labels":[]}}}}`, err: "spec.template.metadata.labels is a []interface {}"},
	})
}

func TestImageNameRules(t *testing.T) {
	require.Equal(t, []actions.ImageNameRule{{Old: "1.1.1.1:5000", New: "2.2.2.2:3000"}, {Old: "abc", New: "def"}},
		actions.ImageNameRules(map[string]string{"b": "abc,def", "a": " 1.1.1.1:5000  ,  2.2.2.2:3000", "c": "no-comma", "d": "old,", "e": ",new"}))
	require.Nil(t, actions.ImageNameRules(nil))
}

func TestChangeImageNameAction(t *testing.T) {
	pod := func(image string) string {
		return `{"metadata":{"name":"pod1","namespace":"default"},"spec":{"containers":[{"name":"c","image":"` + image + `"}]}}`
	}
	rules := func(data map[string]string) actions.ItemAction {
		return actions.ChangeImageName(actions.ImageNameRules(data)...)
	}
	// Velero's table.
	for _, tc := range []struct {
		name       string
		data       map[string]string
		from, want string
	}{
		{"repository, with spaces", map[string]string{"case1": "1.1.1.1:5000  ,  2.2.2.2:3000"}, "1.1.1.1:5000/abc:test", "2.2.2.2:3000/abc:test"},
		{"repository", map[string]string{"specific": "1.1.1.1:5000,2.2.2.2:3000"}, "1.1.1.1:5000/abc:test", "2.2.2.2:3000/abc:test"},
		{"name", map[string]string{"specific": "abc:test,myproject:latest"}, "1.1.1.1:5000/abc:test", "1.1.1.1:5000/myproject:latest"},
		{"port", map[string]string{"specific": "5000,3333"}, "1.1.1.1:5000/abc:test", "1.1.1.1:3333/abc:test"},
		{"tag", map[string]string{"specific": "test,latest"}, "1.1.1.1:5000/abc:test", "1.1.1.1:5000/abc:latest"},
		{"a part matching twice", map[string]string{"specific": "dev/,test/"}, "dev/image1:dev", "test/image1:dev"},
	} {
		runActCases(t, rules(tc.data), actGRPods, []actCase{{name: tc.name, item: pod(tc.from), want: pod(tc.want)}})
	}
	// Ours.
	runActCases(t, actions.ChangeImageName(actions.ImageNameRule{Old: "a", New: "b"}, actions.ImageNameRule{Old: "x", New: "y"}),
		schema.GroupResource{Group: "batch", Resource: "cronjobs"}, []actCase{
			{name: "cron job: first rule wins, init containers too",
				item: `{"spec":{"jobTemplate":{"spec":{"template":{"spec":{"containers":[{"image":"ax"}],"initContainers":[{"image":"xx"},{"name":"noimage"}]}}}}}}`,
				want: `{"spec":{"jobTemplate":{"spec":{"template":{"spec":{"containers":[{"image":"bx"}],"initContainers":[{"image":"yy"},{"name":"noimage"}]}}}}}}`},
		})
	runActCases(t, actions.ChangeImageName(actions.ImageNameRule{Old: "a", New: "b"}),
		schema.GroupResource{Group: "apps", Resource: "deployments"}, []actCase{
			{name: "deployment", item: `{"spec":{"template":{"spec":{"containers":[{"image":"a"},{"image":"c"}]}}}}`,
				want: `{"spec":{"template":{"spec":{"containers":[{"image":"b"},{"image":"c"}]}}}}`},
			{name: "image not a string", item: `{"spec":{"template":{"spec":{"containers":[{"image":1}]}}}}`, err: "spec.template.spec.containers[0]"},
		})
	runActCases(t, actions.ChangeImageName(actions.ImageNameRule{Old: "", New: "b"}), actGRPods, []actCase{
		{name: "empty rule ignored", item: pod("a")},
	})
}

// errActBoom is an error a caller's function returns.
var errActBoom = errors.New("boom")
