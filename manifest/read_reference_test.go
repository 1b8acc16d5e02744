package manifest_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/manifest"
)

// referenceRead is Read as encoding/json does it, the whole document at once: the
// reference the streaming decoder is checked against.
func referenceRead(data []byte) (*manifest.Manifest, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, err
		}
	}
	var h struct {
		APIVersion    string          `json:"apiVersion"`
		Kind          string          `json:"kind"`
		FormatVersion *int            `json:"formatVersion"`
		Items         json.RawMessage `json:"items"`
	}
	d := json.NewDecoder(bytes.NewReader(data))
	if err := d.Decode(&h); err != nil {
		return nil, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data")
	}
	if h.APIVersion != manifest.APIVersion || h.Kind != manifest.Kind || h.FormatVersion == nil || *h.FormatVersion != manifest.FormatVersion {
		return nil, errors.New("header")
	}
	var items []struct {
		Group, Version, Resource, Kind, Namespace, Name string
		OtherVersions                                   []string
		UID                                             types.UID
		Labels, Annotations                             map[string]string
		OwnerReferences                                 []metav1.OwnerReference
	}
	if len(h.Items) > 0 {
		d := json.NewDecoder(bytes.NewReader(h.Items))
		d.DisallowUnknownFields()
		if err := d.Decode(&items); err != nil {
			return nil, err
		}
		if _, err := d.Token(); !errors.Is(err, io.EOF) {
			return nil, errors.New("trailing data")
		}
	}
	m := manifest.New()
	for _, j := range items {
		it := &manifest.Item{Group: j.Group, Version: j.Version, Resource: j.Resource, Kind: j.Kind,
			Namespace: j.Namespace, Name: j.Name, UID: j.UID, Labels: j.Labels, Annotations: j.Annotations, OwnerReferences: j.OwnerReferences}
		if err := m.Add(it); err != nil {
			return nil, err
		}
		for _, v := range j.OtherVersions {
			if added, err := m.AddVersion(it.UID, v); err != nil || !added {
				return nil, errors.New("otherVersions")
			}
		}
	}
	return m, nil
}

// FuzzReadReference: whatever Read accepts, encoding/json reading the whole document
// accepts too, as the same manifest.
func FuzzReadReference(f *testing.F) {
	var buf bytes.Buffer
	if err := manifest.Write(&buf, sample(f)); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(sampleJSON))
	f.Add([]byte(`{"items":[{"Name":"a","kind":"K","version":"v1","resource":"r","uid":"u"}],"apiVersion":"manifest.backupkit.io/v1","kind":"Manifest","formatVersion":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := manifest.Read(bytes.NewReader(data), manifest.WithMaxBytes(1<<20))
		if err != nil {
			return
		}
		ref, rerr := referenceRead(data)
		require.NoError(t, rerr, "Read accepted what encoding/json refuses: %q", data)
		var a, b bytes.Buffer
		require.NoError(t, manifest.Write(&a, m))
		require.NoError(t, manifest.Write(&b, ref))
		require.Equal(t, b.String(), a.String())
	})
}

// BenchmarkRead reads the manifest.json of about 100,000 items shaped like a cluster
// (realistic), with Read ("stream") and with encoding/json reading the whole document
// ("encoding-json", referenceRead): the decoder Read uses against the one it replaced.
func BenchmarkRead(b *testing.B) {
	m := manifest.New()
	for _, it := range realistic(100_000) {
		if err := m.Add(it); err != nil {
			b.Fatal(err)
		}
	}
	var doc bytes.Buffer
	if err := manifest.Write(&doc, m); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		read func([]byte) (*manifest.Manifest, error)
	}{
		{"stream", func(d []byte) (*manifest.Manifest, error) { return manifest.Read(bytes.NewReader(d)) }},
		{"encoding-json", referenceRead},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(doc.Len()))
			for b.Loop() {
				got, err := tc.read(doc.Bytes())
				if err != nil {
					b.Fatal(err)
				}
				if got.Len() != m.Len() {
					b.Fatalf("read %d items of %d", got.Len(), m.Len())
				}
			}
		})
	}
}
