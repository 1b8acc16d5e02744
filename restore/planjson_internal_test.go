package restore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

// encoderJSON is what a json.Encoder with SetIndent("", indent) writes for v.
func encoderJSON(t require.TestingT, v any, indent string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", indent)
	require.NoError(t, enc.Encode(v))
	return buf.String()
}

// TestPropertyPlanWriteJSON: WriteJSON writes the bytes json.Encoder writes for the plan,
// compact and indented, whatever the plan's waves and whatever its strings hold (the waves
// field's own text included).
func TestPropertyPlanWriteJSON(t *testing.T) {
	target := []metav1.APIGroup{group("", "v1", "v1"), group("apps", "v1", "v1")}
	tt := t // mustPlan and fixture.index take a *testing.T
	rapid.Check(t, func(t *rapid.T) {
		var f fixture
		f.groups = map[string]metav1.APIGroup{"configmaps": group("", "v1", "v1"), "namespaces": group("", "v1", "v1"), "deployments.apps": group("apps", "v1", "v1")}
		nss := []string{"a", "b"}
		for _, ns := range nss {
			f.items = append(f.items, fixtureItem{resource: "namespaces", kind: "Namespace", name: ns, dirs: []string{"", "v1-preferredversion"}})
		}
		for k := range rapid.IntRange(0, 12).Draw(t, "items") {
			it := fixtureItem{resource: "configmaps", kind: "ConfigMap", namespace: rapid.SampledFrom(nss).Draw(t, "ns"),
				name: fmt.Sprintf("cm-%d", k), dirs: []string{"", "v1-preferredversion"}}
			if rapid.Bool().Draw(t, "deployment") {
				it.group, it.resource, it.kind = "apps", "deployments", "Deployment"
			}
			if k > 0 && rapid.IntRange(0, 3).Draw(t, "dependsOn") == 0 {
				it.dependsOn = fmt.Sprintf("/namespaces/%s/ConfigMap/cm-%d", it.namespace, rapid.IntRange(0, k-1).Draw(t, "on"))
			}
			f.items = append(f.items, it)
		}
		p := mustPlan(tt, f.index(tt), target, nil)
		switch rapid.IntRange(0, 5).Draw(t, "waves") {
		case 0:
			p.Waves = nil
		case 1:
			p.Waves = [][]PlanItem{}
		case 2:
			p.Waves = append(p.Waves, []PlanItem{}, nil)
		}
		p.Problems = append(p.Problems, rapid.SampledFrom([]string{"plain", `x","waves":null,"y`, "\n  \"waves\": null,", `<&>`}).Draw(t, "problem"))
		for _, indent := range []string{"", "  ", "\t"} {
			var got bytes.Buffer
			require.NoError(t, p.WriteJSON(&got, indent))
			require.Equal(t, encoderJSON(t, p, indent), got.String(), "indent %q", indent)
		}
	})
}

// TestPlanWriteJSONWriteError: an error writing is returned.
func TestPlanWriteJSONWriteError(t *testing.T) {
	p := mustPlan(t, fixture{groups: map[string]metav1.APIGroup{"namespaces": group("", "v1", "v1")},
		items: []fixtureItem{{resource: "namespaces", kind: "Namespace", name: "a", dirs: []string{""}}}}.index(t),
		[]metav1.APIGroup{group("", "v1", "v1")}, nil)
	err := p.WriteJSON(failingWriter{}, "  ")
	require.ErrorContains(t, err, "restore: writing the plan")
	require.ErrorIs(t, err, errWriteFailed)
}

var errWriteFailed = fmt.Errorf("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errWriteFailed }
