package manifest

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/internal/manifestopt"
)

// Compare reads a manifest.json from r, as [Read] does with opts, and reports whether it
// holds the items of m: the same identities, each with the same version, other versions,
// UID, kind, labels, annotations and ownerReferences, in any order. The items read are
// compared as m keeps them: of a projected m ([Manifest.Projected]), only the labels and
// annotations m keeps. It reads the document item by item and keeps
// none of them, so comparing a large manifest costs a bit per item of m beside it.
//
// The result is nil when they agree, a *[MismatchError] (errors.Is: [ErrMismatch]) naming the first
// difference (an item only one side holds, an item held twice, an item whose fields
// differ, with both as manifest.json writes them) when they do not, and Read's errors
// when r does not hold a manifest.json.
func Compare(r io.Reader, m *Manifest, opts ...ReadOption) error {
	cfg := readConfig{MaxBytes: DefaultMaxBytes}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	m.mu.Lock()
	p, n := m.projection, len(m.items)
	m.mu.Unlock()
	seen := make([]uint64, (n+63)/64)
	stored := 0
	err := readDocument(r, cfg, func(d *jsontext.Decoder) error {
		return eachItem(d, func(k int, j *itemJSON) error {
			stored++
			j.Labels, j.Annotations = manifestopt.Apply(j.Labels, p.Labels), manifestopt.Apply(j.Annotations, p.Annotations)
			got := j.item()
			idx, want, ok := m.jsonOf(schema.GroupResource{Group: j.Group, Resource: j.Resource}, j.Namespace, j.Name)
			switch {
			case !ok:
				return mismatch("item %d (%s): not in the manifest", k, got)
			case int(idx) >= n: // added to m since Compare began: not compared
				stored--
				return nil
			case seen[idx/64]&(1<<(idx%64)) != 0:
				return mismatch("item %d (%s): stored twice", k, got)
			}
			seen[idx/64] |= 1 << (idx % 64)
			j.OtherVersions = slices.Clone(j.OtherVersions)
			sortVersions(j.OtherVersions) // Write's order
			if sameJSON(j, &want) {
				return nil
			}
			a, _ := json.Marshal(j)
			b, _ := json.Marshal(want)
			return mismatch("item %d: stored %s, in the manifest %s", k, clip(a), clip(b))
		})
	})
	if err != nil {
		return err
	}
	if stored == n {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, idx := range m.orderLocked() {
		if int(idx) < n && seen[idx/64]&(1<<(idx%64)) == 0 {
			return mismatch("%d items stored, %d in the manifest; %s is not stored", stored, n, m.items[idx])
		}
	}
	return mismatch("%d items stored, %d in the manifest", stored, n)
}

// MismatchError is [Compare]'s answer when a manifest.json does not hold the items of the
// manifest: Why names the first difference. errors.Is(err, [ErrMismatch]) is true of it.
type MismatchError struct {
	Why string
}

func (e *MismatchError) Error() string { return ErrMismatch.Error() + ": " + e.Why }

// Is makes errors.Is(err, ErrMismatch) true.
func (e *MismatchError) Is(target error) bool { return target == ErrMismatch }

func mismatch(format string, args ...any) error {
	return &MismatchError{Why: fmt.Sprintf(format, args...)}
}

// sameJSON reports whether Write writes a and b alike, field by field without encoding
// them: strings equal, maps and the owners' slice equal and both nil or both not (Write
// omits a nil one and writes an empty one).
func sameJSON(a, b *itemJSON) bool {
	sameMap := func(x, y map[string]string) bool { return (x == nil) == (y == nil) && maps.Equal(x, y) }
	return a.Group == b.Group && a.Version == b.Version && slices.Equal(a.OtherVersions, b.OtherVersions) &&
		a.Resource == b.Resource && a.Kind == b.Kind && a.Namespace == b.Namespace && a.Name == b.Name && a.UID == b.UID &&
		sameMap(a.Labels, b.Labels) && sameMap(a.Annotations, b.Annotations) &&
		(a.OwnerReferences == nil) == (b.OwnerReferences == nil) && reflect.DeepEqual(a.OwnerReferences, b.OwnerReferences)
}

// jsonOf returns the index of the item with this identity and the item as manifest.json
// holds it.
func (m *Manifest) jsonOf(gr schema.GroupResource, namespace, name string) (int32, itemJSON, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	idx, ok := m.lookupLocked(gr, namespace, name)
	if !ok {
		return 0, itemJSON{}, false
	}
	return idx, itemJSONOf(m.items[idx], m.versionsLocked(idx)), true
}

// clip is an item's JSON shortened for an error message.
func clip(b []byte) string {
	const limit = 200
	s := string(b)
	if len(s) > limit {
		return s[:limit] + "..."
	}
	return strings.TrimSpace(s)
}
