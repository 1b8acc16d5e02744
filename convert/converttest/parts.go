package converttest

import (
	"encoding/json"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/convert"
)

// CheckPartsRoundTrip checks, on objects rapid draws from spokes, that a spoke's spec and
// its status, each converted alone (convert.ConvertibleSpec, convert.ConvertibleStatus) to
// the parts of a new H and back to those of a new S, come back as they were, and that no
// conversion fails or panics. S is a spoke type and H its hub type, both convert.Resource.
// Only spoke→hub→spoke is checked: a part has no metadata, hence no property bag, so a
// hub's part converted to a spoke and back loses what the spoke cannot hold. On failure
// the test fails with the diff of a LossError.
func CheckPartsRoundTrip[S, H convert.Resource](t *testing.T, spokes *rapid.Generator[S]) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		if err := PartsRoundTrip[S, H](spokes.Draw(rt, "spoke")); err != nil {
			rt.Fatal(err)
		}
	})
}

// PartsRoundTrip converts spoke's spec to a new H's spec and back to a new S's spec, and
// likewise its status, and compares each with where it started as JSON: nil when nothing
// was lost, a *LossError when something was, another error when a conversion failed or
// panicked (wrapping convert.ErrPanic). spoke is not modified, as the conversion rules of
// convert.ConvertibleSpec require.
func PartsRoundTrip[S, H convert.Resource](spoke S) error {
	hub, back := newOf[H](), newOf[S]()
	steps := []struct {
		path     string
		from, to func() error
		before   any
		after    func() any
	}{
		{
			path:   fmt.Sprintf("spec spoke→hub→spoke (%T→%T→%T)", spoke.GetSpec(), hub.GetSpec(), back.GetSpec()),
			from:   func() error { return spoke.GetSpec().ConvertSpecTo(hub.GetSpec()) },
			to:     func() error { return back.GetSpec().ConvertSpecFrom(hub.GetSpec()) },
			before: spoke.GetSpec(), after: func() any { return back.GetSpec() },
		},
		{
			path:   fmt.Sprintf("status spoke→hub→spoke (%T→%T→%T)", spoke.GetStatus(), hub.GetStatus(), back.GetStatus()),
			from:   func() error { return spoke.GetStatus().ConvertStatusTo(hub.GetStatus()) },
			to:     func() error { return back.GetStatus().ConvertStatusFrom(hub.GetStatus()) },
			before: spoke.GetStatus(), after: func() any { return back.GetStatus() },
		},
	}
	for _, s := range steps {
		b, err := json.Marshal(s.before)
		if err != nil {
			return fmt.Errorf("converttest: encoding %T: %w", s.before, err)
		}
		if err := call(s.path+": to hub", s.from); err != nil {
			return err
		}
		if err := call(s.path+": from hub", s.to); err != nil {
			return err
		}
		after, err := json.Marshal(s.before)
		if err != nil {
			return fmt.Errorf("converttest: encoding %T: %w", s.before, err)
		}
		if string(after) != string(b) {
			return &LossError{Path: s.path + ": the spoke's part was modified", Before: b, After: after, Diff: lineDiff(indent(b), indent(after))}
		}
		a, err := json.Marshal(s.after())
		if err != nil {
			return fmt.Errorf("converttest: encoding %T: %w", s.after(), err)
		}
		if string(a) != string(b) {
			return &LossError{Path: s.path, Before: b, After: a, Diff: lineDiff(indent(b), indent(a))}
		}
	}
	return nil
}
