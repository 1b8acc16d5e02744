package modifiers_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"

	"github.com/backupkit/backupkit/restore/modifiers"
)

// yamlObject reads a Kubernetes object written as YAML.
func yamlObject(t testing.TB, s string) *unstructured.Unstructured {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(s))
	require.NoError(t, err)
	u := &unstructured.Unstructured{}
	require.NoError(t, u.UnmarshalJSON(j))
	return u
}

func mustModifiers(t testing.TB, rules string) *modifiers.Modifiers {
	t.Helper()
	m, err := modifiers.Parse([]byte(rules))
	require.NoError(t, err)
	return m
}

func configMapOf(data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "velero", Name: "mods"}, Data: data}
}

// The rules files of Velero's own tests of its ConfigMap reader, each with what it reads.
func TestFromConfigMap(t *testing.T) {
	tests := []struct {
		name string
		cm   *corev1.ConfigMap
		want modifiers.Spec
		err  string // "" when it reads
	}{
		{
			name: "replace and remove, two namespaces",
			cm: configMapOf(map[string]string{"rules.yaml": `version: v1
resourceModifierRules:
- conditions:
    groupResource: persistentvolumeclaims
    resourceNameRegex: ".*"
    namespaces: [bar, foo]
  patches:
  - operation: replace
    path: "/spec/storageClassName"
    value: "premium"
  - operation: remove
    path: "/metadata/labels/test"
`}),
			want: modifiers.Spec{Version: "v1", Rules: []modifiers.Rule{{
				Conditions: modifiers.Conditions{GroupResource: "persistentvolumeclaims", ResourceNameRegex: ".*", Namespaces: []string{"bar", "foo"}},
				Patches: []modifiers.JSONPatchOp{
					{Operation: "replace", Path: "/spec/storageClassName", Value: "premium"},
					{Operation: "remove", Path: "/metadata/labels/test"},
				},
			}}},
		},
		{
			name: "an object as the value of add, then copy",
			cm: configMapOf(map[string]string{"x": `version: v1
resourceModifierRules:
- conditions: {groupResource: deployments.apps, resourceNameRegex: "^test-.*$", namespaces: [bar, foo]}
  patches:
  - operation: add
    path: /spec/template/spec/containers/0
    value: '{"name": "nginx", "image": "nginx:1.14.2", "ports": [{"containerPort": 80}]}'
  - operation: copy
    from: /spec/template/spec/containers/0
    path: /spec/template/spec/containers/1
`}),
			want: modifiers.Spec{Version: "v1", Rules: []modifiers.Rule{{
				Conditions: modifiers.Conditions{GroupResource: "deployments.apps", ResourceNameRegex: "^test-.*$", Namespaces: []string{"bar", "foo"}},
				Patches: []modifiers.JSONPatchOp{
					{Operation: "add", Path: "/spec/template/spec/containers/0", Value: `{"name": "nginx", "image": "nginx:1.14.2", "ports": [{"containerPort": 80}]}`},
					{Operation: "copy", From: "/spec/template/spec/containers/0", Path: "/spec/template/spec/containers/1"},
				},
			}}},
		},
		{
			name: "an unknown field (version1) is refused",
			cm: configMapOf(map[string]string{"x": `version1: v1
resourceModifierRules:
- conditions: {groupResource: deployments.apps}
  patches: [{operation: remove, path: /spec/x}]
`}),
			err: `unknown field "version1"`,
		},
		{
			name: "a label selector and no patch",
			cm: configMapOf(map[string]string{"x": `version: v1
resourceModifierRules:
- conditions:
    groupResource: deployments.apps
    labelSelector:
      matchLabels: {a: b}
`}),
			want: modifiers.Spec{Version: "v1", Rules: []modifiers.Rule{{
				Conditions: modifiers.Conditions{GroupResource: "deployments.apps", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}},
			}}},
		},
		{name: "no ConfigMap", cm: nil, err: "no ConfigMap"},
		{name: "two data entries", cm: configMapOf(map[string]string{"a": "", "b": ""}), err: "ConfigMap velero/mods has 2 data entries, not 1"},
		{name: "no data entry", cm: configMapOf(nil), err: "ConfigMap velero/mods has 0 data entries, not 1"},
		{
			name: "matches and a merge patch in YAML",
			cm: configMapOf(map[string]string{"x": `version: v1
resourceModifierRules:
- conditions:
    groupResource: pods
    namespaces: [ns1]
    matches:
    - path: /metadata/annotations/foo
      value: bar
  mergePatches:
  - patchData: |
      metadata:
        annotations:
          foo: null`}),
			want: modifiers.Spec{Version: "v1", Rules: []modifiers.Rule{{
				Conditions:   modifiers.Conditions{GroupResource: "pods", Namespaces: []string{"ns1"}, Matches: []modifiers.MatchRule{{Path: "/metadata/annotations/foo", Value: "bar"}}},
				MergePatches: []modifiers.PatchData{{PatchData: "metadata:\n  annotations:\n    foo: null"}},
			}}},
		},
		{
			name: "a strategic merge patch in YAML",
			cm: configMapOf(map[string]string{"x": `version: v1
resourceModifierRules:
- conditions: {groupResource: pods, namespaces: [ns1]}
  strategicPatches:
  - patchData: |
      spec:
        containers:
        - name: nginx
          image: repo2/nginx`}),
			want: modifiers.Spec{Version: "v1", Rules: []modifiers.Rule{{
				Conditions:       modifiers.Conditions{GroupResource: "pods", Namespaces: []string{"ns1"}},
				StrategicPatches: []modifiers.PatchData{{PatchData: "spec:\n  containers:\n  - name: nginx\n    image: repo2/nginx"}},
			}}},
		},
		{
			name: "a merge patch in JSON",
			cm: configMapOf(map[string]string{"x": `version: v1
resourceModifierRules:
- conditions: {groupResource: pods, namespaces: [ns1]}
  mergePatches:
  - patchData: |
      {"metadata":{"annotations":{"foo":null}}}`}),
			want: modifiers.Spec{Version: "v1", Rules: []modifiers.Rule{{
				Conditions:   modifiers.Conditions{GroupResource: "pods", Namespaces: []string{"ns1"}},
				MergePatches: []modifiers.PatchData{{PatchData: `{"metadata":{"annotations":{"foo":null}}}`}},
			}}},
		},
		{
			name: "a strategic merge patch in JSON",
			cm: configMapOf(map[string]string{"x": `version: v1
resourceModifierRules:
- conditions: {groupResource: pods, namespaces: [ns1]}
  strategicPatches:
  - patchData: |
      {"spec":{"containers":[{"name": "nginx","image": "repo2/nginx"}]}}`}),
			want: modifiers.Spec{Version: "v1", Rules: []modifiers.Rule{{
				Conditions:       modifiers.Conditions{GroupResource: "pods", Namespaces: []string{"ns1"}},
				StrategicPatches: []modifiers.PatchData{{PatchData: `{"spec":{"containers":[{"name": "nginx","image": "repo2/nginx"}]}}`}},
			}}},
		},
		{
			name: "a quoted true stays a string in the spec",
			cm: configMapOf(map[string]string{"x": `version: v1
resourceModifierRules:
- conditions: {groupResource: deployments.apps}
  patches: [{operation: replace, path: /value/bool, value: "\"true\""}]`}),
			want: modifiers.Spec{Version: "v1", Rules: []modifiers.Rule{{
				Conditions: modifiers.Conditions{GroupResource: "deployments.apps"},
				Patches:    []modifiers.JSONPatchOp{{Operation: "replace", Path: "/value/bool", Value: `"true"`}},
			}}},
		},
		{
			name: "a bare true",
			cm: configMapOf(map[string]string{"x": `version: v1
resourceModifierRules:
- conditions: {groupResource: deployments.apps}
  patches: [{operation: replace, path: /value/bool, value: "true"}]`}),
			want: modifiers.Spec{Version: "v1", Rules: []modifiers.Rule{{
				Conditions: modifiers.Conditions{GroupResource: "deployments.apps"},
				Patches:    []modifiers.JSONPatchOp{{Operation: "replace", Path: "/value/bool", Value: "true"}},
			}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := modifiers.FromConfigMap(tt.cm)
			if tt.err != "" {
				require.ErrorIs(t, err, modifiers.ErrInvalid)
				require.ErrorContains(t, err, tt.err)
				require.Nil(t, m)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, m.Spec())
		})
	}
}

// Every check of the rules, Velero's and ours, with the exact message.
func TestParseInvalid(t *testing.T) {
	rule := func(body string) string {
		return "version: v1\nresourceModifierRules:\n- " + strings.ReplaceAll(body, "\n", "\n  ") + "\n"
	}
	const prefix = "restore/modifiers: invalid resource modifiers: "
	tests := []struct{ name, rules, want string }{
		{"not YAML", "version: [", ""},
		{"not an object", "[]", ""},
		{"unknown version", "version: v2\nresourceModifierRules:\n- conditions: {groupResource: pods}\n  mergePatches: [{patchData: '{}'}]",
			`version "v2" is not "v1"`},
		{"no rules", "version: v1\nresourceModifierRules: []", "no resourceModifierRules"},
		{"no groupResource", rule("conditions: {namespaces: [a]}\nmergePatches: [{patchData: '{}'}]"),
			"resourceModifierRules[0]: conditions.groupResource is empty"},
		{"two kinds of patch", rule("conditions: {groupResource: '*'}\npatches: [{operation: test, path: /spec/x, value: premium}]\nmergePatches: [{patchData: '{\"metadata\":{\"labels\":{\"a\":null}}}'}]"),
			"resourceModifierRules[0]: more than one kind of patch (patches, mergePatches); a rule has one"},
		{"unknown operation", rule("conditions: {groupResource: pods}\npatches: [{operation: invalid, path: /spec/x, value: premium}]"),
			`resourceModifierRules[0]: patches[0]: operation "invalid" is none of add, remove, replace, move, copy, test`},
		{"empty operation", rule("conditions: {groupResource: pods}\npatches: [{path: /spec/x, value: premium}]"),
			"resourceModifierRules[0]: patches[0]: operation is empty"},
		{"operation not in lower case", rule("conditions: {groupResource: pods}\npatches: [{operation: Replace, path: /spec/x, value: premium}]"),
			`resourceModifierRules[0]: patches[0]: operation "Replace" must be written "replace"`},
		{"empty path", rule("conditions: {groupResource: pods}\npatches: [{operation: replace, value: premium}]"),
			"resourceModifierRules[0]: patches[0]: path is empty"},
		{"path not a pointer", rule("conditions: {groupResource: pods}\npatches: [{operation: replace, path: spec/x, value: premium}]"),
			`resourceModifierRules[0]: patches[0]: path "spec/x" is not a JSON Pointer: it must start with '/'`},
		{"bad ~ escape", rule("conditions: {groupResource: pods}\npatches: [{operation: remove, path: /metadata/labels/a~2b}]"),
			`resourceModifierRules[0]: patches[0]: path "/metadata/labels/a~2b": '~' must be followed by 0 or 1`},
		{"copy without from", rule("conditions: {groupResource: pods}\npatches: [{operation: copy, path: /spec/x}]"),
			"resourceModifierRules[0]: patches[0]: from is empty"},
		{"value not JSON", rule("conditions: {groupResource: pods}\npatches: [{operation: add, path: /spec/x, value: '{a'}]"),
			`resourceModifierRules[0]: patches[0]: value "{a" is not valid JSON`},
		{"True is not JSON", rule("conditions: {groupResource: pods}\npatches: [{operation: add, path: /spec/x, value: 'True'}]"),
			`resourceModifierRules[0]: patches[0]: value "True" is not valid JSON`},
		{"bad regex", rule("conditions: {groupResource: persistentvolumeclaims, resourceNameRegex: '[a-z'}\npatches: [{operation: test, path: /spec/x, value: standard}]"),
			"resourceModifierRules[0]: conditions.resourceNameRegex: error parsing regexp: missing closing ]: `[a-z`"},
		// Velero's glob library (gobwas/glob) refuses these; "[a-]" is no list of 'a' and '-'.
		{"bad glob", rule("conditions: {groupResource: '[a-]*'}\nmergePatches: [{patchData: '{}'}]"),
			`resourceModifierRules[0]: conditions.groupResource "[a-]*": expected close range character`},
		{"bad glob, two ranges", rule("conditions: {groupResource: '[a-b-c]'}\nmergePatches: [{patchData: '{}'}]"),
			`resourceModifierRules[0]: conditions.groupResource "[a-b-c]": expected close range character`},
		{"bad namespace glob", rule("conditions: {groupResource: pods, namespaces: [ok, 'a[b']}\nmergePatches: [{patchData: '{}'}]"),
			`resourceModifierRules[0]: conditions.namespaces[1] "a[b": unexpected end of input`},
		{"bad label selector", rule("conditions: {groupResource: pods, labelSelector: {matchExpressions: [{key: a, operator: Near}]}}\nmergePatches: [{patchData: '{}'}]"),
			`resourceModifierRules[0]: conditions.labelSelector: "Near" is not a valid label selector operator`},
		{"match without path", rule("conditions: {groupResource: pods, matches: [{value: x}]}\nmergePatches: [{patchData: '{}'}]"),
			"resourceModifierRules[0]: conditions.matches[0]: path is empty"},
		{"merge patch not YAML", rule("conditions: {groupResource: pods}\nmergePatches: [{patchData: 'a: b:'}]"),
			"resourceModifierRules[0]: mergePatches[0]: patchData: yaml: mapping values are not allowed in this context"},
		{"merge patch bad JSON", rule("conditions: {groupResource: pods}\nmergePatches: [{patchData: '{\"a\"::1}'}]"), "resourceModifierRules[0]: mergePatches[0]: patchData"},
		{"strategic patch not YAML", rule("conditions: {groupResource: pods}\nstrategicPatches: [{patchData: 'a: b:'}]"), "resourceModifierRules[0]: strategicPatches[0]: patchData"},
		{"strategic patch bad JSON", rule("conditions: {groupResource: pods}\nstrategicPatches: [{patchData: '{\"a\"::1}'}]"), "resourceModifierRules[0]: strategicPatches[0]: patchData"},
		{"patch not an object", rule("conditions: {groupResource: pods}\nmergePatches: [{patchData: '[1]'}]"),
			"resourceModifierRules[0]: mergePatches[0]: patchData is not an object: [1]"},
		{"strategic patch not an object", rule("conditions: {groupResource: pods}\nstrategicPatches: [{patchData: '[1]'}]"),
			"resourceModifierRules[0]: strategicPatches[0]: patchData is not an object: [1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := modifiers.Parse([]byte(tt.rules))
			require.Nil(t, m)
			require.ErrorIs(t, err, modifiers.ErrInvalid)
			require.True(t, strings.HasPrefix(err.Error(), prefix), err.Error())
			require.Contains(t, err.Error(), tt.want)
			if strings.HasPrefix(tt.want, "resourceModifierRules[") {
				var re *modifiers.RuleError
				require.ErrorAs(t, err, &re)
				require.Equal(t, 0, re.Rule)
			}
		})
	}

	t.Run("every bad rule is named", func(t *testing.T) {
		_, err := modifiers.Parse([]byte(`version: v1
resourceModifierRules:
- conditions: {groupResource: pods}
  mergePatches: [{patchData: '{}'}]
- conditions: {groupResource: ''}
- conditions: {groupResource: pods}
  patches: [{operation: move, path: x}]
`))
		require.EqualError(t, err, prefix+"resourceModifierRules[1]: conditions.groupResource is empty\n"+
			"resourceModifierRules[2]: patches[0]: path \"x\" is not a JSON Pointer: it must start with '/'\nfrom is empty")
	})
}

const (
	pvcStandard = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: test-pvc, namespace: foo}
spec: {storageClassName: standard}`
	deployOne = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: test-deployment
  namespace: foo
  labels: {app: nginx}
spec:
  replicas: 1
  template:
    metadata:
      labels: {app: nginx}
    spec:
      containers:
      - {name: nginx, image: "nginx:latest"}`
	podNginx = `apiVersion: v1
kind: Pod
metadata: {name: pod1, namespace: fake}
spec:
  containers:
  - {image: nginx, name: nginx}`
	podNFS = `apiVersion: v1
kind: Pod
metadata: {name: pod1, namespace: fake}
spec:
  containers:
  - image: fake
    name: fake
    volumeMounts:
    - {mountPath: /fake1, name: vol1}
    - {mountPath: /fake2, name: vol2}
  volumes:
  - name: vol1
    nfs: {path: /fake2}
  - name: vol2
    emptyDir: {}`
	svc8000 = `apiVersion: v1
kind: Service
metadata: {name: svc1, namespace: fake}
spec:
  ports:
  - {name: fake1, port: 8001, protocol: TCP, targetPort: 8001}
  - {name: fake, port: 8000, protocol: TCP, targetPort: 8000}
  - {name: fake2, port: 8002, protocol: TCP, targetPort: 8002}`
	cmAB = `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm1
  namespace: fake
  labels: {a: b, c: d}`
)

// The cases of Velero's tests of applying rules, and ours: the object each leaves.
func TestApply(t *testing.T) {
	replace := func(s, old, new string) string {
		require.Contains(t, s, old)
		return strings.Replace(s, old, new, 1)
	}
	pvcPremium := replace(pvcStandard, "standard", "premium")
	pvcGold := replace(pvcStandard, "standard", "gold")
	deployTwo := replace(deployOne, "replicas: 1", "replicas: 2")
	deployNginxMysql := deployOne + "\n      - {name: mysql, image: \"mysql:latest\"}"
	cmAC := replace(cmAB, "a: b", "a: c")
	cmNoA := replace(cmAB, "a: b, ", "")
	const replicas1to2 = "patches:\n  - {operation: test, path: /spec/replicas, value: '1'}\n  - {operation: replace, path: /spec/replicas, value: '2'}"
	rules := func(rs ...string) string {
		return "version: v1\nresourceModifierRules:\n" + strings.Join(rs, "\n")
	}
	tests := []struct {
		name   string
		rules  string
		obj    string
		gr     string
		want   string // the object after; "" when unchanged
		errMsg string // the error's message begins with it; "" when no error
	}{
		{name: "a quoted false stays a string",
			rules: rules("- conditions: {groupResource: configmaps, resourceNameRegex: '.*'}\n  patches: [{operation: replace, path: /data/test, value: '\"false\"'}]"),
			obj:   "apiVersion: v1\nkind: ConfigMap\ndata: {test: 'true'}", gr: "configmaps",
			want: "apiVersion: v1\nkind: ConfigMap\ndata: {test: 'false'}"},
		{name: "test then replace: standard to premium",
			rules: rules("- conditions: {groupResource: persistentvolumeclaims, resourceNameRegex: '.*', namespaces: [foo]}\n  patches:\n  - {operation: test, path: /spec/storageClassName, value: standard}\n  - {operation: replace, path: /spec/storageClassName, value: premium}"),
			obj:   pvcStandard, gr: "persistentvolumeclaims", want: pvcPremium},
		{name: "conditions match the object as it was: standard to premium, premium to gold gives premium",
			rules: rules(
				"- conditions: {groupResource: persistentvolumeclaims, resourceNameRegex: '.*', matches: [{path: /spec/storageClassName, value: standard}]}\n  patches: [{operation: replace, path: /spec/storageClassName, value: premium}]",
				"- conditions: {groupResource: persistentvolumeclaims, resourceNameRegex: '.*', matches: [{path: /spec/storageClassName, value: premium}]}\n  patches: [{operation: replace, path: /spec/storageClassName, value: gold}]"),
			obj: pvcStandard, gr: "persistentvolumeclaims", want: pvcPremium},
		{name: "patches apply to the object as changed: standard to premium, standard to gold gives gold",
			rules: rules(
				"- conditions: {groupResource: persistentvolumeclaims, resourceNameRegex: '.*', matches: [{path: /spec/storageClassName, value: standard}]}\n  patches: [{operation: replace, path: /spec/storageClassName, value: premium}]",
				"- conditions: {groupResource: persistentvolumeclaims, resourceNameRegex: '.*', matches: [{path: /spec/storageClassName, value: standard}]}\n  patches: [{operation: replace, path: /spec/storageClassName, value: gold}]"),
			obj: pvcStandard, gr: "persistentvolumeclaims", want: pvcGold},
		{name: "replicas 1 to 2",
			rules: rules("- conditions: {groupResource: deployments.apps, resourceNameRegex: '^test-.*$', namespaces: [foo]}\n  " + replicas1to2),
			obj:   deployOne, gr: "deployments.apps", want: deployTwo},
		{name: "a failed test skips the rule's patches, with no error",
			rules: rules("- conditions: {groupResource: deployments.apps, resourceNameRegex: '^test-.*$', namespaces: [foo]}\n  patches:\n  - {operation: test, path: /spec/replicas, value: '5'}\n  - {operation: replace, path: /spec/replicas, value: '2'}"),
			obj:   deployOne, gr: "deployments.apps"},
		{name: "no name regex",
			rules: rules("- conditions: {groupResource: deployments.apps, namespaces: [foo]}\n  " + replicas1to2),
			obj:   deployOne, gr: "deployments.apps", want: deployTwo},
		{name: "no name regex, no namespaces",
			rules: rules("- conditions: {groupResource: deployments.apps}\n  " + replicas1to2),
			obj:   deployOne, gr: "deployments.apps", want: deployTwo},
		{name: "another namespace",
			rules: rules("- conditions: {groupResource: deployments.apps, resourceNameRegex: '.*', namespaces: [bar]}\n  " + replicas1to2),
			obj:   deployOne, gr: "deployments.apps"},
		{name: "a namespace glob",
			rules: rules("- conditions: {groupResource: deployments.apps, namespaces: [bar, 'f*']}\n  " + replicas1to2),
			obj:   deployOne, gr: "deployments.apps", want: deployTwo},
		{name: "add a container",
			rules: rules("- conditions: {groupResource: deployments.apps, resourceNameRegex: '^test-.*$', namespaces: [foo]}\n  patches: [{operation: add, path: /spec/template/spec/containers/1, value: '{\"name\": \"mysql\", \"image\": \"mysql:latest\"}'}]"),
			obj:   deployOne, gr: "deployments.apps", want: deployNginxMysql},
		{name: "copy a container, then change the copy",
			rules: rules("- conditions: {groupResource: deployments.apps, resourceNameRegex: '^test-.*$', namespaces: [foo]}\n  patches:\n" +
				"  - {operation: copy, from: /spec/template/spec/containers/0, path: /spec/template/spec/containers/1}\n" +
				"  - {operation: test, path: /spec/template/spec/containers/1/image, value: 'nginx:latest'}\n" +
				"  - {operation: replace, path: /spec/template/spec/containers/1/name, value: mysql}\n" +
				"  - {operation: replace, path: /spec/template/spec/containers/1/image, value: 'mysql:latest'}"),
			obj: deployOne, gr: "deployments.apps", want: deployNginxMysql},
		{name: "label selector matches",
			rules: rules("- conditions: {groupResource: deployments.apps, namespaces: [foo], labelSelector: {matchLabels: {app: nginx}}}\n  " + replicas1to2),
			obj:   deployOne, gr: "deployments.apps", want: deployTwo},
		{name: "label selector does not match",
			rules: rules("- conditions: {groupResource: deployments.apps, namespaces: [foo], labelSelector: {matchLabels: {app: nginx-mismatch}}}\n  " + replicas1to2),
			obj:   deployOne, gr: "deployments.apps"},
		{name: "strategic: update an image",
			rules: rules("- conditions: {groupResource: pods, namespaces: [fake]}\n  strategicPatches: [{patchData: '{\"spec\":{\"containers\":[{\"name\":\"nginx\",\"image\":\"nginx1\"}]}}'}]"),
			obj:   podNginx, gr: "pods", want: replace(podNginx, "image: nginx,", "image: nginx1,")},
		{name: "strategic: update an image, YAML",
			rules: rules("- conditions: {groupResource: pods, namespaces: [fake]}\n  strategicPatches:\n  - patchData: |\n      spec:\n        containers:\n        - name: nginx\n          image: nginx1"),
			obj:   podNginx, gr: "pods", want: replace(podNginx, "image: nginx,", "image: nginx1,")},
		{name: "strategic: nfs replaced by a PVC",
			rules: rules("- conditions: {groupResource: pods, namespaces: [fake]}\n  strategicPatches: [{patchData: '{\"spec\":{\"volumes\":[{\"nfs\":null,\"name\":\"vol1\",\"persistentVolumeClaim\":{\"claimName\":\"pvc1\"}}]}}'}]"),
			obj:   podNFS, gr: "pods", want: replace(podNFS, "nfs: {path: /fake2}", "persistentVolumeClaim: {claimName: pvc1}")},
		{name: "strategic: any volume source replaced by a PVC ($retainKeys)",
			rules: rules("- conditions: {groupResource: pods, namespaces: [fake]}\n  strategicPatches: [{patchData: '{\"spec\":{\"volumes\":[{\"$retainKeys\":[\"name\",\"persistentVolumeClaim\"],\"name\":\"vol1\",\"persistentVolumeClaim\":{\"claimName\":\"pvc1\"}}]}}'}]"),
			obj:   podNFS, gr: "pods", want: replace(podNFS, "nfs: {path: /fake2}", "persistentVolumeClaim: {claimName: pvc1}")},
		{name: "strategic: a service port ($setElementOrder, $patch: delete)",
			rules: rules("- conditions: {groupResource: services, namespaces: [fake]}\n  strategicPatches: [{patchData: '{\"spec\":{\"$setElementOrder/ports\":[{\"port\":8001},{\"port\":9000},{\"port\":8002}],\"ports\":[{\"name\":\"fake\",\"port\":9000,\"protocol\":\"TCP\",\"targetPort\":9000},{\"$patch\":\"delete\",\"port\":8000}]}}'}]"),
			obj:   svc8000, gr: "services", want: replace(svc8000, "port: 8000, protocol: TCP, targetPort: 8000", "port: 9000, protocol: TCP, targetPort: 9000")},
		{name: "strategic: a kind client-go does not know fails",
			rules: rules("- conditions: {groupResource: '**'}\n  strategicPatches: [{patchData: '{}'}]"),
			obj:   "apiVersion: v1\nkind: BadKind\nmetadata: {name: b}", gr: "badkinds",
			errMsg: `restore/modifiers: resource modifier failed: resourceModifierRules[0] on badkinds b: strategicPatches: no kind "BadKind" is registered for version "v1" in scheme`}, // then where in apimachinery
		{name: "merge: update a label",
			rules: rules("- conditions: {groupResource: configmaps, namespaces: [fake]}\n  mergePatches: [{patchData: '{\"metadata\":{\"labels\":{\"a\":\"c\"}}}'}]"),
			obj:   cmAB, gr: "configmaps", want: cmAC},
		{name: "merge: update a label, YAML",
			rules: rules("- conditions: {groupResource: configmaps, namespaces: [fake]}\n  mergePatches:\n  - patchData: |\n      metadata:\n        labels:\n          a: c"),
			obj:   cmAB, gr: "configmaps", want: cmAC},
		{name: "merge: delete a label",
			rules: rules("- conditions: {groupResource: configmaps, namespaces: [fake]}\n  mergePatches: [{patchData: '{\"metadata\":{\"labels\":{\"a\":null}}}'}]"),
			obj:   cmAB, gr: "configmaps", want: cmNoA},
		{name: "merge: add a label",
			rules: rules("- conditions: {groupResource: configmaps, namespaces: [fake]}\n  mergePatches: [{patchData: '{\"metadata\":{\"labels\":{\"a\":\"b\"}}}'}]"),
			obj:   cmNoA, gr: "configmaps", want: cmAB},
		{name: "merge: delete a label that is not there",
			rules: rules("- conditions: {groupResource: configmaps, namespaces: [fake]}\n  mergePatches: [{patchData: '{\"metadata\":{\"labels\":{\"a\":null}}}'}]"),
			obj:   cmNoA, gr: "configmaps"},
		{name: "glob *: every core resource",
			rules: rules("- conditions: {groupResource: '*', namespaces: [fake]}\n  mergePatches: [{patchData: '{\"metadata\":{\"labels\":{\"a\":\"c\"}}}'}]"),
			obj:   cmAB, gr: "configmaps", want: cmAC},
		{name: "glob *: not across the '.'",
			rules: rules("- conditions: {groupResource: '*', namespaces: [fake]}\n  mergePatches: [{patchData: '{\"metadata\":{\"labels\":{\"a\":\"c\"}}}'}]"),
			obj:   cmAB, gr: "fake.apps"},
		{name: "strategic: an empty patch changes nothing, as in Velero",
			rules: rules("- conditions: {groupResource: pods, namespaces: [fake]}\n  strategicPatches: [{patchData: ''}]"),
			obj:   podNginx, gr: "pods"},
		{name: "strategic: a null patch changes nothing",
			rules: rules("- conditions: {groupResource: pods, namespaces: [fake]}\n  strategicPatches: [{patchData: 'null'}]"),
			obj:   podNginx, gr: "pods"},
		{name: "strategic: a patch of only a comment changes nothing, the next one applies",
			rules: rules("- conditions: {groupResource: pods, namespaces: [fake]}\n  strategicPatches:\n  - patchData: '# nothing yet'\n  - patchData: '{\"spec\":{\"containers\":[{\"name\":\"nginx\",\"image\":\"nginx1\"}]}}'"),
			obj:   podNginx, gr: "pods", want: replace(podNginx, "image: nginx,", "image: nginx1,")},
		{name: "glob '{pods', which Velero's glob library reads as 'pods'",
			rules: rules("- conditions: {groupResource: '{configmaps', namespaces: [fake]}\n  mergePatches: [{patchData: '{\"metadata\":{\"labels\":{\"a\":\"c\"}}}'}]"),
			obj:   cmAB, gr: "configmaps", want: cmAC},
		{name: "glob *.apps",
			rules: rules("- conditions: {groupResource: '*.apps', namespaces: [fake]}\n  mergePatches: [{patchData: '{\"metadata\":{\"labels\":{\"a\":\"c\"}}}'}]"),
			obj:   cmAB, gr: "fake.apps", want: cmAC},
		{name: "matches: the value is there",
			rules: rules("- conditions: {groupResource: '*', namespaces: [fake], matches: [{path: /metadata/labels/a, value: b}]}\n  mergePatches: [{patchData: '{\"metadata\":{\"labels\":{\"a\":\"c\"}}}'}]"),
			obj:   cmAB, gr: "configmaps", want: cmAC},
		{name: "matches: another value",
			rules: rules("- conditions: {groupResource: '*', namespaces: [fake], matches: [{path: /metadata/labels/a, value: c}]}\n  mergePatches: [{patchData: '{\"metadata\":{\"labels\":{\"a\":\"c\"}}}'}]"),
			obj:   cmAB, gr: "configmaps"},
		{name: "matches: a path that is not there",
			rules: rules("- conditions: {groupResource: '*', namespaces: [fake], matches: [{path: /metadata/labels/a/b, value: c}]}\n  mergePatches: [{patchData: '{\"metadata\":{\"labels\":{\"a\":\"c\"}}}'}]"),
			obj:   cmAB, gr: "configmaps"},
		{name: "a rule with no patch fails what it matches",
			rules: rules("- conditions: {groupResource: configmaps}"),
			obj:   cmAB, gr: "configmaps", errMsg: "restore/modifiers: resource modifier failed: resourceModifierRules[0] on configmaps fake/cm1: the rule has no patches"},
		{name: "replacing a member that is not there fails, as RFC 6902 says",
			rules: rules("- conditions: {groupResource: configmaps}\n  patches: [{operation: replace, path: /metadata/labels/x, value: y}]"),
			obj:   cmAB, gr: "configmaps", errMsg: "restore/modifiers: resource modifier failed: resourceModifierRules[0] on configmaps fake/cm1: patches: replace operation does not apply: doc is missing key: /metadata/labels/x: missing value"},
		{name: "copy from a member that is not there fails and changes nothing (json-patch v5, Velero's)",
			rules: rules("- conditions: {groupResource: configmaps}\n  patches: [{operation: copy, from: /metadata/labels/missing, path: /metadata/labels/x}]"),
			obj:   cmAB, gr: "configmaps", errMsg: "restore/modifiers: resource modifier failed: resourceModifierRules[0] on configmaps fake/cm1: patches: "},
		{name: "test against null passes on a missing member (json-patch v5, Velero's)",
			rules: rules("- conditions: {groupResource: configmaps}\n  patches:\n  - {operation: test, path: /metadata/labels/x, value: 'null'}\n  - {operation: remove, path: /metadata/labels/a}"),
			obj:   cmAB, gr: "configmaps", want: cmNoA},
		{name: "a condition testing null matches a missing member",
			rules: rules("- conditions: {groupResource: configmaps, matches: [{path: /metadata/labels/x, value: 'null'}]}\n  mergePatches: [{patchData: '{\"metadata\":{\"labels\":{\"a\":\"c\"}}}'}]"),
			obj:   cmAB, gr: "configmaps", want: cmAC},
		{name: "a failed rule leaves what the others did",
			rules: rules("- conditions: {groupResource: configmaps}\n  patches: [{operation: remove, path: /spec}]",
				"- conditions: {groupResource: configmaps}\n  mergePatches: [{patchData: '{\"metadata\":{\"labels\":{\"a\":\"c\"}}}'}]"),
			obj: cmAB, gr: "configmaps", want: cmAC,
			errMsg: "restore/modifiers: resource modifier failed: resourceModifierRules[0] on configmaps fake/cm1: patches: error in remove for path: '/spec': unable to remove nonexistent key: spec: missing value"},
		{name: "a cluster-scoped object meets any namespaces condition",
			rules: rules("- conditions: {groupResource: namespaces, namespaces: [other]}\n  mergePatches: [{patchData: '{\"metadata\":{\"labels\":{\"a\":\"c\"}}}'}]"),
			obj:   "apiVersion: v1\nkind: Namespace\nmetadata: {name: n}", gr: "namespaces",
			want: "apiVersion: v1\nkind: Namespace\nmetadata: {name: n, labels: {a: c}}"},
		{name: "replace the image of every container named app",
			rules: rules("- conditions: {groupResource: deployments.apps}\n  patches: [{operation: replace, path: /spec/template/spec/containers/0/image, value: 'registry.example/nginx:2'}]"),
			obj:   deployOne, gr: "deployments.apps", want: replace(deployOne, "nginx:latest", "registry.example/nginx:2")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustModifiers(t, tt.rules)
			obj := yamlObject(t, tt.obj)
			err := m.Apply(obj, schema.ParseGroupResource(tt.gr))
			if tt.errMsg != "" {
				require.ErrorIs(t, err, modifiers.ErrFailed)
				var re *modifiers.RuleError
				require.ErrorAs(t, err, &re)
				require.True(t, strings.HasPrefix(err.Error(), tt.errMsg), "%v", err)
			} else {
				require.NoError(t, err)
			}
			want := tt.want
			if want == "" {
				want = tt.obj
			}
			require.Equal(t, yamlObject(t, want).Object, obj.Object)
		})
	}
}

// A JSON Patch value is read as Velero reads it.
func TestPatchValue(t *testing.T) {
	tests := []struct {
		value string
		want  any
	}{
		{"", ""},
		{"1", int64(1)},
		{"2.5", 2.5},
		{"1e400", "1e400"}, // out of float64's range: a string, as in Velero
		{"null", nil},
		{"true", true},
		{"false", false},
		{`"true"`, "true"},
		{`"1"`, "1"},
		{`"`, ""},
		{"premium", "premium"},
		{`a\tb`, "a\tb"},
		{`[{"containerPort": 80}]`, []any{map[string]any{"containerPort": int64(80)}}},
		{`{"name": "nginx"}`, map[string]any{"name": "nginx"}},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			spec := modifiers.Spec{Version: "V1", Rules: []modifiers.Rule{{
				Conditions: modifiers.Conditions{GroupResource: "configmaps"},
				Patches:    []modifiers.JSONPatchOp{{Operation: "add", Path: "/data/x", Value: tt.value}},
			}}}
			m, err := modifiers.New(spec)
			require.NoError(t, err)
			obj := yamlObject(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {}")
			require.NoError(t, m.Apply(obj, schema.GroupResource{Resource: "configmaps"}))
			require.Equal(t, tt.want, obj.Object["data"].(map[string]any)["x"])
		})
	}
}

// A nil *Modifiers changes nothing.
func TestNil(t *testing.T) {
	var m *modifiers.Modifiers
	obj := yamlObject(t, cmAB)
	require.NoError(t, m.Apply(obj, schema.GroupResource{Resource: "configmaps"}))
	require.Equal(t, yamlObject(t, cmAB), obj)
	require.Equal(t, modifiers.Spec{}, m.Spec())
}

// Property: rules whose groupResource matches no resource of the object leave it
// byte-identical, whatever they would do and whatever the object holds.
func TestNoMatchLeavesObject(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		labels := rapid.MapOf(rapid.StringMatching(`[a-z]{1,5}`), rapid.StringMatching(`[a-z0-9]{0,5}`)).Draw(t, "labels")
		ns := rapid.StringMatching(`[a-z]{0,4}`).Draw(t, "namespace")
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"data": map[string]any{"k": rapid.String().Draw(t, "data")}}}
		u.SetName(rapid.StringMatching(`[a-z]{1,6}`).Draw(t, "name"))
		u.SetNamespace(ns)
		u.SetLabels(labels)
		before, err := json.Marshal(u.Object)
		require.NoError(t, err)

		var rules []string
		for i := range rapid.IntRange(1, 4).Draw(t, "rules") {
			patch := rapid.SampledFrom([]string{
				"patches: [{operation: remove, path: /data}]",
				"patches: [{operation: add, path: /metadata/labels/x, value: y}]",
				"mergePatches: [{patchData: '{\"data\":null}'}]",
				"strategicPatches: [{patchData: '{\"data\":{\"k\":\"z\"}}'}]",
				"",
			}).Draw(t, "patch")
			cond := rapid.SampledFrom([]string{"", ", namespaces: ['*']", ", resourceNameRegex: '.'", ", matches: [{path: /kind, value: ConfigMap}]"}).Draw(t, "cond")
			rules = append(rules, "- conditions: {groupResource: "+[]string{"secrets", "configmaps.apps", "'*.*'", "'config?aps.x'"}[i%4]+cond+"}\n  "+patch)
		}
		m, err := modifiers.Parse([]byte("version: v1\nresourceModifierRules:\n" + strings.Join(rules, "\n")))
		require.NoError(t, err)
		require.NoError(t, m.Apply(u, schema.GroupResource{Resource: "configmaps"}))
		after, err := json.Marshal(u.Object)
		require.NoError(t, err)
		require.Equal(t, string(before), string(after))
	})
}

// FuzzParse: on any bytes the parser does not panic; what it accepts
// reads back the same (as JSON: an empty list and none are one) from its own spec written
// as JSON, and applies to an object without
// panicking.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := modifiers.Parse(data)
		if err != nil {
			require.ErrorIs(t, err, modifiers.ErrInvalid)
			require.Nil(t, m)
			return
		}
		out, err := json.Marshal(m.Spec())
		require.NoError(t, err)
		again, err := modifiers.Parse(out)
		require.NoError(t, err, "%s", out)
		out2, err := json.Marshal(again.Spec())
		require.NoError(t, err)
		require.Equal(t, string(out), string(out2))
		obj := yamlObject(t, deployOne)
		if err := m.Apply(obj, schema.GroupResource{Group: "apps", Resource: "deployments"}); err != nil {
			require.True(t, errors.Is(err, modifiers.ErrFailed), "%v", err)
		}
	})
}

// Read takes the rules file itself or the ConfigMap manifest holding it,
// in YAML or JSON, and means the same by both.
func TestRead(t *testing.T) {
	rules := "version: v1\nresourceModifierRules:\n- conditions:\n    groupResource: deployments.apps\n  patches:\n  - operation: replace\n    path: /spec/replicas\n    value: \"2\"\n"
	cmYAML := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mods\n  namespace: velero\ndata:\n  rules.yaml: |\n" +
		"    " + strings.ReplaceAll(strings.TrimSuffix(rules, "\n"), "\n", "\n    ") + "\n"
	cmJSON, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "mods", "namespace": "velero"}, "data": map[string]any{"r": rules}})
	require.NoError(t, err)
	for name, data := range map[string]string{"rules file": rules, "ConfigMap YAML": cmYAML, "ConfigMap JSON": string(cmJSON)} {
		t.Run(name, func(t *testing.T) {
			m, err := modifiers.Read([]byte(data))
			require.NoError(t, err)
			require.Len(t, m.Spec().Rules, 1)
			require.Equal(t, "deployments.apps", m.Spec().Rules[0].Conditions.GroupResource)
		})
	}
	for name, tc := range map[string]struct{ data, msg string }{
		"not YAML":               {"{", ""},
		"ConfigMap with a typo":  {"apiVersion: v1\nkind: ConfigMap\ndta:\n  r: x\n", "ConfigMap"},
		"ConfigMap of two rules": {"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m, namespace: n}\ndata:\n  a: x\n  b: y\n", "2 data entries"},
		"a bad rule inside":      {"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m, namespace: n}\ndata:\n  r: \"version: v2\"\n", `key "r"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := modifiers.Read([]byte(tc.data))
			require.ErrorIs(t, err, modifiers.ErrInvalid)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}
