package manifest_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"

	"github.com/backupkit/backupkit/manifest"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func sample(t testing.TB) *manifest.Manifest {
	ns := item("Namespace", "namespaces", "", "", "web")
	dep := item("Deployment", "deployments", "apps", "web", "front")
	dep.Labels = map[string]string{"app": "front"}
	dep.Annotations = map[string]string{}
	rs := item("ReplicaSet", "replicasets", "apps", "web", "front-1")
	rs.OwnerReferences = []metav1.OwnerReference{ownerRef(dep, true)}
	m := manifest.New()
	for _, it := range []*manifest.Item{rs, dep, ns} {
		err := m.Add(it)
		require.NoError(t, err)
	}
	_, err := m.AddVersion(dep.UID, "v1beta2")
	require.NoError(t, err)
	return m
}

const sampleJSON = `{"apiVersion":"manifest.backupkit.io/v1","kind":"Manifest","formatVersion":1,"items":[
{"group":"apps","version":"v1","otherVersions":["v1beta2"],"resource":"deployments","kind":"Deployment","namespace":"web","name":"front","uid":"uid-deployments-apps-web-front","labels":{"app":"front"},"annotations":{}},
{"version":"v1","resource":"namespaces","kind":"Namespace","name":"web","uid":"uid-namespaces---web"},
{"group":"apps","version":"v1","resource":"replicasets","kind":"ReplicaSet","namespace":"web","name":"front-1","uid":"uid-replicasets-apps-web-front-1","ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"front","uid":"uid-deployments-apps-web-front","controller":true}]}
]}
`

func TestWriteRead(t *testing.T) {
	m := sample(t)
	var buf bytes.Buffer
	require.NoError(t, manifest.Write(&buf, m))
	require.Equal(t, sampleJSON, buf.String())

	back, err := manifest.Read(strings.NewReader(sampleJSON))
	require.NoError(t, err)
	requireSameManifest(t, m, back)

	var gz bytes.Buffer
	require.NoError(t, manifest.Write(&gz, m, manifest.WithGzip()))
	zr, err := gzip.NewReader(bytes.NewReader(gz.Bytes()))
	require.NoError(t, err)
	var plain bytes.Buffer
	_, err = plain.ReadFrom(zr)
	require.NoError(t, err)
	require.Equal(t, sampleJSON, plain.String())
	back, err = manifest.Read(&gz)
	require.NoError(t, err)
	requireSameManifest(t, m, back)

	var empty bytes.Buffer
	require.NoError(t, manifest.Write(&empty, manifest.New()))
	require.Equal(t, `{"apiVersion":"manifest.backupkit.io/v1","kind":"Manifest","formatVersion":1,"items":[]}`+"\n", empty.String())
	back, err = manifest.Read(&empty)
	require.NoError(t, err)
	require.Equal(t, 0, back.Len())
}

func TestReadErrors(t *testing.T) {
	const head = `{"apiVersion":"manifest.backupkit.io/v1","kind":"Manifest","formatVersion":1,"items":`
	const pod = `{"version":"v1","resource":"pods","kind":"Pod","namespace":"n","name":"p","uid":"u"}`
	tests := map[string]struct {
		in      string
		wantErr error
		msg     string
	}{
		"future format version": {
			in: `{"apiVersion":"manifest.backupkit.io/v1","kind":"Manifest","formatVersion":2,"items":[],"newField":1}`, wantErr: manifest.ErrUnsupportedVersion,
			msg: `manifest: unsupported manifest.json version: formatVersion 2 (want 1)`,
		},
		"future apiVersion": {
			in: `{"apiVersion":"manifest.backupkit.io/v2","kind":"Manifest","items":{"changed":true}}`, wantErr: manifest.ErrUnsupportedVersion,
			msg: `manifest: unsupported manifest.json version: apiVersion "manifest.backupkit.io/v2" kind "Manifest" (want "manifest.backupkit.io/v1" "Manifest")`,
		},
		"another kind": {
			in: `{"apiVersion":"manifest.backupkit.io/v1","kind":"Backup","formatVersion":1}`, wantErr: manifest.ErrUnsupportedVersion,
			msg: `manifest: unsupported manifest.json version: apiVersion "manifest.backupkit.io/v1" kind "Backup" (want "manifest.backupkit.io/v1" "Manifest")`,
		},
		"no header": {
			in: `{"items":[]}`, wantErr: manifest.ErrUnsupportedVersion,
			msg: `manifest: unsupported manifest.json version: apiVersion "" kind "" (want "manifest.backupkit.io/v1" "Manifest")`,
		},
		"no format version": {
			in: `{"apiVersion":"manifest.backupkit.io/v1","kind":"Manifest","items":[]}`, wantErr: manifest.ErrFormat,
			msg: `manifest: malformed manifest.json: no formatVersion`,
		},
		"not JSON": {in: `hello`, wantErr: manifest.ErrFormat},
		"empty":    {in: ``, wantErr: manifest.ErrFormat},
		"trailing data": {
			in: head + `[]} {}`, wantErr: manifest.ErrFormat,
			msg: `manifest: malformed manifest.json: trailing data after the document`,
		},
		"unknown item field": {
			in: head + `[{"name":"p","surprise":1}]}`, wantErr: manifest.ErrFormat,
			msg: `manifest: malformed manifest.json: items: item 0: json: unknown field "surprise"`,
		},
		"repeated identity": {
			in: head + `[` + pod + `,` + strings.Replace(pod, `"u"`, `"v"`, 1) + `]}`, wantErr: manifest.ErrItemAlreadyExists,
			msg: `manifest: malformed manifest.json: item 1: item already exists in manifest`,
		},
		"repeated uid": {
			in: head + `[` + pod + `,` + strings.Replace(pod, `"p"`, `"q"`, 1) + `]}`, wantErr: manifest.ErrItemAlreadyExists,
			msg: `manifest: malformed manifest.json: item 1: item already exists in manifest`,
		},
		"other version equal to version": {
			in: head + `[` + strings.Replace(pod, `"version":"v1"`, `"version":"v1","otherVersions":["v1"]`, 1) + `]}`, wantErr: manifest.ErrFormat,
			msg: `manifest: malformed manifest.json: item 0 (resources/pods/namespaces/n/p.json): otherVersions: repeated or empty version "v1"`,
		},
		"other versions of an item without a uid": {
			in: head + `[` + strings.Replace(strings.Replace(pod, `,"uid":"u"`, ``, 1), `"version":"v1"`, `"version":"v1","otherVersions":["v2"]`, 1) + `]}`, wantErr: manifest.ErrItemNotFound,
			msg: `manifest: malformed manifest.json: item 0 (resources/pods/namespaces/n/p.json): otherVersions "v2": manifest: item not found: uid ""`,
		},
		"items not a list": {in: head + `{}}`, wantErr: manifest.ErrFormat},
		"bad gzip":         {in: "\x1f\x8b\x08garbage", wantErr: manifest.ErrFormat},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := manifest.Read(strings.NewReader(tc.in))
			require.ErrorIs(t, err, tc.wantErr)
			if tc.msg != "" {
				require.EqualError(t, err, tc.msg)
			}
		})
	}
}

func TestReadLimit(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, manifest.Write(&buf, sample(t), manifest.WithGzip()))
	_, err := manifest.Read(bytes.NewReader(buf.Bytes()), manifest.WithMaxBytes(100))
	require.ErrorIs(t, err, manifest.ErrTooLarge)
	require.EqualError(t, err, "manifest: manifest.json too large: more than 100 bytes")
	_, err = manifest.Read(bytes.NewReader(buf.Bytes()), manifest.WithMaxBytes(int64(len(sampleJSON))))
	require.NoError(t, err, "exactly at the limit")
	_, err = manifest.Read(bytes.NewReader(buf.Bytes()), manifest.WithMaxBytes(0))
	require.NoError(t, err, "0 means the default")
}

// FuzzRead: nothing panics, and whatever Read accepts writes back to bytes that read to
// the same manifest and write to the same bytes again.
func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	if err := manifest.Write(&buf, sample(f)); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	buf.Reset()
	if err := manifest.Write(&buf, sample(f), manifest.WithGzip()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"apiVersion":"manifest.backupkit.io/v1","kind":"Manifest","formatVersion":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := manifest.Read(bytes.NewReader(data), manifest.WithMaxBytes(1<<20))
		if err != nil {
			return
		}
		var out bytes.Buffer
		require.NoError(t, manifest.Write(&out, m))
		back, err := manifest.Read(bytes.NewReader(out.Bytes()))
		require.NoError(t, err, "%s", out.Bytes())
		requireSameManifest(t, m, back)
		var again bytes.Buffer
		require.NoError(t, manifest.Write(&again, back))
		require.Equal(t, out.String(), again.String())
		_, _ = m.Waves()
		_ = m.Validate()
	})
}

// TestWriteRefusesInvalidUTF8: JSON cannot carry invalid UTF-8 exactly (encoding/json
// writes U+FFFD), so an item holding it would not read back as written: two names that
// differ only in invalid bytes even collide. Write refuses it.
func TestWriteRefusesInvalidUTF8(t *testing.T) {
	for _, items := range [][]*manifest.Item{
		{
			{Version: "v1", Resource: "pods", Kind: "Pod", Namespace: "ns", Name: "a\xff", UID: "u1"},
			{Version: "v1", Resource: "pods", Kind: "Pod", Namespace: "ns", Name: "a\xfe", UID: "u2"},
		},
		{{Version: "v1", Resource: "pods", Kind: "Pod", Namespace: "ns", Name: "a", UID: "u1", Labels: map[string]string{"k": "v\xff"}}},
	} {
		m := manifest.New()
		for _, it := range items {
			err := m.Add(it)
			require.NoError(t, err)
		}
		var buf bytes.Buffer
		err := manifest.Write(&buf, m)
		if err == nil {
			back, rerr := manifest.Read(bytes.NewReader(buf.Bytes()))
			require.NoError(t, rerr, "Write accepted what Read refuses")
			requireSameManifest(t, m, back)
		}
		require.ErrorIs(t, err, manifest.ErrInvalidItem)
		require.Zero(t, buf.Len())
	}
}

// TestReadFieldOrder: the header's fields may come in any order, before or after the
// items, and unknown top-level fields anywhere; the manifest read is the same.
func TestReadFieldOrder(t *testing.T) {
	items := sampleJSON[strings.Index(sampleJSON, "[") : strings.LastIndex(sampleJSON, "]")+1]
	for name, doc := range map[string]string{
		"items first":            `{"items":` + items + `,"kind":"Manifest","formatVersion":1,"apiVersion":"manifest.backupkit.io/v1"}`,
		"kind after items":       `{"apiVersion":"manifest.backupkit.io/v1","formatVersion":1,"items":` + items + `,"kind":"Manifest"}`,
		"unknown fields around":  `{"x":{"a":[1]},"apiVersion":"manifest.backupkit.io/v1","kind":"Manifest","formatVersion":1,"y":null,"items":` + items + `,"z":"q"}`,
		"as Write writes it":     sampleJSON,
		"with whitespace around": "\n " + sampleJSON + " \n",
	} {
		t.Run(name, func(t *testing.T) {
			back, err := manifest.Read(strings.NewReader(doc))
			require.NoError(t, err)
			var buf bytes.Buffer
			require.NoError(t, manifest.Write(&buf, back))
			require.Equal(t, sampleJSON, buf.String())
		})
	}
	for name, doc := range map[string]string{
		"items twice":                `{"apiVersion":"manifest.backupkit.io/v1","kind":"Manifest","formatVersion":1,"items":[],"items":[]}`,
		"items first, other version": `{"items":` + items + `,"kind":"Manifest","formatVersion":2,"apiVersion":"manifest.backupkit.io/v1"}`,
		"items first, bad item":      `{"items":[{"name":"p","surprise":1}],"kind":"Manifest","formatVersion":1,"apiVersion":"manifest.backupkit.io/v1"}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := manifest.Read(strings.NewReader(doc))
			require.Error(t, err)
			require.True(t, errors.Is(err, manifest.ErrFormat) || errors.Is(err, manifest.ErrUnsupportedVersion), err)
		})
	}
}
