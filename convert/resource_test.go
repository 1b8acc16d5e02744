package convert_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/convert"
	"github.com/backupkit/backupkit/convert/converttest"
)

// Valve is a typed kind whose versions are convert.Resources: v1 and v2 are spokes, v3
// the hub. v1 says open or shut, v2 and v3 a percentage; v3 alone has a rate. Every
// version's status is a list of conditions, so that a status can be large.
var valveGK = schema.GroupKind{Group: testGroup, Kind: "Valve"}

type ValveCondition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

type ValveStatus struct {
	Conditions []ValveCondition `json:"conditions,omitempty"`
}

type ValveV1Spec struct {
	Open bool `json:"open,omitempty"`
}

type ValveV2Spec struct {
	Percent int64 `json:"percent,omitempty"`
}

type ValveV3Spec struct {
	Percent int64 `json:"percent,omitempty"`
	Rate    int64 `json:"rate,omitempty"`
}

// The statuses of the three versions differ in Go type only.
type (
	ValveV1Status struct{ ValveStatus }
	ValveV2Status struct{ ValveStatus }
	ValveV3Status struct{ ValveStatus }
)

type ValveV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ValveV1Spec   `json:"spec"`
	Status            ValveV1Status `json:"status,omitempty"`
}

type ValveV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ValveV2Spec   `json:"spec"`
	Status            ValveV2Status `json:"status,omitempty"`
}

type ValveV3 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ValveV3Spec   `json:"spec"`
	Status            ValveV3Status `json:"status,omitempty"`
}

func (s ValveStatus) clone() ValveStatus { return ValveStatus{Conditions: slices.Clone(s.Conditions)} }

func (v *ValveV1) DeepCopyObject() runtime.Object {
	c := *v
	v.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Status.ValveStatus = v.Status.clone()
	return &c
}

func (v *ValveV2) DeepCopyObject() runtime.Object {
	c := *v
	v.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Status.ValveStatus = v.Status.clone()
	return &c
}

func (v *ValveV3) DeepCopyObject() runtime.Object {
	c := *v
	v.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Status.ValveStatus = v.Status.clone()
	return &c
}

func (*ValveV3) Hub() {}

// panicPercent in a v2 spec makes its ConvertSpecTo panic; failPercent makes it fail.
const (
	panicPercent = 666
	failPercent  = 999
)

var errValve = errors.New("valve: percent 999 is refused")

func (s *ValveV1Spec) ConvertSpecTo(hub convert.ConvertibleSpec) error {
	h := hub.(*ValveV3Spec)
	*h = ValveV3Spec{}
	if s.Open {
		h.Percent = 100
	}
	return nil
}

func (s *ValveV1Spec) ConvertSpecFrom(hub convert.ConvertibleSpec) error {
	*s = ValveV1Spec{Open: hub.(*ValveV3Spec).Percent > 0}
	return nil
}

func (s *ValveV2Spec) ConvertSpecTo(hub convert.ConvertibleSpec) error {
	switch s.Percent {
	case panicPercent:
		panic("valve: percent 666")
	case failPercent:
		return errValve
	}
	*hub.(*ValveV3Spec) = ValveV3Spec{Percent: s.Percent}
	return nil
}

func (s *ValveV2Spec) ConvertSpecFrom(hub convert.ConvertibleSpec) error {
	*s = ValveV2Spec{Percent: hub.(*ValveV3Spec).Percent}
	return nil
}

func (*ValveV3Spec) ConvertSpecTo(convert.ConvertibleSpec) error   { return errors.New("hub") }
func (*ValveV3Spec) ConvertSpecFrom(convert.ConvertibleSpec) error { return errors.New("hub") }

func (s *ValveV1Status) ConvertStatusTo(hub convert.ConvertibleStatus) error {
	hub.(*ValveV3Status).ValveStatus = s.clone()
	return nil
}

func (s *ValveV1Status) ConvertStatusFrom(hub convert.ConvertibleStatus) error {
	s.ValveStatus = hub.(*ValveV3Status).clone()
	return nil
}

func (s *ValveV2Status) ConvertStatusTo(hub convert.ConvertibleStatus) error {
	hub.(*ValveV3Status).ValveStatus = s.clone()
	return nil
}

func (s *ValveV2Status) ConvertStatusFrom(hub convert.ConvertibleStatus) error {
	s.ValveStatus = hub.(*ValveV3Status).clone()
	return nil
}

func (*ValveV3Status) ConvertStatusTo(convert.ConvertibleStatus) error   { return errors.New("hub") }
func (*ValveV3Status) ConvertStatusFrom(convert.ConvertibleStatus) error { return errors.New("hub") }

// The whole-object conversions are made of the part conversions.
func (v *ValveV1) ConvertTo(dst convert.Hub) error {
	h := dst.(*ValveV3)
	h.ObjectMeta = v.ObjectMeta
	if err := v.Spec.ConvertSpecTo(&h.Spec); err != nil {
		return err
	}
	return v.Status.ConvertStatusTo(&h.Status)
}

func (v *ValveV1) ConvertFrom(src convert.Hub) error {
	h := src.(*ValveV3)
	v.ObjectMeta = h.ObjectMeta
	if err := v.Spec.ConvertSpecFrom(&h.Spec); err != nil {
		return err
	}
	return v.Status.ConvertStatusFrom(&h.Status)
}

func (v *ValveV2) ConvertTo(dst convert.Hub) error {
	h := dst.(*ValveV3)
	h.ObjectMeta = v.ObjectMeta
	if err := v.Spec.ConvertSpecTo(&h.Spec); err != nil {
		return err
	}
	return v.Status.ConvertStatusTo(&h.Status)
}

func (v *ValveV2) ConvertFrom(src convert.Hub) error {
	h := src.(*ValveV3)
	v.ObjectMeta = h.ObjectMeta
	if err := v.Spec.ConvertSpecFrom(&h.Spec); err != nil {
		return err
	}
	return v.Status.ConvertStatusFrom(&h.Status)
}

func (v *ValveV1) GetSpec() convert.ConvertibleSpec            { return &v.Spec }
func (v *ValveV1) GetStatus() convert.ConvertibleStatus        { return &v.Status }
func (*ValveV1) NewEmptyStatus() convert.ConvertibleStatus     { return &ValveV1Status{} }
func (v *ValveV2) GetSpec() convert.ConvertibleSpec            { return &v.Spec }
func (v *ValveV2) GetStatus() convert.ConvertibleStatus        { return &v.Status }
func (*ValveV2) NewEmptyStatus() convert.ConvertibleStatus     { return &ValveV2Status{} }
func (v *ValveV3) GetSpec() convert.ConvertibleSpec            { return &v.Spec }
func (v *ValveV3) GetStatus() convert.ConvertibleStatus        { return &v.Status }
func (*ValveV3) NewEmptyStatus() convert.ConvertibleStatus     { return &ValveV3Status{} }
func (v *ValveV1) SetStatus(s convert.ConvertibleStatus) error { return setStatus(&v.Status, s) }
func (v *ValveV2) SetStatus(s convert.ConvertibleStatus) error { return setStatus(&v.Status, s) }
func (v *ValveV3) SetStatus(s convert.ConvertibleStatus) error { return setStatus(&v.Status, s) }

func setStatus[T any, P interface {
	*T
	convert.ConvertibleStatus
}](dst P, s convert.ConvertibleStatus) error {
	v, ok := s.(P)
	if !ok {
		return fmt.Errorf("valve: SetStatus takes a %T, not %T", dst, s)
	}
	*dst = *v
	return nil
}

func valveRegistry(t testing.TB) *convert.Registry {
	t.Helper()
	s := runtime.NewScheme()
	s.AddKnownTypeWithName(valveGK.WithVersion("v1"), &ValveV1{})
	s.AddKnownTypeWithName(valveGK.WithVersion("v2"), &ValveV2{})
	s.AddKnownTypeWithName(valveGK.WithVersion("v3"), &ValveV3{})
	r := convert.NewRegistry()
	require.NoError(t, r.AddTyped(s, valveGK))
	return r
}

func withOriginal[T metav1.Object](obj T, version string) T {
	if version != "" {
		convert.RecordOriginalVersion(obj, version)
	}
	return obj
}

func conditions(n int) ValveStatus {
	s := ValveStatus{Conditions: make([]ValveCondition, n)}
	for i := range s.Conditions {
		s.Conditions[i] = ValveCondition{Type: fmt.Sprintf("Cond%d", i), Status: "True", Message: strings.Repeat("m", 80)}
	}
	return s
}

func TestOriginalGVK(t *testing.T) {
	r := valveRegistry(t)
	meta := func(original string) metav1.ObjectMeta {
		m := metav1.ObjectMeta{Name: "v", Namespace: "ns"}
		if original != "" {
			m.Annotations = map[string]string{convert.OriginalVersionAnnotation: original}
		}
		return m
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(valveGK.WithVersion("v3"))
	u.SetAnnotations(map[string]string{convert.OriginalVersionAnnotation: "v2"})
	for _, tc := range []struct {
		name string
		obj  runtime.Object
		want schema.GroupVersionKind
		err  error
	}{
		{"recorded", &ValveV3{ObjectMeta: meta("v1")}, valveGK.WithVersion("v1"), nil},
		{"no record: its own version", &ValveV3{ObjectMeta: meta("")}, valveGK.WithVersion("v3"), nil},
		{"no record at a spoke", &ValveV2{ObjectMeta: meta("")}, valveGK.WithVersion("v2"), nil},
		{"unstructured", u, valveGK.WithVersion("v2"), nil},
		{"record of an unknown version", &ValveV3{ObjectMeta: meta("v9")}, schema.GroupVersionKind{}, convert.ErrUnknownVersion},
		{"unregistered Go type", &WidgetV1{}, schema.GroupVersionKind{}, convert.ErrNotRegistered},
		{"nil", nil, schema.GroupVersionKind{}, convert.ErrInvalidObject},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.OriginalGVK(tc.obj)
			require.ErrorIs(t, err, tc.err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestVersionedParts(t *testing.T) {
	r := valveRegistry(t)
	status := ValveStatus{Conditions: []ValveCondition{{Type: "Ready", Status: "True"}}}
	for _, tc := range []struct {
		name       string
		obj        convert.Resource
		spec       convert.ConvertibleSpec
		status     convert.ConvertibleStatus
		emptyOfOrg convert.ConvertibleStatus
	}{
		{"hub, created at v1", withOriginal(&ValveV3{Spec: ValveV3Spec{Percent: 40, Rate: 3}, Status: ValveV3Status{status}}, "v1"),
			&ValveV1Spec{Open: true}, &ValveV1Status{status}, &ValveV1Status{}},
		{"v1, created at v2: through the hub", withOriginal(&ValveV1{Spec: ValveV1Spec{Open: true}, Status: ValveV1Status{status}}, "v2"),
			&ValveV2Spec{Percent: 100}, &ValveV2Status{status}, &ValveV2Status{}},
		{"v2, created at the hub", withOriginal(&ValveV2{Spec: ValveV2Spec{Percent: 7}, Status: ValveV2Status{status}}, "v3"),
			&ValveV3Spec{Percent: 7}, &ValveV3Status{status}, &ValveV3Status{}},
		{"no record: a copy", &ValveV3{Spec: ValveV3Spec{Percent: 5, Rate: 1}, Status: ValveV3Status{status}},
			&ValveV3Spec{Percent: 5, Rate: 1}, &ValveV3Status{status}, &ValveV3Status{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.obj.DeepCopyObject()
			spec, err := r.GetVersionedSpec(tc.obj)
			require.NoError(t, err)
			require.Equal(t, tc.spec, spec)
			st, err := r.GetVersionedStatus(tc.obj)
			require.NoError(t, err)
			require.Equal(t, tc.status, st)
			empty, err := r.NewEmptyVersionedStatus(tc.obj)
			require.NoError(t, err)
			require.Equal(t, tc.emptyOfOrg, empty)
			require.Equal(t, before, tc.obj, "the object is not modified")

			// The result is the caller's: changing it leaves the object alone.
			reflectStatus(st).Conditions[0].Type = "Changed"
			require.Equal(t, before, tc.obj)

			// A status of the original version set back converts to the object's.
			require.NoError(t, r.SetVersionedStatus(tc.obj, st))
			require.Equal(t, "Changed", reflectStatus(tc.obj.GetStatus()).Conditions[0].Type)
		})
	}
}

// reflectStatus returns the ValveStatus inside any version's status.
func reflectStatus(s convert.ConvertibleStatus) *ValveStatus {
	switch v := s.(type) {
	case *ValveV1Status:
		return &v.ValveStatus
	case *ValveV2Status:
		return &v.ValveStatus
	case *ValveV3Status:
		return &v.ValveStatus
	}
	panic(fmt.Sprintf("not a valve status: %T", s))
}

func TestVersionedPartsErrors(t *testing.T) {
	r := valveRegistry(t)
	// Widget with a v1 that is a Resource, though the other versions are not: the registry
	// finds out when it creates one of them.
	ws := runtime.NewScheme()
	ws.AddKnownTypeWithName(widgetGK.WithVersion("v1"), &resourceWidget{})
	ws.AddKnownTypeWithName(widgetGK.WithVersion("v2"), &WidgetV2{})
	ws.AddKnownTypeWithName(widgetGK.WithVersion("v3"), &WidgetV3{})
	widgets := convert.NewRegistry()
	require.NoError(t, widgets.AddTyped(ws, widgetGK))
	for _, tc := range []struct {
		name string
		r    *convert.Registry
		call func(*convert.Registry) error
		err  error
		msg  string
	}{
		{"converter error", r, func(r *convert.Registry) error {
			_, err := r.GetVersionedSpec(withOriginal(&ValveV2{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "ns"}, Spec: ValveV2Spec{Percent: failPercent}}, "v1"))
			return err
		}, errValve, "Valve.test.backupkit.io ns/x from v2 to v1"},
		{"converter panic", r, func(r *convert.Registry) error {
			_, err := r.GetVersionedSpec(withOriginal(&ValveV2{Spec: ValveV2Spec{Percent: panicPercent}}, "v3"))
			return err
		}, convert.ErrPanic, "percent 666"},
		{"record of an unknown version", r, func(r *convert.Registry) error {
			_, err := r.GetVersionedStatus(withOriginal(&ValveV2{}, "v0"))
			return err
		}, convert.ErrUnknownVersion, `"v0"`},
		{"SetStatus refuses another version's status", r, func(r *convert.Registry) error {
			return r.SetVersionedStatus(&ValveV2{}, &ValveV1Status{})
		}, nil, "SetStatus: valve: SetStatus takes"},
		{"nil status", r, func(r *convert.Registry) error { return r.SetVersionedStatus(&ValveV2{}, nil) }, convert.ErrInvalidObject, "nil status"},
		{"not registered", convert.NewRegistry(), func(r *convert.Registry) error {
			_, err := r.NewEmptyVersionedStatus(&ValveV1{})
			return err
		}, convert.ErrNotRegistered, "ValveV1"},
		{"nil object", r, func(r *convert.Registry) error { _, err := r.GetVersionedSpec(nil); return err }, convert.ErrInvalidObject, "nil object"},
		{"Go types that are not Resources", widgets, func(r *convert.Registry) error {
			_, err := r.GetVersionedSpec(withOriginal(&resourceWidget{}, "v3"))
			return err
		}, convert.ErrInvalidObject, "does not implement Resource"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call(tc.r)
			require.Error(t, err)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
			}
			var ce *convert.ConversionError
			require.ErrorAs(t, err, &ce)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

// resourceWidget is a WidgetV1 dressed as a Resource.
type resourceWidget struct{ WidgetV1 }

func (w *resourceWidget) DeepCopyObject() runtime.Object {
	return &resourceWidget{*w.WidgetV1.DeepCopyObject().(*WidgetV1)}
}
func (w *resourceWidget) GetSpec() convert.ConvertibleSpec          { return nil }
func (w *resourceWidget) GetStatus() convert.ConvertibleStatus      { return nil }
func (w *resourceWidget) NewEmptyStatus() convert.ConvertibleStatus { return nil }
func (w *resourceWidget) SetStatus(convert.ConvertibleStatus) error { return nil }

// Converting a valve's spec or status alone agrees with converting the whole object, for
// every version and original version; the spoke parts round-trip through the hub.
func TestVersionedPartsAgreeWithWholeObjects(t *testing.T) {
	r := valveRegistry(t)
	cond := rapid.Custom(func(t *rapid.T) ValveCondition {
		return ValveCondition{Type: rapid.StringMatching(`[A-Z][a-z]{0,6}`).Draw(t, "type"), Status: rapid.SampledFrom([]string{"True", "False", "Unknown"}).Draw(t, "status")}
	})
	status := rapid.Custom(func(t *rapid.T) ValveStatus {
		return ValveStatus{Conditions: rapid.SliceOfN(cond, 0, 5).Draw(t, "conditions")}
	})
	v1 := rapid.Custom(func(t *rapid.T) *ValveV1 {
		return &ValveV1{Spec: ValveV1Spec{Open: rapid.Bool().Draw(t, "open")}, Status: ValveV1Status{status.Draw(t, "status")}}
	})
	v2 := rapid.Custom(func(t *rapid.T) *ValveV2 {
		return &ValveV2{Spec: ValveV2Spec{Percent: rapid.Int64Range(0, 100).Draw(t, "percent")}, Status: ValveV2Status{status.Draw(t, "status")}}
	})
	v3 := rapid.Custom(func(t *rapid.T) *ValveV3 {
		return &ValveV3{Spec: ValveV3Spec{Percent: rapid.Int64Range(0, 100).Draw(t, "percent"), Rate: rapid.Int64Range(0, 9).Draw(t, "rate")}, Status: ValveV3Status{status.Draw(t, "status")}}
	})
	t.Run("v1 parts", func(t *testing.T) { converttest.CheckPartsRoundTrip[*ValveV1, *ValveV3](t, v1) })
	t.Run("v2 parts", func(t *testing.T) { converttest.CheckPartsRoundTrip[*ValveV2, *ValveV3](t, v2) })
	rapid.Check(t, func(t *rapid.T) {
		var obj convert.Resource
		switch rapid.SampledFrom([]string{"v1", "v2", "v3"}).Draw(t, "version") {
		case "v1":
			obj = v1.Draw(t, "v1")
		case "v2":
			obj = v2.Draw(t, "v2")
		default:
			obj = v3.Draw(t, "v3")
		}
		original := rapid.SampledFrom([]string{"", "v1", "v2", "v3"}).Draw(t, "original")
		withOriginal(obj, original)
		gvk, err := r.OriginalGVK(obj)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := r.ConvertObject(context.Background(), obj, gvk.Version)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := r.GetVersionedSpec(obj)
		if err != nil {
			t.Fatal(err)
		}
		require.Equal(t, whole.(convert.Resource).GetSpec(), spec)
		st, err := r.GetVersionedStatus(obj)
		if err != nil {
			t.Fatal(err)
		}
		require.Equal(t, whole.(convert.Resource).GetStatus(), st)
	})
}
