package velerocompat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sirupsen/logrus"
	velerov1 "github.com/vmware-tanzu/velero/pkg/apis/velero/v1"
	veleroplugin "github.com/vmware-tanzu/velero/pkg/plugin/velero"
	riav1 "github.com/vmware-tanzu/velero/pkg/plugin/velero/restoreitemaction/v1"
	veleroactions "github.com/vmware-tanzu/velero/pkg/restore/actions"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"pgregory.net/rapid"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/backupkit/backupkit/restore/actions"
)

// The item actions of restore/actions against Velero v1.18.3's pkg/restore/actions, on
// random objects: each pair is given the same backed-up object (Velero's Item reset as its
// restore resets it, in the backed-up namespace, as its restore calls its actions; ours in
// the target's namespace), and their outcomes must agree, or differ only as restore/actions'
// godoc says they do. Two classes more are counted apart: an item Velero's action fails
// decoding whose output of ours the API server would refuse too (restored by neither), and
// the differences on inputs no API server serves (a null field, a wrong type ours drops
// unread, a claim without a name), which restore/actions' godoc names ("on malformed
// input"). Anything else fails, with the input and both outcomes. The size is rapid's
// (-rapid.checks, 100 per pair by default; -rapid.seed); the counts are logged (go test -v).
// Velero's PersistentVolume rules live in its restore (pkg/restore/restore.go), not in an
// importable function: they are not compared here.

// actCase is one item as both restores hand it to an action.
type actCase struct {
	backup            *unstructured.Unstructured // as backed up
	mapping           map[string]string
	preserveNodePorts bool
}

// actOutcome is what an action made of an item, in the terms both share.
type actOutcome struct {
	Err        string         `json:"err,omitempty"`
	Skip       bool           `json:"skip,omitempty"`
	Item       map[string]any `json:"item,omitempty"`
	Additional []string       `json:"additional,omitempty"`
}

// actPair is one Velero action and ours, with the random items they are compared on.
type actPair struct {
	name string
	draw func(t *rapid.T) map[string]any
	// build makes the pair for one case (a fresh fake cluster for the actions that read it).
	build func(t *rapid.T, c *actCase) (riav1.RestoreItemAction, actions.ItemAction)
	// documented names the documented difference of a case whose outcomes differ, after it
	// may have aligned them (returning them changed); "" is an undocumented difference.
	documented func(c *actCase, velero, ours *actOutcome) string
}

// actTally counts the outcomes of a pair.
type actTally struct {
	mu             sync.Mutex
	same, bothFail int
	documented     map[string]int
}

func (t *actTally) add(label string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch label {
	case "same":
		t.same++
	case "both fail":
		t.bothFail++
	default:
		if t.documented == nil {
			t.documented = map[string]int{}
		}
		t.documented[label]++
	}
}

func (t *actTally) String() string {
	s := fmt.Sprintf("%d same, %d both fail", t.same, t.bothFail)
	for _, k := range slices.Sorted(maps.Keys(t.documented)) {
		s += fmt.Sprintf(", %d %s", t.documented[k], k)
	}
	return s
}

func TestItemActionsAsVelero(t *testing.T) {
	for _, p := range actPairs() {
		t.Run(p.name, func(t *testing.T) {
			var tally actTally
			rapid.Check(t, func(rt *rapid.T) {
				c := &actCase{backup: &unstructured.Unstructured{Object: p.draw(rt)}}
				c.mapping = rapid.SampledFrom([]map[string]string{nil, {"ns1": "ns2"}, {"ns1": "other", "ns2": "ns1"}}).Draw(rt, "mapping")
				c.preserveNodePorts = rapid.Bool().Draw(rt, "preserveNodePorts")
				vAction, ours := p.build(rt, c)
				v := runVeleroAction(vAction, c)
				o := runOurAction(ours, actResources[c.backup.GetKind()], c)
				typed := actTypes[c.backup.GetKind()]
				v.Item, o.Item = actNormalize(typed, v.Item), actNormalize(typed, o.Item)
				if v.Item != nil && c.backup.GetNamespace() != "" {
					// Velero's restore moves the item to its target namespace after its actions.
					unstructured.SetNestedField(v.Item, actTarget(c), "metadata", "namespace")
				}
				label := actCompare(v, o)
				if label == "differ" && v.Err != "" && o.Err == "" && !o.Skip && typed != nil && !actDecodes(typed, o.Item) {
					// Velero's action fails decoding the object into its Go type; ours changes
					// only the fields it reads, and the API server refuses the object it
					// returns: the item is not restored either way.
					label = "refused either way (Velero's decode, the API server for ours)"
				}
				if label == "differ" && p.documented != nil {
					if l := p.documented(c, v, o); l != "" {
						label = l
					}
				}
				if label == "differ" && v.Err != "" && o.Err == "" && strings.Contains(v.Err, "<nil> is of the type <nil>") {
					label = "documented (restore/actions, malformed input): Velero fails on a null field ours reads as absent"
				}
				if label == "differ" && v.Err != "" && o.Err == "" && !o.Skip && typed != nil && actFixedPoint(vAction, c, o.Item) {
					// Ours dropped the field Velero's decode fails on, and Velero's action,
					// given ours' output, changes nothing: ours did all Velero's would do.
					label = "documented (restore/actions, malformed input): Velero fails decoding a field ours drops"
				}
				if label == "differ" {
					label = ""
				}
				if label == "" {
					in, _ := json.Marshal(c.backup.Object)
					vj, _ := json.Marshal(v)
					oj, _ := json.Marshal(o)
					rt.Fatalf("undocumented difference (mapping %v, preserveNodePorts %v)\ninput:  %s\nvelero: %s\nours:   %s",
						c.mapping, c.preserveNodePorts, in, vj, oj)
				}
				tally.add(label)
			})
			t.Logf("%s: %s", p.name, &tally)
		})
	}
}

// actCompare says "same" when both outcomes agree (both fail counts as agreeing: the
// item is not restored either way), "both fail" when both failed, and "differ" otherwise.
func actCompare(v, o *actOutcome) string {
	switch {
	case v.Err != "" && o.Err != "":
		return "both fail"
	case v.Err != "" || o.Err != "":
		return "differ"
	case v.Skip != o.Skip:
		return "differ"
	case v.Skip:
		return "same"
	case !slices.Equal(v.Additional, o.Additional):
		return "differ"
	case !reflect.DeepEqual(v.Item, o.Item):
		return "differ"
	}
	return "same"
}

func actTarget(c *actCase) string {
	if to, ok := c.mapping[c.backup.GetNamespace()]; ok {
		return to
	}
	return c.backup.GetNamespace()
}

// actReset is the item as Velero's restore gives it to its actions: its metadata and
// status reset (restore.go's resetMetadataAndStatus).
func actReset(u *unstructured.Unstructured) *unstructured.Unstructured {
	item := u.DeepCopy()
	if md, ok := item.Object["metadata"].(map[string]any); ok {
		for _, k := range []string{"generateName", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
			"deletionTimestamp", "deletionGracePeriodSeconds", "ownerReferences"} {
			delete(md, k)
		}
	}
	delete(item.Object, "status")
	return item
}

func runVeleroAction(a riav1.RestoreItemAction, c *actCase) (out *actOutcome) {
	out = &actOutcome{}
	defer func() {
		if r := recover(); r != nil {
			out = &actOutcome{Err: fmt.Sprintf("panic: %v", r)}
		}
	}()
	item := actReset(c.backup)
	// The action's selector, as Velero's restore applies it (APIService's selects by label).
	sel, err := a.AppliesTo()
	if err != nil {
		return &actOutcome{Err: err.Error()}
	}
	if sel.LabelSelector != "" {
		if _, ok := item.GetLabels()[sel.LabelSelector]; !ok {
			out.Item = item.Object
			return out
		}
	}
	res, err := a.Execute(&veleroplugin.RestoreItemActionExecuteInput{
		Item:           item,
		ItemFromBackup: c.backup.DeepCopy(),
		Restore: &velerov1.Restore{Spec: velerov1.RestoreSpec{NamespaceMapping: c.mapping,
			PreserveNodePorts: &c.preserveNodePorts}},
	})
	if err != nil {
		return &actOutcome{Err: err.Error()}
	}
	out.Skip = res.SkipRestore
	if res.UpdatedItem != nil {
		out.Item = res.UpdatedItem.UnstructuredContent()
	}
	for _, r := range res.AdditionalItems {
		out.Additional = append(out.Additional, actions.ItemRef{GroupResource: r.GroupResource, Namespace: r.Namespace, Name: r.Name}.String())
	}
	return out
}

func runOurAction(a actions.ItemAction, gr schema.GroupResource, c *actCase) *actOutcome {
	item := actReset(c.backup)
	if item.GetNamespace() != "" {
		item.SetNamespace(actTarget(c))
	}
	res, err := a.Execute(context.Background(), &actions.Input{Item: item, ItemFromBackup: c.backup.DeepCopy(), Resource: gr,
		Restore: &actions.Info{Name: "r", NamespaceMapping: c.mapping, PreserveNodePorts: c.preserveNodePorts}})
	if err != nil {
		return &actOutcome{Err: err.Error()}
	}
	out := &actOutcome{Skip: res.Skip, Item: item.Object}
	if res.Item != nil {
		out.Item = res.Item.Object
	}
	for _, r := range res.AdditionalItems {
		out.Additional = append(out.Additional, r.String())
	}
	return out
}

// actNormalize decodes an output into the kind's Go type and back, as Velero's actions
// do: what remains to compare is what the API server would be sent, not how a number is
// spelt or whether an empty field is written. An output that does not decode is left as
// it is.
func actNormalize(typed func() any, obj map[string]any) map[string]any {
	if obj == nil || typed == nil {
		return obj
	}
	js, err := json.Marshal(obj)
	if err != nil {
		return obj
	}
	v := typed()
	if err := json.Unmarshal(js, v); err != nil {
		return obj
	}
	res, err := runtime.DefaultUnstructuredConverter.ToUnstructured(v)
	if err != nil {
		return obj
	}
	return res
}

// actFixedPoint says whether Velero's action, given what ours made of the item (back in
// its namespace as backed up), succeeds and leaves it as it is.
func actFixedPoint(a riav1.RestoreItemAction, c *actCase, ours map[string]any) bool {
	item := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(ours)}
	if c.backup.GetNamespace() != "" {
		item.SetNamespace(c.backup.GetNamespace())
	}
	again := runVeleroAction(a, &actCase{backup: item, mapping: c.mapping, preserveNodePorts: c.preserveNodePorts})
	if again.Err != "" || again.Skip {
		return false
	}
	typed := actTypes[item.GetKind()]
	got := actNormalize(typed, again.Item)
	if c.backup.GetNamespace() != "" {
		_ = unstructured.SetNestedField(got, actTarget(c), "metadata", "namespace")
	}
	return reflect.DeepEqual(got, actNormalize(typed, ours))
}

// actDecodes says whether obj decodes into the Go type, as the API server decodes it.
func actDecodes(typed func() any, obj map[string]any) bool {
	js, err := json.Marshal(obj)
	return err == nil && json.Unmarshal(js, typed()) == nil
}

var actLogger = func() logrus.FieldLogger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return l
}()

// Pools the random objects are drawn from.
var (
	actNamespaces = []string{"ns1", "ns2", "ns3"}
	actNames      = []string{"a", "b", "default", "builder"}
)

// actMaybe draws whether to set an optional field: most are set, some are left out.
func actMaybe(t *rapid.T, label string) bool { return rapid.IntRange(0, 3).Draw(t, label) > 0 }

// actWrong draws, now and then, a value of the wrong type for a field an action reads.
func actWrong(t *rapid.T, label string, right any) any {
	if rapid.IntRange(0, 19).Draw(t, label+"/wrong") > 0 {
		return right
	}
	return rapid.SampledFrom([]any{int64(7), true, "str", map[string]any{"x": "y"}, []any{"z"}, nil}).Draw(t, label+"/as")
}

func actMeta(t *rapid.T, namespaced bool, annotations, labels []string) map[string]any {
	md := map[string]any{"name": rapid.SampledFrom(actNames).Draw(t, "name"), "uid": "u-1", "resourceVersion": "42",
		"creationTimestamp": "2026-01-02T03:04:05Z"}
	if namespaced {
		md["namespace"] = rapid.SampledFrom(actNamespaces).Draw(t, "namespace")
	}
	pick := func(keys []string, label string) map[string]any {
		m := map[string]any{}
		for _, k := range keys {
			if rapid.Bool().Draw(t, label+"/"+k) {
				m[k] = rapid.SampledFrom([]string{"true", "yes", "", "node-1"}).Draw(t, label+"/"+k+"/v")
			}
		}
		if len(m) == 0 && rapid.Bool().Draw(t, label+"/absent") {
			return nil
		}
		return m
	}
	if a := pick(append([]string{"app.example.com/x"}, annotations...), "annotations"); a != nil {
		md["annotations"] = a
	}
	if l := pick(append([]string{"app"}, labels...), "labels"); l != nil {
		md["labels"] = l
	}
	return md
}

func actObj(apiVersion, kind string, md map[string]any) map[string]any {
	return map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": md}
}

func drawPod(t *rapid.T) map[string]any {
	obj := actObj("v1", "Pod", actMeta(t, true, []string{"kubernetes.io/config.mirror"}, nil))
	sa := rapid.SampledFrom([]string{"", "default", "builder"}).Draw(t, "serviceAccountName")
	volNames := []string{"data", "default-token-abcde", "builder-token-xyz", "cache", "default-token-"}
	spec := map[string]any{}
	if sa != "" {
		spec["serviceAccountName"] = actWrong(t, "sa", sa)
	}
	if actMaybe(t, "hasNode") {
		spec["nodeName"] = "node-1"
	}
	if rapid.Bool().Draw(t, "hasPriority") {
		spec["priority"] = int64(rapid.IntRange(-10, 1000).Draw(t, "priority"))
	}
	if rapid.Bool().Draw(t, "hasPC") {
		spec["priorityClassName"] = actWrong(t, "pc", rapid.SampledFrom([]string{"high", "low", ""}).Draw(t, "pcName"))
	}
	var vols []any
	for i := range rapid.IntRange(0, 4).Draw(t, "nvols") {
		v := map[string]any{"name": rapid.SampledFrom(volNames).Draw(t, fmt.Sprintf("vol%d", i))}
		switch rapid.IntRange(0, 2).Draw(t, fmt.Sprintf("vol%dkind", i)) {
		case 0:
			v["secret"] = map[string]any{"secretName": "s"}
		case 1:
			v["persistentVolumeClaim"] = map[string]any{"claimName": actWrong(t, fmt.Sprintf("claim%d", i),
				rapid.SampledFrom([]string{"pvc-a", "pvc-b"}).Draw(t, fmt.Sprintf("claim%dname", i)))}
		default:
			v["emptyDir"] = map[string]any{}
		}
		vols = append(vols, v)
	}
	if vols != nil {
		spec["volumes"] = actWrong(t, "volumes", vols)
	}
	containers := func(field string) {
		var cs []any
		for i := range rapid.IntRange(0, 2).Draw(t, field) {
			c := map[string]any{"name": fmt.Sprintf("c%d", i), "image": "nginx:1"}
			var mounts []any
			for j := range rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("%s%dmounts", field, i)) {
				mounts = append(mounts, map[string]any{"name": rapid.SampledFrom(volNames).Draw(t, fmt.Sprintf("%s%dm%d", field, i, j)),
					"mountPath": fmt.Sprintf("/m%d", j)})
			}
			if mounts != nil {
				c["volumeMounts"] = mounts
			}
			cs = append(cs, c)
		}
		if cs != nil {
			spec[field] = actWrong(t, field+"/list", cs)
		}
	}
	containers("containers")
	containers("initContainers")
	if rapid.IntRange(0, 5).Draw(t, "hasEphemeral") == 0 {
		spec["ephemeralContainers"] = []any{map[string]any{"name": "debug", "image": "busybox"}}
	}
	obj["spec"] = spec
	if actMaybe(t, "hasStatus") {
		obj["status"] = map[string]any{"phase": rapid.SampledFrom([]string{"Running", "Pending"}).Draw(t, "phase")}
	}
	return obj
}

func drawJob(t *rapid.T) map[string]any {
	uidLabels := []string{"batch.kubernetes.io/controller-uid", "controller-uid", "batch.kubernetes.io/job-name", "app"}
	labels := func(label string) map[string]any {
		m := map[string]any{}
		for _, k := range uidLabels {
			if rapid.Bool().Draw(t, label+"/"+k) {
				m[k] = "v"
			}
		}
		return m
	}
	spec := map[string]any{"template": map[string]any{"metadata": map[string]any{"labels": actWrong(t, "tlabels", labels("tlabels"))},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox"}}, "restartPolicy": "Never"}}}
	if actMaybe(t, "hasSelector") {
		spec["selector"] = map[string]any{"matchLabels": actWrong(t, "slabels", labels("slabels"))}
	}
	if rapid.Bool().Draw(t, "hasManual") {
		spec["manualSelector"] = actWrong(t, "manual", rapid.Bool().Draw(t, "manualSelector"))
	}
	obj := actObj("batch/v1", "Job", actMeta(t, true, nil, nil))
	obj["spec"] = spec
	return obj
}

func drawService(t *rapid.T) map[string]any {
	typ := rapid.SampledFrom([]string{"", "ClusterIP", "NodePort", "LoadBalancer", "ExternalName"}).Draw(t, "type")
	spec := map[string]any{}
	if typ != "" {
		spec["type"] = typ
	}
	switch rapid.IntRange(0, 3).Draw(t, "clusterIP") {
	case 0:
		spec["clusterIP"] = "None"
		spec["clusterIPs"] = []any{"None"}
	case 1:
		spec["clusterIP"] = "10.0.0.1"
		spec["clusterIPs"] = []any{"10.0.0.1"}
	case 2:
		spec["clusterIP"] = "10.0.0.1"
	}
	if rapid.Bool().Draw(t, "local") {
		spec["externalTrafficPolicy"] = "Local"
	}
	if rapid.Bool().Draw(t, "hasHCNP") {
		spec["healthCheckNodePort"] = int64(rapid.SampledFrom([]int{0, 30100}).Draw(t, "hcnp"))
	}
	portNames := []string{"", "http", "https"}
	var ports []any
	for i := range rapid.IntRange(0, 3).Draw(t, "nports") {
		p := map[string]any{"port": int64(rapid.SampledFrom([]int{80, 443}).Draw(t, fmt.Sprintf("p%d", i)))}
		if n := rapid.SampledFrom(portNames).Draw(t, fmt.Sprintf("p%dname", i)); n != "" {
			p["name"] = n
		}
		// The API server defaults the protocol: a served Service has it on every port.
		p["protocol"] = rapid.SampledFrom([]string{"TCP", "UDP"}).Draw(t, fmt.Sprintf("p%dprotocol", i))
		if actMaybe(t, fmt.Sprintf("p%dhasNP", i)) {
			p["nodePort"] = int64(rapid.SampledFrom([]int{30001, 30002, 0}).Draw(t, fmt.Sprintf("p%dnp", i)))
		}
		ports = append(ports, p)
	}
	if ports != nil {
		spec["ports"] = ports
	}
	md := actMeta(t, true, nil, nil)
	if rapid.IntRange(0, 2).Draw(t, "hasLastApplied") == 0 {
		applied := map[string]any{}
		var aports []any
		for i := range rapid.IntRange(0, 3).Draw(t, "naports") {
			p := map[string]any{}
			if n := rapid.SampledFrom(portNames).Draw(t, fmt.Sprintf("ap%dname", i)); n != "" {
				p["name"] = n
			}
			if rapid.Bool().Draw(t, fmt.Sprintf("ap%dhasNP", i)) {
				p["nodePort"] = rapid.SampledFrom([]any{30001, 30002, 0, "30001"}).Draw(t, fmt.Sprintf("ap%dnp", i))
			}
			aports = append(aports, p)
		}
		applied["spec"] = map[string]any{}
		if aports != nil {
			applied["spec"].(map[string]any)["ports"] = aports
		}
		if rapid.Bool().Draw(t, "aHCNP") {
			applied["spec"].(map[string]any)["healthCheckNodePort"] = rapid.SampledFrom([]any{30100, 0}).Draw(t, "ahcnp")
		}
		js, _ := json.Marshal(applied)
		ann, _ := md["annotations"].(map[string]any)
		if ann == nil {
			ann = map[string]any{}
		}
		ann["kubectl.kubernetes.io/last-applied-configuration"] = string(js)
		md["annotations"] = ann
	}
	if rapid.Bool().Draw(t, "hasManaged") {
		fports := map[string]any{}
		for _, k := range []string{`k:{"port":80,"protocol":"TCP"}`, `k:{"port":443,"protocol":"TCP"}`, `k:{"port":80,"protocol":"UDP"}`} {
			if rapid.Bool().Draw(t, "owns "+k) {
				fports[k] = map[string]any{".": map[string]any{}, "f:nodePort": map[string]any{}}
			}
		}
		fspec := map[string]any{"f:ports": fports}
		if rapid.Bool().Draw(t, "ownsHCNP") {
			fspec["f:healthCheckNodePort"] = map[string]any{}
		}
		md["managedFields"] = []any{map[string]any{"manager": "kubectl", "operation": "Apply", "apiVersion": "v1",
			"fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:spec": fspec}}}
	}
	obj := actObj("v1", "Service", md)
	obj["spec"] = spec
	return obj
}

func drawServiceAccount(t *rapid.T) map[string]any {
	obj := actObj("v1", "ServiceAccount", actMeta(t, true, nil, nil))
	name := obj["metadata"].(map[string]any)["name"].(string)
	var secrets []any
	for i := range rapid.IntRange(0, 3).Draw(t, "nsecrets") {
		secrets = append(secrets, map[string]any{"name": rapid.SampledFrom([]string{name + "-token-abc", name + "-token-def", "other",
			name + "-dockercfg"}).Draw(t, fmt.Sprintf("secret%d", i))})
	}
	if secrets != nil {
		obj["secrets"] = secrets
	}
	return obj
}

func drawSecret(t *rapid.T) map[string]any {
	obj := actObj("v1", "Secret", actMeta(t, true, []string{"kubernetes.io/service-account.uid"}, nil))
	md := obj["metadata"].(map[string]any)
	md["name"] = rapid.SampledFrom([]string{"default-token-abc", "builder-token-x", "mine", "ghost-token-1"}).Draw(t, "secretName")
	if rapid.Bool().Draw(t, "hasSAName") {
		ann, _ := md["annotations"].(map[string]any)
		if ann == nil {
			ann = map[string]any{}
		}
		ann["kubernetes.io/service-account.name"] = rapid.SampledFrom([]string{"default", "builder", "ghost", "mine"}).Draw(t, "saName")
		md["annotations"] = ann
	}
	obj["type"] = rapid.SampledFrom([]string{"kubernetes.io/service-account-token", "Opaque"}).Draw(t, "type")
	data := map[string]any{}
	for _, k := range []string{"token", "ca.crt", "namespace", "other"} {
		if rapid.Bool().Draw(t, "data "+k) {
			data[k] = "dmFsdWU="
		}
	}
	if len(data) > 0 {
		obj["data"] = data
	}
	return obj
}

func drawPVC(t *rapid.T) map[string]any {
	obj := actObj("v1", "PersistentVolumeClaim", actMeta(t, true, []string{"pv.kubernetes.io/bind-completed",
		"pv.kubernetes.io/bound-by-controller", "volume.kubernetes.io/storage-provisioner",
		"volume.beta.kubernetes.io/storage-provisioner", "volume.kubernetes.io/selected-node", "velero.io/volume-snapshot-name",
		"velero.io/data-upload-name"}, nil))
	spec := map[string]any{"accessModes": []any{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}}
	if actMaybe(t, "hasVolume") {
		spec["volumeName"] = actWrong(t, "volumeName", "pv-1")
	}
	if actMaybe(t, "hasClass") {
		spec["storageClassName"] = actWrong(t, "class", rapid.SampledFrom([]string{"gold", "silver", ""}).Draw(t, "className"))
	}
	obj["spec"] = spec
	if actMaybe(t, "hasStatus") {
		obj["status"] = map[string]any{"phase": actWrong(t, "phase", rapid.SampledFrom([]string{"Bound", "Pending", "Lost"}).Draw(t, "phaseName"))}
	}
	return obj
}

func drawPV(t *rapid.T) map[string]any {
	obj := actObj("v1", "PersistentVolume", actMeta(t, false, nil, nil))
	spec := map[string]any{"capacity": map[string]any{"storage": "1Gi"}, "hostPath": map[string]any{"path": "/d"}}
	if actMaybe(t, "hasClass") {
		spec["storageClassName"] = actWrong(t, "class", rapid.SampledFrom([]string{"gold", "silver", ""}).Draw(t, "className"))
	}
	obj["spec"] = spec
	return obj
}

func drawStatefulSet(t *rapid.T) map[string]any {
	obj := actObj("apps/v1", "StatefulSet", actMeta(t, true, nil, nil))
	spec := map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": "a"}},
		"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx:1"}}}}}
	var templates []any
	for i := range rapid.IntRange(0, 2).Draw(t, "ntemplates") {
		ts := map[string]any{}
		if actMaybe(t, fmt.Sprintf("t%dclass", i)) {
			ts["storageClassName"] = rapid.SampledFrom([]string{"gold", "silver", ""}).Draw(t, fmt.Sprintf("t%dclassName", i))
		}
		templates = append(templates, map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("d%d", i)}, "spec": ts})
	}
	if templates != nil {
		spec["volumeClaimTemplates"] = templates
	}
	obj["spec"] = spec
	return obj
}

func drawBinding(kind string, namespaced bool) func(t *rapid.T) map[string]any {
	return func(t *rapid.T) map[string]any {
		obj := actObj("rbac.authorization.k8s.io/v1", kind, actMeta(t, namespaced, nil, nil))
		obj["roleRef"] = map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}
		var subjects []any
		for i := range rapid.IntRange(0, 3).Draw(t, "nsubjects") {
			s := map[string]any{"kind": "ServiceAccount", "name": "sa"}
			if actMaybe(t, fmt.Sprintf("s%dns", i)) {
				s["namespace"] = actWrong(t, fmt.Sprintf("s%dnsv", i), rapid.SampledFrom([]string{"ns1", "ns2", "ns3", ""}).Draw(t, fmt.Sprintf("s%dnsn", i)))
			}
			subjects = append(subjects, s)
		}
		if subjects != nil {
			obj["subjects"] = subjects
		}
		return obj
	}
}

func drawWebhookConfig(t *rapid.T) map[string]any {
	kind := rapid.SampledFrom([]string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"}).Draw(t, "kind")
	version := rapid.SampledFrom([]string{"admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1beta1"}).Draw(t, "version")
	obj := actObj(version, kind, actMeta(t, false, nil, nil))
	var hooks []any
	for i := range rapid.IntRange(0, 3).Draw(t, "nhooks") {
		h := map[string]any{"name": fmt.Sprintf("h%d.example.com", i), "admissionReviewVersions": []any{"v1"},
			"clientConfig": map[string]any{"url": "https://example.com"}}
		if actMaybe(t, fmt.Sprintf("h%dse", i)) {
			h["sideEffects"] = rapid.SampledFrom([]string{"None", "NoneOnDryRun", "Some", "Unknown", ""}).Draw(t, fmt.Sprintf("h%dsev", i))
		}
		hooks = append(hooks, h)
	}
	if hooks != nil {
		obj["webhooks"] = hooks
	}
	return obj
}

func drawCRD(t *rapid.T) map[string]any {
	version := rapid.SampledFrom([]string{"apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"}).Draw(t, "version")
	obj := actObj(version, "CustomResourceDefinition", actMeta(t, false, nil, nil))
	spec := map[string]any{"group": "example.com", "scope": "Namespaced",
		"names": map[string]any{"plural": "widgets", "kind": "Widget"}}
	if actMaybe(t, "hasPUF") {
		spec["preserveUnknownFields"] = rapid.Bool().Draw(t, "puf")
	}
	var versions []any
	for i := range rapid.IntRange(0, 2).Draw(t, "nversions") {
		v := map[string]any{"name": fmt.Sprintf("v%d", i+1), "served": true, "storage": i == 0}
		if actMaybe(t, fmt.Sprintf("v%dschema", i)) {
			v["schema"] = map[string]any{"openAPIV3Schema": map[string]any{"type": "object"}}
		}
		versions = append(versions, v)
	}
	if versions != nil {
		spec["versions"] = versions
	}
	obj["spec"] = spec
	return obj
}

func drawAPIService(t *rapid.T) map[string]any {
	obj := actObj("apiregistration.k8s.io/v1", "APIService", actMeta(t, false, nil, []string{"kube-aggregator.kubernetes.io/automanaged"}))
	spec := map[string]any{"group": "metrics.k8s.io", "version": "v1beta1", "groupPriorityMinimum": int64(100), "versionPriority": int64(100)}
	if actMaybe(t, "hasService") {
		spec["service"] = map[string]any{"name": "metrics-server", "namespace": "kube-system"}
	}
	obj["spec"] = spec
	return obj
}

func drawWorkload(t *rapid.T) map[string]any {
	kind := rapid.SampledFrom([]string{"Pod", "Deployment", "CronJob", "Job", "DaemonSet"}).Draw(t, "kind")
	images := []string{"nginx:1", "docker.io/library/nginx:1", "busybox", "quay.io/app/worker:2", "registry.old/x:1"}
	podSpec := map[string]any{}
	for _, field := range []string{"containers", "initContainers"} {
		var cs []any
		for i := range rapid.IntRange(0, 2).Draw(t, field) {
			c := map[string]any{"name": fmt.Sprintf("c%d", i)}
			if actMaybe(t, fmt.Sprintf("%s%dimage", field, i)) {
				c["image"] = rapid.SampledFrom(images).Draw(t, fmt.Sprintf("%s%dimg", field, i))
			}
			cs = append(cs, c)
		}
		if cs != nil {
			podSpec[field] = cs
		}
	}
	apiVersion := map[string]string{"Pod": "v1", "Deployment": "apps/v1", "DaemonSet": "apps/v1", "CronJob": "batch/v1", "Job": "batch/v1"}[kind]
	obj := actObj(apiVersion, kind, actMeta(t, true, nil, nil))
	template := map[string]any{"spec": podSpec}
	switch kind {
	case "Pod":
		obj["spec"] = podSpec
	case "CronJob":
		obj["spec"] = map[string]any{"schedule": "* * * * *", "jobTemplate": map[string]any{"spec": map[string]any{"template": template}}}
	default:
		obj["spec"] = map[string]any{"template": template}
	}
	return obj
}

// actResources is the resource of each kind drawn.
var actResources = map[string]schema.GroupResource{
	"Pod":                            {Resource: "pods"},
	"Service":                        {Resource: "services"},
	"ServiceAccount":                 {Resource: "serviceaccounts"},
	"Secret":                         {Resource: "secrets"},
	"PersistentVolume":               {Resource: "persistentvolumes"},
	"PersistentVolumeClaim":          {Resource: "persistentvolumeclaims"},
	"Job":                            {Group: "batch", Resource: "jobs"},
	"CronJob":                        {Group: "batch", Resource: "cronjobs"},
	"Deployment":                     {Group: "apps", Resource: "deployments"},
	"DaemonSet":                      {Group: "apps", Resource: "daemonsets"},
	"StatefulSet":                    {Group: "apps", Resource: "statefulsets"},
	"RoleBinding":                    {Group: "rbac.authorization.k8s.io", Resource: "rolebindings"},
	"ClusterRoleBinding":             {Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"},
	"MutatingWebhookConfiguration":   {Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"},
	"ValidatingWebhookConfiguration": {Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"},
	"CustomResourceDefinition":       {Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"},
	"APIService":                     {Group: "apiregistration.k8s.io", Resource: "apiservices"},
}

// actTypes is the Go type of each kind whose outputs are compared decoded (Velero's
// actions give back what their typed round trip leaves of an object); the others are
// compared as they are.
var actTypes = map[string]func() any{
	"Pod":                            func() any { return &corev1.Pod{} },
	"Service":                        func() any { return &corev1.Service{} },
	"ServiceAccount":                 func() any { return &corev1.ServiceAccount{} },
	"Secret":                         func() any { return &corev1.Secret{} },
	"PersistentVolume":               func() any { return &corev1.PersistentVolume{} },
	"PersistentVolumeClaim":          func() any { return &corev1.PersistentVolumeClaim{} },
	"Job":                            func() any { return &batchv1.Job{} },
	"CronJob":                        func() any { return &batchv1.CronJob{} },
	"Deployment":                     func() any { return &appsv1.Deployment{} },
	"DaemonSet":                      func() any { return &appsv1.DaemonSet{} },
	"StatefulSet":                    func() any { return &appsv1.StatefulSet{} },
	"RoleBinding":                    func() any { return &rbacv1.RoleBinding{} },
	"ClusterRoleBinding":             func() any { return &rbacv1.ClusterRoleBinding{} },
	"MutatingWebhookConfiguration":   func() any { return &admissionv1.MutatingWebhookConfiguration{} },
	"ValidatingWebhookConfiguration": func() any { return &admissionv1.ValidatingWebhookConfiguration{} },
	"CustomResourceDefinition":       func() any { return &apiextv1.CustomResourceDefinition{} },
}

// actNewConfigMaps is a fake cluster holding Velero's ConfigMap of plugin configuration
// for the action named (none when data is nil), in namespace velero.
func actNewConfigMaps(action string, data map[string]string, objs ...runtime.Object) *kubefake.Clientset {
	if data != nil {
		objs = append(objs, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg", Namespace: "velero",
			Labels: map[string]string{"velero.io/plugin-config": "", action: "RestoreItemAction"}}, Data: data})
	}
	return kubefake.NewClientset(objs...)
}

func simple(v riav1.RestoreItemAction, o actions.ItemAction) func(*rapid.T, *actCase) (riav1.RestoreItemAction, actions.ItemAction) {
	return func(*rapid.T, *actCase) (riav1.RestoreItemAction, actions.ItemAction) { return v, o }
}

func actPairs() []actPair {
	return []actPair{
		{
			name: "Pod", draw: drawPod,
			build: simple(veleroactions.NewPodAction(actLogger), actions.Pod()),
			documented: func(c *actCase, v, o *actOutcome) string {
				if o.Skip && c.backup.GetAnnotations()["kubernetes.io/config.mirror"] != "" {
					return "mirror Pod skipped (Velero's restore skips it before its actions)"
				}
				if v.Item != nil {
					if _, ok, _ := unstructured.NestedFieldNoCopy(v.Item, "spec", "ephemeralContainers"); ok {
						unstructured.RemoveNestedField(v.Item, "spec", "ephemeralContainers")
						if actCompare(v, o) == "same" {
							return "ephemeralContainers dropped"
						}
					}
				}
				return ""
			},
		},
		{
			name: "AddPVCFromPod", draw: drawPod,
			build: simple(veleroactions.NewAddPVCFromPodAction(actLogger), actions.AddPVCFromPod()),
			documented: func(c *actCase, v, o *actOutcome) string {
				// Documented in restore/actions' godoc (malformed input).
				if v.Err == "" && o.Err == "" && slices.Contains(v.Additional, "persistentvolumeclaims "+c.backup.GetNamespace()+"/") {
					v.Additional = slices.DeleteFunc(v.Additional, func(s string) bool { return strings.HasSuffix(s, "/") })
					if actCompare(v, o) == "same" {
						return "documented (restore/actions, malformed input): Velero names a claim without a name"
					}
				}
				return ""
			},
		},
		{
			name: "Job", draw: drawJob,
			build: simple(veleroactions.NewJobAction(actLogger), actions.Job()),
			documented: func(c *actCase, v, o *actOutcome) string {
				if v.Err != "" && o.Err == "" {
					// Velero fails on a selector ours drops: the documented difference when
					// the object decodes without it.
					manual, _, _ := unstructured.NestedFieldNoCopy(c.backup.Object, "spec", "manualSelector")
					rest := c.backup.DeepCopy()
					unstructured.RemoveNestedField(rest.Object, "spec", "selector")
					if manual != true && actDecodes(func() any { return &batchv1.Job{} }, rest.Object) {
						return "selector dropped without manualSelector"
					}
					return ""
				}
				if v.Item == nil || o.Item == nil {
					return ""
				}
				if manual, _, _ := unstructured.NestedFieldNoCopy(c.backup.Object, "spec", "manualSelector"); manual != true {
					if _, ok, _ := unstructured.NestedFieldNoCopy(v.Item, "spec", "selector"); ok {
						unstructured.RemoveNestedField(v.Item, "spec", "selector")
						if actCompare(v, o) == "same" {
							return "selector dropped without manualSelector"
						}
					}
				}
				return ""
			},
		},
		{
			name: "Service", draw: drawService,
			build: simple(veleroactions.NewServiceAction(actLogger), actions.Service()),
		},
		{
			name: "ServiceAccount", draw: drawServiceAccount,
			build: simple(veleroactions.NewServiceAccountAction(actLogger), actions.ServiceAccount()),
			documented: func(c *actCase, v, o *actOutcome) string {
				prefix := c.backup.GetName() + "-token-"
				n := 0
				secrets, _, _ := unstructured.NestedSlice(c.backup.Object, "secrets")
				for _, s := range secrets {
					if name, _ := s.(map[string]any)["name"].(string); strings.HasPrefix(name, prefix) {
						n++
					}
				}
				if n > 1 {
					return "all token secrets dropped (Velero drops the last)"
				}
				return ""
			},
		},
		{
			name: "Secret", draw: drawSecret,
			build: func(t *rapid.T, c *actCase) (riav1.RestoreItemAction, actions.ItemAction) {
				// The target's ServiceAccounts, in the secret's namespace as backed up (where
				// Velero lists them) and, for ours, wherever it asks.
				var sas []string
				for _, n := range []string{"default", "builder"} {
					if rapid.Bool().Draw(t, "target has "+n) {
						sas = append(sas, n)
					}
				}
				var objs []runtime.Object
				for _, n := range sas {
					objs = append(objs, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: c.backup.GetNamespace()}})
				}
				cl := crfake.NewClientBuilder().WithRuntimeObjects(objs...).Build()
				list := func(context.Context, string) ([]string, error) { return sas, nil }
				return veleroactions.NewSecretAction(actLogger, cl), actions.Secret(list)
			},
			documented: func(c *actCase, v, o *actOutcome) string {
				sa := c.backup.GetAnnotations()["kubernetes.io/service-account.name"]
				if o.Skip && !v.Skip && sa != "" && strings.HasPrefix(c.backup.GetName(), sa+"-token-") {
					return "skipped by its service-account.name annotation"
				}
				return ""
			},
		},
		{
			name: "PersistentVolumeClaim", draw: drawPVC,
			build: simple(veleroactions.NewPVCAction(actLogger, kubefake.NewClientset().CoreV1().ConfigMaps("velero"),
				kubefake.NewClientset().CoreV1().Nodes()), actions.PersistentVolumeClaim()),
		},
		{
			name:  "RoleBinding",
			draw:  drawBinding("RoleBinding", true),
			build: simple(veleroactions.NewRoleBindingAction(actLogger), actions.RoleBinding()),
		},
		{
			name:  "ClusterRoleBinding",
			draw:  drawBinding("ClusterRoleBinding", false),
			build: simple(veleroactions.NewClusterRoleBindingAction(actLogger), actions.ClusterRoleBinding()),
		},
		{
			name:  "AdmissionWebhookConfiguration",
			draw:  drawWebhookConfig,
			build: simple(veleroactions.NewAdmissionWebhookConfigurationAction(actLogger), actions.AdmissionWebhookConfiguration()),
		},
		{
			name:  "CRDPreserveUnknownFields",
			draw:  drawCRD,
			build: simple(veleroactions.NewCRDV1PreserveUnknownFieldsAction(actLogger), actions.CRDPreserveUnknownFields()),
		},
		{
			name: "APIService", draw: drawAPIService,
			build: simple(veleroactions.NewAPIServiceAction(actLogger), actions.APIService()),
			documented: func(c *actCase, v, o *actOutcome) string {
				if svc, _, _ := unstructured.NestedFieldNoCopy(c.backup.Object, "spec", "service"); o.Skip && !v.Skip && svc == nil {
					return "local APIService (no spec.service) skipped"
				}
				return ""
			},
		},
		{
			name: "ChangeStorageClass", draw: func(t *rapid.T) map[string]any {
				return rapid.SampledFrom([]func(*rapid.T) map[string]any{drawPVC, drawPV, drawStatefulSet}).Draw(t, "kind")(t)
			},
			build: func(t *rapid.T, c *actCase) (riav1.RestoreItemAction, actions.ItemAction) {
				var mapping map[string]string
				if rapid.IntRange(0, 4).Draw(t, "hasConfig") > 0 {
					mapping = map[string]string{}
					for _, from := range []string{"gold", "silver"} {
						if rapid.Bool().Draw(t, "maps "+from) {
							mapping[from] = rapid.SampledFrom([]string{"fast", "slow"}).Draw(t, "to "+from)
						}
					}
				}
				var classes []runtime.Object
				var names []string
				for _, n := range []string{"fast", "slow"} {
					if actMaybe(t, "target has "+n) {
						classes = append(classes, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: n}})
						names = append(names, n)
					}
				}
				cs := actNewConfigMaps("velero.io/change-storage-class", mapping, classes...)
				exists := func(_ context.Context, name string) (bool, error) { return slices.Contains(names, name), nil }
				return veleroactions.NewChangeStorageClassAction(actLogger, cs.CoreV1().ConfigMaps("velero"), cs.StorageV1().StorageClasses()),
					actions.ChangeStorageClass(mapping, exists)
			},
		},
		{
			name: "ChangeImageName", draw: drawWorkload,
			build: func(t *rapid.T, c *actCase) (riav1.RestoreItemAction, actions.ItemAction) {
				var data map[string]string
				if rapid.IntRange(0, 4).Draw(t, "hasConfig") > 0 {
					data = map[string]string{}
					// Rules no two of which match one image of the pool: Velero tries its rules
					// in Go's random map order.
					for i, r := range []string{"nginx,nginx-mirror", " busybox , registry.new/busybox", "registry.old,registry.new", "quay.io/app,quay.example/app"} {
						if rapid.Bool().Draw(t, fmt.Sprintf("rule%d", i)) {
							data[fmt.Sprintf("case%d", i)] = r
						}
					}
				}
				cs := actNewConfigMaps("velero.io/change-image-name", data)
				return veleroactions.NewChangeImageNameAction(actLogger, cs.CoreV1().ConfigMaps("velero")),
					actions.ChangeImageName(actions.ImageNameRules(data)...)
			},
		},
	}
}
