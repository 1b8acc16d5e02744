// Package converttest checks users' conversions: that a spoke version converts to the hub
// and back, and the hub to a spoke and back, without losing anything. It is to
// package convert what testing/fstest is to io/fs: a checker shipped with the interface.
// CheckRoundTrip checks Go types (Hub and Convertible) directly; CheckRegistryRoundTrip
// checks any kind through a convert.Registry, which is how kinds registered with
// functions over unstructured objects are checked.
//
// # Equality
//
// Two objects are equal when their JSON encodings are, after clearing TypeMeta (the
// registry sets it, a converter need not): what a round trip must preserve is what the
// API server would store. A null creationTimestamp in metadata, which is how
// k8s.io/apimachinery before v0.34 encodes a zero one, is left out of both encodings, as
// v0.34 and later leave it out, so that the result and the diff are the same at either.
// Fields a spoke cannot hold must travel in the property bag (convert.Stash); the bag
// itself must be consumed on the way back, as it is checked too.
package converttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/convert"
)

// ErrLossy: a round trip changed the object.
var ErrLossy = errors.New("converttest: round trip is lossy")

// LossError reports a lossy round trip: the path taken, and the object before and after
// as JSON, with a unified diff.
type LossError struct {
	// Path is "spoke→hub→spoke" or "hub→spoke→hub", with the Go types named.
	Path string
	// Before and After are the JSON encodings compared (TypeMeta cleared).
	Before, After []byte
	// Diff compares Before and After indented, line by line: "- " a line only before,
	// "+ " a line only after, "  " a line in both.
	Diff string
}

// Error renders the path and the diff ("-" before, "+" after).
func (e *LossError) Error() string {
	return fmt.Sprintf("converttest: round trip is lossy: %s (- before, + after):\n%s", e.Path, e.Diff)
}

// Unwrap returns ErrLossy.
func (e *LossError) Unwrap() error { return ErrLossy }

// CheckRoundTrip checks, on objects rapid draws from spokes and hubs, that spoke→hub→spoke
// and hub→spoke→hub give back the object they started from, and that no conversion fails
// or panics. S is a spoke type (a pointer, like *v1.ExternalJob) and H its hub type. On
// failure rapid shrinks the object and the test fails with the diff of a LossError.
//
// Either generator may be nil to check one direction only. The converters get deep copies,
// as from convert.Registry; the objects drawn are not modified.
func CheckRoundTrip[S convert.Convertible, H convert.Hub](t *testing.T, spokes *rapid.Generator[S], hubs *rapid.Generator[H]) {
	t.Helper()
	if spokes != nil {
		t.Run("spoke→hub→spoke", func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				if err := SpokeRoundTrip[S, H](spokes.Draw(rt, "spoke")); err != nil {
					rt.Fatal(err)
				}
			})
		})
	}
	if hubs != nil {
		t.Run("hub→spoke→hub", func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				if err := HubRoundTrip[S, H](hubs.Draw(rt, "hub")); err != nil {
					rt.Fatal(err)
				}
			})
		})
	}
}

// SpokeRoundTrip converts spoke to a new H and back to a new S and compares: nil when
// nothing was lost, a *LossError when something was, another error when a conversion
// failed or panicked (wrapping convert.ErrPanic). spoke is not modified.
func SpokeRoundTrip[S convert.Convertible, H convert.Hub](spoke S) error {
	hub := newOf[H]()
	src := spoke.DeepCopyObject().(S)
	if err := call("ConvertTo", func() error { return src.ConvertTo(hub) }); err != nil {
		return err
	}
	back := newOf[S]()
	if err := call("ConvertFrom", func() error { return back.ConvertFrom(hub.DeepCopyObject().(H)) }); err != nil {
		return err
	}
	return compare(fmt.Sprintf("spoke→hub→spoke (%T→%T→%T)", spoke, hub, back), spoke, back)
}

// HubRoundTrip converts hub to a new S and back to a new H and compares, as
// SpokeRoundTrip does. hub is not modified.
func HubRoundTrip[S convert.Convertible, H convert.Hub](hub H) error {
	spoke := newOf[S]()
	if err := call("ConvertFrom", func() error { return spoke.ConvertFrom(hub.DeepCopyObject().(H)) }); err != nil {
		return err
	}
	back := newOf[H]()
	src := spoke.DeepCopyObject().(S)
	if err := call("ConvertTo", func() error { return src.ConvertTo(back) }); err != nil {
		return err
	}
	return compare(fmt.Sprintf("hub→spoke→hub (%T→%T→%T)", hub, spoke, back), hub, back)
}

// newOf returns a new zero object of the pointer type T.
func newOf[T runtime.Object]() T {
	var zero T
	return reflect.New(reflect.TypeOf(zero).Elem()).Interface().(T)
}

func call(step string, f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("converttest: %s: %w: %v", step, convert.ErrPanic, p)
		}
	}()
	if err := f(); err != nil {
		return fmt.Errorf("converttest: %s: %w", step, err)
	}
	return nil
}

// compare encodes before and after without TypeMeta and returns a *LossError when they
// differ.
func compare(path string, before, after runtime.Object) error {
	b, err := encode(before)
	if err != nil {
		return err
	}
	a, err := encode(after)
	if err != nil {
		return err
	}
	if string(a) == string(b) {
		return nil
	}
	return &LossError{Path: path, Before: b, After: a, Diff: lineDiff(indent(b), indent(a))}
}

func encode(obj runtime.Object) ([]byte, error) {
	c := obj.DeepCopyObject()
	c.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	b, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("converttest: encoding %T: %w", obj, err)
	}
	return withoutNullCreationTimestamps(b)
}

// withoutNullCreationTimestamps returns b, the compact JSON that encoding/json made,
// without each "creationTimestamp":null member of an object that is the value of a
// "metadata" member, and otherwise unchanged. That member is a zero
// metav1.ObjectMeta.CreationTimestamp as k8s.io/apimachinery before v0.34 encodes it;
// v0.34 and later leave it out (omitzero), and the API server reads both as unset; left
// out here too, the comparison and the diff of a LossError read the same at every
// apimachinery version go.mod allows. A creationTimestamp that is set, or a null one
// anywhere else, stays.
func withoutNullCreationTimestamps(b []byte) ([]byte, error) {
	if !bytes.Contains(b, []byte(`"creationTimestamp":null`)) {
		return b, nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var (
		inMetadata []bool     // per open object or array: it is an object, the value of a "metadata" member
		afterName  string     // the member name just read; "" after any other token
		cuts       [][2]int64 // byte ranges of b to leave out, in order
	)
	for {
		kind, n := dec.StackIndex(dec.StackDepth())
		start := dec.InputOffset() // after the previous token: at its comma, if one follows
		tok, err := dec.ReadToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("converttest: encoding: %w", err)
		}
		name := ""
		switch k := tok.Kind(); {
		case k == '{' || k == '[':
			inMetadata = append(inMetadata, k == '{' && afterName == "metadata")
		case k == '}' || k == ']':
			inMetadata = inMetadata[:len(inMetadata)-1]
		case kind == '{' && n%2 == 0: // a member's name
			name = tok.String()
		}
		afterName = name
		if name != "creationTimestamp" || !inMetadata[len(inMetadata)-1] || dec.PeekKind() != 'n' {
			continue
		}
		if _, err := dec.ReadToken(); err != nil { // the null
			return nil, fmt.Errorf("converttest: encoding: %w", err)
		}
		afterName = ""
		end := dec.InputOffset()
		if n == 0 && dec.PeekKind() != '}' {
			// The object's first member: the comma after it goes with it.
			end += int64(bytes.IndexByte(b[end:], ',') + 1)
		}
		cuts = append(cuts, [2]int64{start, end})
	}
	out := make([]byte, 0, len(b))
	last := int64(0)
	for _, c := range cuts {
		out = append(out, b[last:c[0]]...)
		last = c[1]
	}
	return append(out, b[last:]...), nil
}
