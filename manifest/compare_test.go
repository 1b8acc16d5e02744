package manifest_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/internal/manifestopt"
	"github.com/backupkit/backupkit/manifest"
)

func doc(t require.TestingT, items ...*manifest.Item) []byte {
	m := manifest.New()
	for _, it := range items {
		err := m.Add(it)
		require.NoError(t, err)
	}
	var buf bytes.Buffer
	require.NoError(t, manifest.Write(&buf, m))
	return buf.Bytes()
}

func TestCompare(t *testing.T) {
	a := func() *manifest.Item { return labelled("a", map[string]string{"app": "x"}, nil) }
	b := func() *manifest.Item { return labelled("b", nil, map[string]string{"note": "y"}) }
	m := manifest.New()
	for _, it := range []*manifest.Item{a(), b()} {
		err := m.Add(it)
		require.NoError(t, err)
	}
	same := doc(t, a(), b())
	lines := strings.Split(string(same), "\n") // header, a, b, footer
	require.Len(t, lines, 5)
	changed := b()
	changed.Annotations["note"] = "z"
	otherUID := b()
	otherUID.UID = "uid-other"
	var gz bytes.Buffer
	require.NoError(t, manifest.Write(&gz, m, manifest.WithGzip()))
	for _, tc := range []struct {
		name string
		doc  []byte
		err  error
		msg  string
	}{
		{"same", same, nil, ""},
		{"gzip", gz.Bytes(), nil, ""},
		{"other order", []byte(lines[0] + "\n" + lines[2] + ",\n" + strings.TrimSuffix(lines[1], ",") + "\n" + lines[3] + "\n" + lines[4]), nil, ""},
		{"annotation differs", doc(t, a(), changed), manifest.ErrMismatch, `item 1: stored {"version":"v1","resource":"configmaps","kind":"ConfigMap","namespace":"ns","name":"b","uid":"uid-configmaps--ns-b","annotations":{"note":"z"}}, in the manifest {`},
		{"uid differs", doc(t, a(), otherUID), manifest.ErrMismatch, `uid-other`},
		{"item missing", doc(t, a()), manifest.ErrMismatch, "1 items stored, 2 in the manifest; resources/configmaps/namespaces/ns/b.json is not stored"},
		{"item extra", doc(t, a(), b(), labelled("c", nil, nil)), manifest.ErrMismatch, "item 2 (resources/configmaps/namespaces/ns/c.json): not in the manifest"},
		{"item twice", []byte(lines[0] + "\n" + lines[1] + "\n" + lines[1] + "\n" + lines[2] + "\n" + lines[3]), manifest.ErrMismatch, "item 1 (resources/configmaps/namespaces/ns/a.json): stored twice"},
		{"malformed", []byte(`{"apiVersion":`), manifest.ErrFormat, ""},
		{"unsupported", []byte(`{"apiVersion":"x/v9","kind":"Manifest","formatVersion":1,"items":[]}`), manifest.ErrUnsupportedVersion, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := manifest.Compare(bytes.NewReader(tc.doc), m)
			if tc.err == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.err)
			require.Contains(t, err.Error(), tc.msg)
			var mm *manifest.MismatchError
			require.Equal(t, tc.err == manifest.ErrMismatch, errors.As(err, &mm))
			if mm != nil {
				require.Contains(t, mm.Why, tc.msg)
			}
		})
	}
	require.ErrorIs(t, manifest.Compare(bytes.NewReader(same), m, manifest.WithMaxBytes(10)), manifest.ErrTooLarge)
}

// TestPropertyCompare: Compare agrees exactly when the two manifests write the same
// manifest.json.
func TestPropertyCompare(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := build(t, genItems(t, 6))
		other := build(t, genItems(t, 6))
		if rapid.Bool().Draw(t, "itself") {
			other = m
		}
		var a, b bytes.Buffer
		require.NoError(t, manifest.Write(&a, m))
		require.NoError(t, manifest.Write(&b, other))
		err := manifest.Compare(bytes.NewReader(b.Bytes()), m)
		if bytes.Equal(a.Bytes(), b.Bytes()) {
			require.NoError(t, err)
		} else {
			require.ErrorIs(t, err, manifest.ErrMismatch)
		}
	})
}

// TestCompareVersionOrder: other versions are compared in Write's order (Kubernetes
// version priority), whatever order the document lists them in.
func TestCompareVersionOrder(t *testing.T) {
	m := manifest.New()
	it := item("RockBand", "rockbands", "music.example.io", "default", "web")
	err := m.Add(it)
	require.NoError(t, err)
	for _, v := range []string{"v1alpha1", "v2beta1"} {
		_, err := m.AddVersion(it.UID, v)
		require.NoError(t, err)
	}
	var buf bytes.Buffer
	require.NoError(t, manifest.Write(&buf, m))
	require.Contains(t, buf.String(), `"otherVersions":["v2beta1","v1alpha1"]`)
	require.NoError(t, manifest.Compare(bytes.NewReader(buf.Bytes()), m))
	swapped := strings.Replace(buf.String(), `["v2beta1","v1alpha1"]`, `["v1alpha1","v2beta1"]`, 1)
	require.NoError(t, manifest.Compare(strings.NewReader(swapped), m))
}

// FuzzCompare: Compare never panics, and a document Read accepts compares equal with the
// manifest Read made of it, whole and under a projection.
func FuzzCompare(f *testing.F) {
	var buf bytes.Buffer
	if err := manifest.Write(&buf, sample(f)); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(sampleJSON))
	f.Add([]byte(`{"apiVersion":"manifest.backupkit.io/v1","kind":"Manifest","formatVersion":1,"items":[{"version":"v1","otherVersions":["v1alpha1","v2"],"resource":"r","kind":"K","name":"a","uid":"u","labels":{"app":"x","tier":"y"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := manifest.Read(bytes.NewReader(data), manifest.WithMaxBytes(1<<20))
		if err != nil {
			_ = manifest.Compare(bytes.NewReader(data), manifest.New(), manifest.WithMaxBytes(1<<20))
			return
		}
		require.NoError(t, manifest.Compare(bytes.NewReader(data), m, manifest.WithMaxBytes(1<<20)))
		p, err := manifest.Read(bytes.NewReader(data), manifest.WithMaxBytes(1<<20), manifestopt.WithReadProjection(manifestopt.Projection{Labels: manifestopt.Keys("app"), Annotations: manifestopt.Keys()}))
		require.NoError(t, err)
		require.NoError(t, manifest.Compare(bytes.NewReader(data), p, manifest.WithMaxBytes(1<<20)))
	})
}
