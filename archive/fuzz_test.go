package archive_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/internal/archiveopt"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/fuzz/FuzzScan seeds from Writer output")

// fuzzLimits keep each fuzz input cheap.
var fuzzLimits = archive.WithLimits(archive.Limits{MaxEntries: 64, MaxEntryBytes: 1 << 16, MaxTotalBytes: 1 << 20, MaxPathLen: 512})

// seedBackups are small backups written by our own Writer: the shapes the fuzzer mutates.
func seedBackups(t testing.TB) map[string][]byte {
	return map[string][]byte{
		"writer-empty": writeBackup(t, nil),
		"writer-core-namespaced": writeBackup(t, map[string]string{"pods": "v1"},
			[5]string{"pods", "v1", "ns", "p", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns","uid":"u1"}}`}),
		"writer-crd-three-versions": writeBackup(t, map[string]string{"widgets.example.com": "v2"},
			[5]string{"widgets.example.com", "v2", "", "w", `{"apiVersion":"example.com/v2","kind":"Widget","metadata":{"name":"w","uid":"u2"}}`},
			[5]string{"widgets.example.com", "v1", "", "w", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","uid":"u2"}}`},
			[5]string{"widgets.example.com", "v1beta1", "", "w", `{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"w","uid":"u2"}}`}),
	}
}

// TestWriteFuzzSeeds regenerates the checked-in seeds with -update-seeds, and otherwise
// checks that they are still what Writer produces.
func TestWriteFuzzSeeds(t *testing.T) {
	checkFuzzSeeds(t, "FuzzScan", "TestWriteFuzzSeeds", seedBackups(t))
}

// checkFuzzSeeds writes seeds as the fuzz target's checked-in corpus with -update-seeds, and
// otherwise requires the corpus to hold exactly them; test names the test that updates it.
func checkFuzzSeeds(t *testing.T, target, test string, seeds map[string][]byte) {
	t.Helper()
	for name, data := range seeds {
		p := filepath.Join("testdata", "fuzz", target, name)
		content := "go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n"
		if *updateSeeds {
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
			continue
		}
		got, err := os.ReadFile(p)
		require.NoError(t, err, "run go test -run %s -update-seeds", test)
		require.Equal(t, content, string(got), "seed %s is stale: Writer output changed", name)
	}
}

// FuzzScan: on any input, Scan and Extract never panic and agree: both accept, or both
// refuse with the same sentinel, or Scan says ErrNotBackup where Extract accepts and Open
// then says ErrNotBackup too. Extract writes nothing outside its directory, leaves it empty
// on error, and on success holds exactly the files Scan listed, with their sizes.
func FuzzScan(f *testing.F) {
	for _, data := range seedBackups(f) {
		f.Add(data)
	}
	for _, tc := range hostileCases {
		f.Add(tc.build(f, "dest"))
	}
	for _, tc := range acceptedCases { // not-a-backup shapes among them
		f.Add(tc.data(f))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, scanErr := archive.Scan(context.Background(), bytes.NewReader(data), fuzzLimits, archive.WithManifest())
		// Without the names kept, an archive the checks accept reads the same, and any
		// other refusal than an insecure path is the same refusal.
		unchecked, uncheckedErr := archive.Scan(context.Background(), bytes.NewReader(data), fuzzLimits, archive.WithManifest(), archiveopt.WithoutDuplicateCheck())
		switch {
		case scanErr == nil:
			require.NoError(t, uncheckedErr, "accepted with the names kept")
			require.Equal(t, idx.Items, unchecked.Items)
			require.Equal(t, idx.Problems, unchecked.Problems)
			require.Equal(t, idx.GroupVersions, unchecked.GroupVersions)
		case kind(scanErr) != "insecure":
			require.Equal(t, kind(scanErr), kind(uncheckedErr), "%v / %v", scanErr, uncheckedErr)
		}
		notBackup := errors.Is(scanErr, archive.ErrNotBackup)
		if notBackup {
			scanErr = nil // Extract does not ask
		}
		parent, dest := emptyDest(t)
		before := snapshot(t, parent)
		extractErr := archive.Extract(context.Background(), bytes.NewReader(data), dest, fuzzLimits)
		var pathErr *fs.PathError
		fsLimit := scanErr == nil && kind(extractErr) == "other" && errors.As(extractErr, &pathErr) // e.g. a name over NAME_MAX
		if !fsLimit && ((scanErr == nil) != (extractErr == nil) || kind(scanErr) != kind(extractErr)) {
			t.Fatalf("Scan and Extract disagree: %v / %v", scanErr, extractErr)
		}
		if extractErr != nil {
			if !fsLimit && kind(extractErr) == "other" {
				t.Fatalf("error without a sentinel: %v", extractErr)
			}
			requireEmptyDir(t, dest)
			require.Equal(t, before, snapshot(t, parent))
			return
		}
		opened, err := archive.Open(os.DirFS(dest))
		if notBackup {
			require.ErrorIs(t, err, archive.ErrNotBackup, "Scan says not a backup, Open does not")
		} else {
			require.NoError(t, err)
			require.Equal(t, opened.GroupVersions(), idx.GroupVersions, "Scan and Open disagree on group versions")
			require.Equal(t, opened.FormatVersion(), idx.FormatVersion)
			for _, ref := range idx.Items {
				info, err := os.Stat(filepath.Join(dest, filepath.FromSlash(ref.Path)))
				require.NoError(t, err, ref.Path)
				require.Equal(t, ref.Size, info.Size(), ref.Path)
			}
		}
		require.NoError(t, os.RemoveAll(dest))
		require.NoError(t, os.Mkdir(dest, 0o755))
		require.Equal(t, before, snapshot(t, parent), "something was written outside %s", dest)
	})
}

func kind(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, archive.ErrInsecurePath):
		return "insecure"
	case errors.Is(err, archive.ErrLimitExceeded):
		return "limit"
	case errors.Is(err, archive.ErrFormat):
		return "format"
	}
	return "other"
}
