package versionselect_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/backupkit/backupkit/versionselect"
)

func FuzzParsePriorities(f *testing.F) {
	for _, seed := range []string{
		"",
		"pods=v1",
		"rockbands.music.example.io=v2beta1,v2beta2\norchestras.music.example.io=v2,v3alpha1\n",
		" pods = v1 ,\tv2 \r\n# comment\njobs.batch=v1#x\n",
		"a\n=\nb==c\nd=,\npods=v1\npods=v2",
		"\u00a0pods\u2003=\u3000v1\u200b",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, err := versionselect.ParsePriorities(text)
		if p == nil {
			t.Fatal("nil Priorities")
		}
		for key, versions := range p {
			if key == "" || strings.ContainsAny(key, "=#") || strings.IndexFunc(key, unicode.IsSpace) >= 0 {
				t.Fatalf("bad key %q", key)
			}
			if len(versions) == 0 {
				t.Fatalf("key %q without versions", key)
			}
			seen := map[string]bool{}
			for _, v := range versions {
				if v == "" || strings.TrimSpace(v) != v || strings.IndexFunc(v, unicode.IsSpace) >= 0 || strings.ContainsAny(v, ",=#") {
					t.Fatalf("key %q: bad version %q", key, v)
				}
				if seen[v] {
					t.Fatalf("key %q: duplicate version %q", key, v)
				}
				seen[v] = true
			}
		}
		if err == nil {
			return
		}
		var errs []error
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = j.Unwrap()
		} else {
			errs = []error{err}
		}
		lines := strings.Count(text, "\n") + 1
		prev := 0
		for _, e := range errs {
			var le *versionselect.LineError
			if !errors.As(e, &le) {
				t.Fatalf("not a *LineError: %v", e)
			}
			if le.Line <= prev || le.Line > lines {
				t.Fatalf("line %d out of order or range (prev %d, lines %d)", le.Line, prev, lines)
			}
			prev = le.Line
		}
	})
}

// FuzzReadPriorities: any bytes give priorities or an error, never a panic; a ConfigMap
// written around a text reads as the text does.
func FuzzReadPriorities(f *testing.F) {
	for _, seed := range []string{
		"",
		"pods=v1\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: p, namespace: velero}\ndata:\n  restoreResourcesVersionPriority: |\n    pods=v1\n",
		`{"apiVersion":"v1","kind":"ConfigMap","data":{"restoreResourcesVersionPriority":"pods=v1,v2"}}`,
		"# c\n---\napiVersion: v1\nkind: ConfigMap\ndata: {restoreResourcesVersionPriority: 'a=b'}\n",
		"apiVersion: v1\nkind: Secret\n",
		"kind: ConfigMap\ndata: [\n",
		"a: b\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := versionselect.ReadPriorities(data)
		if err == nil && p == nil {
			t.Fatal("nil Priorities without an error")
		}
		if !utf8.Valid(data) || bytes.ContainsAny(data, "\r") {
			return
		}
		// Bare text that does not look like a manifest reads as ParsePriorities reads it.
		if !bytes.Contains(data, []byte(":")) && !bytes.Contains(data, []byte("{")) && !bytes.Contains(data, []byte("[")) {
			want, wantErr := versionselect.ParsePriorities(string(data))
			if (err == nil) != (wantErr == nil) || (err == nil && !reflect.DeepEqual(p, want)) {
				t.Fatalf("%q: ReadPriorities %v, %v; ParsePriorities %v, %v", data, p, err, want, wantErr)
			}
		}
	})
}
