// Package golden compares what an example program prints with files under its testdata/
// directory; `go test -update` rewrites them from the output instead.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ from the output")

// Check fails t unless got equals the file testdata/name, which -update rewrites first.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file: %v (run go test -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("output differs from %s (go test -update rewrites it)\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}
