package converttest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/convert"
)

// CheckRegistryRoundTrip checks, on objects rapid draws from objects, the round trips of
// whatever kind each object is registered as in r (functions, parts or Go types): an
// object at a spoke version goes to the hub and back, an object at the hub goes to every
// spoke and back, and each must come back as it was. Use it for kinds registered with
// AddUnstructured or AddParts; CheckRoundTrip is the typed equivalent.
func CheckRegistryRoundTrip(t *testing.T, r *convert.Registry, objects *rapid.Generator[*unstructured.Unstructured]) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		if err := RegistryRoundTrip(context.Background(), r, objects.Draw(rt, "object")); err != nil {
			rt.Fatal(err)
		}
	})
}

// RegistryRoundTrip runs the round trips CheckRegistryRoundTrip describes on one object:
// nil when all are lossless, a *LossError for the first lossy one, another error when a
// conversion fails. The original-version record, which the registry may add, is not a
// difference. obj is not modified.
func RegistryRoundTrip(ctx context.Context, r *convert.Registry, obj *unstructured.Unstructured) error {
	gvk := obj.GroupVersionKind()
	hub, versions, ok := r.Versions(gvk.GroupKind())
	if !ok {
		return fmt.Errorf("converttest: %s: %w", gvk.GroupKind(), convert.ErrNotRegistered)
	}
	var via []string
	if gvk.Version == hub {
		for _, v := range versions {
			if v != hub {
				via = append(via, v)
			}
		}
	} else {
		via = []string{hub}
	}
	for _, v := range via {
		mid, err := r.Convert(ctx, obj, v)
		if err != nil {
			return fmt.Errorf("converttest: %w", err)
		}
		back, err := r.Convert(ctx, mid, gvk.Version)
		if err != nil {
			return fmt.Errorf("converttest: %w", err)
		}
		if _, had := convert.OriginalVersion(obj); !had {
			dropOriginal(back)
		}
		path := fmt.Sprintf("%s→%s→%s (%s)", gvk.Version, v, gvk.Version, gkString(obj))
		if err := compareJSON(path, obj.Object, back.Object); err != nil {
			return err
		}
	}
	return nil
}

func gkString(obj *unstructured.Unstructured) string {
	return obj.GroupVersionKind().GroupKind().String()
}

func dropOriginal(u *unstructured.Unstructured) {
	a := u.GetAnnotations()
	if _, ok := a[convert.OriginalVersionAnnotation]; !ok {
		return
	}
	delete(a, convert.OriginalVersionAnnotation)
	if len(a) == 0 {
		a = nil
	}
	u.SetAnnotations(a)
}

func compareJSON(path string, before, after map[string]any) error {
	b, err := json.Marshal(before)
	if err != nil {
		return fmt.Errorf("converttest: encoding: %w", err)
	}
	a, err := json.Marshal(after)
	if err != nil {
		return fmt.Errorf("converttest: encoding: %w", err)
	}
	if b, err = withoutNullCreationTimestamps(b); err != nil {
		return err
	}
	if a, err = withoutNullCreationTimestamps(a); err != nil {
		return err
	}
	if string(a) == string(b) {
		return nil
	}
	return &LossError{Path: path, Before: b, After: a, Diff: lineDiff(indent(b), indent(a))}
}
