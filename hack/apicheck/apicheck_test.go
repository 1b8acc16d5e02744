// Package apicheck_test tests hack/apicheck.sh, the API check of `make api-check`, on a
// tiny module of its own: a record written with -w, then the module changed, and the check
// run against CHANGELOG.md. It runs the apidiff the Makefile pins (APIDIFF), from the module
// cache or through the module proxy.
package apicheck_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// tiny is the module the check runs on, file by file.
var tiny = map[string]string{
	"go.mod": "module example.com/tiny\n\ngo 1.26\n",
	"tiny.go": `package tiny

func Keep() {}

func Gone() int { return 0 }

type T struct{}

func (T) M() {}
`,
	"sub/sub.go":        "package sub\n\nfunc S() {}\n",
	"internal/in/in.go": "package in\n\nfunc In() {}\n",
	"examples/ex/ex.go": "package main\n\nfunc Ex() {}\n\nfunc main() {}\n",
	"hack/tool/tool.go": "package main\n\nfunc Tool() {}\n\nfunc main() {}\n",
	"CHANGELOG.md":      "# Changelog\n\n## Unreleased\n",
}

func TestAPICheck(t *testing.T) {
	script, err := filepath.Abs(filepath.Join("..", "apicheck.sh"))
	require.NoError(t, err)
	record := t.TempDir()
	writeFiles(t, record, tiny)
	out, err := run(record, script, "-w")
	require.NoError(t, err, out)
	for _, f := range []string{"tiny.export", "tiny.txt", "sub.export", "sub.txt"} {
		require.FileExists(t, filepath.Join(record, "api", f))
	}
	entries, err := os.ReadDir(filepath.Join(record, "api"))
	require.NoError(t, err)
	require.Len(t, entries, 4, "internal/, examples/ and hack/ are not recorded")
	listing, err := os.ReadFile(filepath.Join(record, "api", "tiny.txt"))
	require.NoError(t, err)
	require.Contains(t, string(listing), "func Gone() int")
	require.Contains(t, string(listing), "func (T) M()")

	const gone = "package tiny\n\nfunc Keep() {}\n\ntype T struct{}\n\nfunc (T) M() {}\n"
	for _, tc := range []struct {
		name      string
		files     map[string]string // written over the recorded module; "" removes the file
		rewrite   bool              // run -w after writing files, before the check
		changelog string            // CHANGELOG.md's text after "# Changelog"
		ok        bool
		want      []string // in the output
	}{
		{name: "unchanged", ok: true, want: []string{"as recorded"}},
		{
			name: "removed, not listed", files: map[string]string{"tiny.go": gone},
			changelog: "## Unreleased\n\n### tiny\n- Changed `Keep`.\n",
			want:      []string{"NOT listed", "'### tiny' as `Gone`", "Gone: removed", "FAIL"},
		},
		{
			name: "removed, listed", files: map[string]string{"tiny.go": gone},
			changelog: "## Unreleased\n\n### tiny\n#### Removed\n- `Gone`: nobody called it.\n",
			ok:        true, want: []string{"listed in CHANGELOG.md: Gone: removed", "out of date"},
		},
		{
			name: "removed, listed qualified and called", files: map[string]string{"tiny.go": gone},
			changelog: "## v0.2.0 — unreleased\n\n### tiny\n- Removed `tiny.Gone()`.\n",
			ok:        true, want: []string{"listed in CHANGELOG.md: Gone: removed"},
		},
		{
			name: "removed, listed in a released section only", files: map[string]string{"tiny.go": gone},
			changelog: "## Unreleased\n\n### sub\n- nothing\n\n## v0.1.0 — 2026-11-01\n\n### tiny\n- Removed `Gone`.\n",
			want:      []string{"NOT listed", "Gone: removed"},
		},
		{
			name: "removed, listed under another package", files: map[string]string{"tiny.go": gone},
			changelog: "## Unreleased\n\n### sub\n- Removed `Gone`.\n",
			want:      []string{"NOT listed", "Gone: removed"},
		},
		{
			name: "removed, named without backquotes", files: map[string]string{"tiny.go": gone},
			changelog: "## Unreleased\n\n### tiny\n- Removed Gone.\n",
			want:      []string{"NOT listed"},
		},
		{
			name: "removed, another name that ends with it listed", files: map[string]string{"tiny.go": gone},
			changelog: "## Unreleased\n\n### tiny\n- Removed `AllGone`.\n",
			want:      []string{"NOT listed"},
		},
		{
			name: "no unreleased section", files: map[string]string{"tiny.go": gone},
			changelog: "## v0.1.0 — 2026-11-01\n\n### tiny\n- Added `Gone`.\n",
			want:      []string{"NOT listed"},
		},
		{
			name:      "signature changed, listed",
			files:     map[string]string{"tiny.go": strings.Replace(tiny["tiny.go"], "Gone() int", "Gone(n int) int", 1)},
			changelog: "## Unreleased\n\n### tiny\n- Changed: `Gone(n)` takes n.\n",
			ok:        true, want: []string{"Gone: changed from func() int to func(int) int"},
		},
		{
			name:  "method removed, not listed",
			files: map[string]string{"tiny.go": strings.Replace(tiny["tiny.go"], "func (T) M() {}\n", "", 1)},
			want:  []string{"NOT listed", "as `T.M`", "T.M: removed"},
		},
		{
			name:      "method removed, listed",
			files:     map[string]string{"tiny.go": strings.Replace(tiny["tiny.go"], "func (T) M() {}\n", "", 1)},
			changelog: "## Unreleased\n\n### tiny\n- Removed `T.M`.\n",
			ok:        true, want: []string{"listed in CHANGELOG.md: T.M: removed"},
		},
		{
			name:  "added",
			files: map[string]string{"sub/sub.go": "package sub\n\nfunc S() {}\n\nfunc S2() {}\n"},
			ok:    true, want: []string{"example.com/tiny/sub: compatible changes:", "S2: added", "make api-record"},
		},
		{
			name: "internal, examples and hack changed",
			files: map[string]string{
				"internal/in/in.go": "package in\n",
				"examples/ex/ex.go": "package main\n\nfunc main() {}\n",
				"hack/tool/tool.go": "package main\n\nfunc main() {}\n",
			},
			ok: true, want: []string{"as recorded"},
		},
		{
			name: "package removed, not listed", files: map[string]string{"sub/sub.go": ""},
			changelog: "## Unreleased\n\n### sub\n- Changed `S`.\n",
			want:      []string{"example.com/tiny/sub: package removed, NOT listed"},
		},
		{
			name: "package removed, listed", files: map[string]string{"sub/sub.go": ""},
			changelog: "## Unreleased\n\n### sub\n- Removed the package.\n",
			ok:        true, want: []string{"example.com/tiny/sub: package removed, listed"},
		},
		{
			name: "package added", files: map[string]string{"sub2/sub2.go": "package sub2\n\nfunc S() {}\n"},
			ok: true, want: []string{"example.com/tiny/sub2 has no record", "make api-record"},
		},
		{
			name: "removed, then recorded", files: map[string]string{"tiny.go": gone}, rewrite: true,
			ok: true, want: []string{"as recorded"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.CopyFS(dir, os.DirFS(record)))
			files := map[string]string{"CHANGELOG.md": "# Changelog\n\n" + tc.changelog}
			for name, text := range tc.files {
				files[name] = text
			}
			writeFiles(t, dir, files)
			if tc.rewrite {
				out, err := run(dir, script, "-w")
				require.NoError(t, err, out)
			}
			out, err := run(dir, script)
			if tc.ok {
				require.NoError(t, err, out)
			} else {
				require.Error(t, err, out)
				var exit *exec.ExitError
				require.ErrorAs(t, err, &exit, out)
				require.Equal(t, 1, exit.ExitCode(), out)
			}
			for _, w := range tc.want {
				require.Contains(t, out, w)
			}
		})
	}
}

// writeFiles writes files into dir, each named by its slash-separated path; an empty text
// removes the file.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if text == "" {
			require.NoError(t, os.Remove(path))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
}

// run runs the script with args in dir and returns its output, stdout and stderr together.
func run(dir, script string, args ...string) (string, error) {
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}
