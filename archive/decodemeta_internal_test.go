package archive

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// decodeMetaReference is decodeMeta as it was, on encoding/json: the reference
// FuzzDecodeMeta holds decodeMeta to.
func decodeMetaReference(b []byte, full bool) (*Metadata, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var m Metadata
	var haveAPIVersion, haveKind, haveMetadata bool
	for dec.More() && !(haveAPIVersion && haveKind && haveMetadata) {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		switch key {
		case "apiVersion":
			haveAPIVersion, err = true, dec.Decode(&m.APIVersion)
		case "kind":
			haveKind, err = true, dec.Decode(&m.Kind)
		case "metadata":
			haveMetadata = true
			if full {
				var f metadataFields
				err = dec.Decode(&f)
				m.Name, m.Namespace, m.UID = f.Name, f.Namespace, f.UID
				m.Labels, m.Annotations, m.OwnerReferences = f.Labels, f.Annotations, f.OwnerReferences
			} else {
				var f uidOnly
				err = dec.Decode(&f)
				m.UID = f.UID
			}
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
	}
	if !haveMetadata {
		return nil, errors.New("no metadata")
	}
	return &m, nil
}

var decodeMetaSeeds = []string{
	`{"apiVersion":"v1","data":{"k":"xxxxxxxx"},"kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","uid":"u","labels":{"app":"web"},"annotations":{"checksum/config":"abc"},"managedFields":[{"manager":"m"}]}}`,
	`{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"r","uid":"u","ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"du","controller":true,"blockOwnerDeletion":false}]},"spec":{}}`,
	`{"metadata":{"Name":"a","UID":"u","LABELS":{"x":"y"}},"kind":"K","apiVersion":"v1"}`,
	`{"metadata":{"name":"a"},"metadata":{"name":"b","labels":{"k":"1"}},"kind":"K","apiVersion":"v1"}`,
	`{"apiVersion":null,"kind":"K","metadata":{"name":null,"labels":{"a":null},"annotations":null}}`,
	`{"apiVersion":"v1","kind":"K","metadata":{"name":"bad \xff utf8","labels":{"k\xfe":"v"}}}`,
	`{"apiVersion":1,"kind":"K","metadata":{}}`,
	`{"apiVersion":"v1","kind":"K","metadata":{"labels":{"a":1}}}`,
	`{"apiVersion":"v1","kind":"K","metadata":{"name":"a"}} trailing`,
	`{"apiVersion":"v1","kind":"K"}`,
	`[1,2]`,
	``,
	`{"apiVersion":"v1","kind":"K","metadata":{"name":"a\u00e9\ud83d\ude00","namespace":"n\"s"}}`,
	`{"apiVersion":"v1","kind":"K","metadata":{"ownerReferences":[{"uid":"x","controller":"yes"}]}}`,
	`{"apiVersion":"v1","kind":"K","metadata":{"name":"a",}}`,
	`{"spec":{"a":[1,2,{"b":null}]},"apiVersion":"v1","kind":"K","metadata":{"uid":"u"}}`,
}

// FuzzDecodeMeta: decodeMeta accepts what encoding/json accepted and decodes the same
// metadata, and refuses what it refused.
func FuzzDecodeMeta(f *testing.F) {
	for _, s := range decodeMetaSeeds {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, b []byte, full bool) {
		got, err := decodeMeta(b, full, nil)
		want, werr := decodeMetaReference(b, full)
		if werr != nil {
			require.Error(t, err, "decodeMeta accepted what encoding/json refused (%v): %q", werr, b)
			return
		}
		require.NoError(t, err, "decodeMeta refused what encoding/json accepted: %q", b)
		require.Equal(t, want, got, "%q", b)
		require.Equal(t, want.Labels == nil, got.Labels == nil)
		require.Equal(t, want.Annotations == nil, got.Annotations == nil)
	})
}

func TestDecodeMetaSeeds(t *testing.T) {
	for _, s := range decodeMetaSeeds {
		for _, full := range []bool{true, false} {
			got, err := decodeMeta([]byte(s), full, nil)
			want, werr := decodeMetaReference([]byte(s), full)
			require.Equal(t, werr == nil, err == nil, "%q: %v / %v", s, err, werr)
			if werr == nil {
				require.Equal(t, want, got, s)
			}
		}
	}
}

// TestDecodeMetaTypeErrors: a field of the wrong JSON type is named by its path and what it
// holds, not by the decoder's Go types, alike whether the metadata is read whole or only
// its uid.
func TestDecodeMetaTypeErrors(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		uidOnly  bool // the uid-only decoding meets it too
	}{
		{`{"metadata":"x"}`, "metadata: a string, not an object", true},
		{`{"metadata":[1]}`, "metadata: an array, not an object", true},
		{`{"kind":3,"metadata":{}}`, "kind: a number, not a string", true},
		{`{"metadata":{"uid":true}}`, "metadata.uid: a boolean, not a string", true},
		{`{"metadata":{"labels":{"app":1}}}`, "metadata.labels.app: a number, not a string", false},
		{`{"metadata":{"labels":[]}}`, "metadata.labels: an array, not an object", false},
		{`{"metadata":{"ownerReferences":[{"controller":"yes"}]}}`, "metadata.ownerReferences.0.controller: a string, not a boolean", false},
	} {
		_, err := decodeMeta([]byte(tc.in), true, nil)
		require.EqualError(t, err, tc.want, tc.in)
		_, err = decodeMeta([]byte(tc.in), false, nil)
		if tc.uidOnly {
			require.EqualError(t, err, tc.want, "%s, uid only", tc.in)
		} else {
			require.NoError(t, err, "%s, uid only", tc.in)
		}
	}
	_, err := decodeMeta([]byte(`{"metadata":{"name":"a"`), true, nil)
	require.ErrorContains(t, err, "metadata: unexpected end of JSON input", "a syntax error keeps the field it is in")
}
