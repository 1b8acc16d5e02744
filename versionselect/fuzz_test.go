package versionselect_test

import (
	"errors"
	"strings"
	"testing"
	"unicode"

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
