package manifest_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/internal/manifestopt"
	"github.com/backupkit/backupkit/manifest"
)

// encodeItems writes items as a writer that keeps its own items does (archive's Writer:
// manifestopt.WithItems), in the order given, each with versions[i] when versions has it.
func encodeItems(items []*manifest.Item, versions map[types.UID][]string, opts ...manifest.WriteOption) ([]byte, error) {
	var buf bytes.Buffer
	err := manifest.Write(&buf, nil, append(opts, manifestopt.WithItems(func(encode func(*manifest.Item, ...string) error) error {
		for _, it := range items {
			if err := encode(it, versions[it.UID]...); err != nil {
				return err
			}
		}
		return nil
	}))...)
	return buf.Bytes(), err
}

// TestPropertyEncoderWritesWhatWriteWrites: a manifest's items encoded in its order, each
// with the versions it was recorded in, are the bytes Write writes, plain and gzip, and read
// back as the same manifest; the same items in any other order are refused.
func TestPropertyEncoderWritesWhatWriteWrites(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := manifest.New()
		for _, it := range genItems(t, 12) {
			err := m.Add(it)
			require.NoError(t, err)
		}
		versions := map[types.UID][]string{}
		for _, it := range m.Items() {
			for range rapid.IntRange(0, 2).Draw(t, "versions") {
				v := rapid.SampledFrom([]string{"v1", "v2", "v1beta1", "v2alpha1", "", "x"}).Draw(t, "version")
				versions[it.UID] = append(versions[it.UID], v)
				_, err := m.AddVersion(it.UID, v)
				require.NoError(t, err)
			}
		}
		for _, gz := range []bool{false, true} {
			var opts []manifest.WriteOption
			if gz {
				opts = append(opts, manifest.WithGzip())
			}
			var want bytes.Buffer
			require.NoError(t, manifest.Write(&want, m, opts...))
			got, err := encodeItems(m.Items(), versions, opts...)
			require.NoError(t, err)
			require.Equal(t, want.Bytes(), got, "gzip %v", gz)
			back, err := manifest.Read(bytes.NewReader(got))
			require.NoError(t, err)
			require.NoError(t, manifest.Compare(bytes.NewReader(got), m))
			require.Equal(t, m.Len(), back.Len())
		}

		items := m.Items()
		shuffled := rapid.Permutation(items).Draw(t, "shuffled")
		if slices.Equal(shuffled, items) {
			return
		}
		_, err := encodeItems(shuffled, versions)
		require.ErrorIs(t, err, manifest.ErrInvalidItem)
		require.ErrorContains(t, err, "out of order")
	})
}

// TestEncoderRefuses: Write of a writer's own items (manifestopt.WithItems): a refused item
// fails the encoding for good, and what reaches the writer is never a whole document: the items before it (enough of them to be flushed) and
// never the refused item or the document's end, so reading it back fails.
func TestEncoderRefuses(t *testing.T) {
	item := func(name, uid string) *manifest.Item {
		return &manifest.Item{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespace: "ns", Name: name, UID: types.UID(uid)}
	}
	web := func() *manifest.Item { return item("web", "u-web") }
	for _, tc := range []struct {
		name  string
		items []*manifest.Item // encoded after the fillers
		want  string
	}{
		{"out of order", []*manifest.Item{web(), item("db", "u-refused")}, `out of order: after resources/configmaps/namespaces/ns/web.json`},
		{"the same identity twice", []*manifest.Item{web(), item("web", "u-refused")}, "encoded twice"},
		{"the same item twice", []*manifest.Item{web(), web()}, "encoded twice"},
		{"nil", []*manifest.Item{nil}, "nil item"},
		{"a label not UTF-8", []*manifest.Item{func() *manifest.Item {
			it := item("web", "u-refused")
			it.Labels = map[string]string{"a": "\xff"}
			return it
		}()}, "a label is not valid UTF-8"},
		{"a name not UTF-8", []*manifest.Item{item("w\xffb", "u-refused")}, "name is not valid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			var refused error
			err := manifest.Write(&buf, nil, manifestopt.WithItems(func(encode func(*manifest.Item, ...string) error) error {
				for k := range 2000 { // about 200 KB: the encoder's buffer is flushed on the way
					require.NoError(t, encode(item(fmt.Sprintf("a-%04d", k), fmt.Sprint("u-", k))))
				}
				for _, it := range tc.items {
					if refused = encode(it); refused != nil {
						break
					}
				}
				require.Equal(t, refused, encode(item("z", "u-z")), "a failed encoding stays failed")
				return refused
			}))
			require.ErrorIs(t, err, manifest.ErrInvalidItem)
			require.ErrorContains(t, err, tc.want)
			require.Equal(t, refused, err)
			require.Greater(t, buf.Len(), 64<<10, "the items before were flushed")
			require.NotContains(t, buf.String(), "u-refused")
			require.NotContains(t, buf.String(), "]}")
			_, rerr := manifest.Read(bytes.NewReader(buf.Bytes()))
			require.ErrorIs(t, rerr, manifest.ErrFormat, "a cut document")
		})
	}
}

// TestEncoderVersions: the versions given beside an item are written as AddVersion records
// them, and no item at all is an empty document.
func TestEncoderVersions(t *testing.T) {
	it := &manifest.Item{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "ns", Name: "web", UID: "u-web"}
	doc, err := encodeItems([]*manifest.Item{it}, map[types.UID][]string{"u-web": {"v1beta1", "", "v1", "v2", "v1beta1", "foo"}})
	require.NoError(t, err)
	m, err := manifest.Read(bytes.NewReader(doc))
	require.NoError(t, err)
	got, ok := m.Get("u-web")
	require.True(t, ok)
	require.Equal(t, []string{"v2", "v1", "v1beta1", "foo"}, got.Versions(), "blank, repeats and the item's own version left out, in priority order")

	empty, err := encodeItems(nil, nil)
	require.NoError(t, err)
	m, err = manifest.Read(bytes.NewReader(empty))
	require.NoError(t, err)
	require.Zero(t, m.Len())
}

// TestNilOptionsIgnored: a nil option is skipped, as everywhere in the library, not called.
func TestNilOptionsIgnored(t *testing.T) {
	m := manifest.New()
	err := m.Add(&manifest.Item{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespace: "ns", Name: "web", UID: "u-web"})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, manifest.Write(&buf, m, nil))
	back, err := manifest.Read(bytes.NewReader(buf.Bytes()), nil)
	require.NoError(t, err)
	require.Equal(t, 1, back.Len())
	require.NoError(t, manifest.Compare(bytes.NewReader(buf.Bytes()), m, nil))
	got, err := encodeItems(m.Items(), nil, nil)
	require.NoError(t, err)
	require.Equal(t, buf.Bytes(), got)
}
