package archive_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/archive"
)

// acceptedCases are shapes real tools produce; each must extract to exactly want (slash
// path to contents) and scan to the same item paths.
var acceptedCases = []struct {
	name      string
	data      func(t testing.TB) []byte
	want      map[string]string
	items     []string // the item paths, when not every file under resources/ is one
	notBackup bool     // Extract takes it; Scan and Open refuse it with ErrNotBackup
}{
	{
		name: "dot-slash-names-and-dir-entries", // tar -C dir -czf b.tgz .
		data: func(t testing.TB) []byte {
			return tgz(t, dir("./"), dir("./metadata/"), file("./metadata/version", "1.1.0\n"),
				dir("./resources/"), dir("./resources/pods/"), dir("./resources/pods/namespaces/"),
				dir("./resources/pods/namespaces/ns/"), file("./resources/pods/namespaces/ns/p.json", "{}"))
		},
		want: map[string]string{"metadata/version": "1.1.0\n", "resources/pods/namespaces/ns/p.json": "{}"},
	},
	{
		name: "pax-global-header",
		data: func(t testing.TB) []byte {
			return tgz(t, ent{name: "pax_global_header", typeflag: tar.TypeXGlobalHeader, pax: map[string]string{"comment": "made by git archive"}},
				file("resources/pods/cluster/p.json", "{}"))
		},
		want: map[string]string{"resources/pods/cluster/p.json": "{}"},
	},
	{
		name: "repeated-dir-entries",
		data: func(t testing.TB) []byte {
			return tgz(t, dir("resources/"), dir("resources/"), file("resources/pods/cluster/p.json", "{}"), dir("resources/pods/"))
		},
		want: map[string]string{"resources/pods/cluster/p.json": "{}"},
	},
	{
		name: "long-names-gnu-and-pax",
		data: func(t testing.TB) []byte {
			var buf bytes.Buffer
			tw := tar.NewWriter(&buf)
			for _, f := range []tar.Format{tar.FormatGNU, tar.FormatPAX} {
				name := "resources/" + strings.Repeat("r", 150) + "/cluster/" + f.String() + ".json"
				require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Size: 2, Mode: 0o644, Format: f}))
				_, err := tw.Write([]byte("{}"))
				require.NoError(t, err)
			}
			require.NoError(t, tw.Close())
			return gz(t, buf.Bytes())
		},
		want: map[string]string{
			"resources/" + strings.Repeat("r", 150) + "/cluster/GNU.json": "{}",
			"resources/" + strings.Repeat("r", 150) + "/cluster/PAX.json": "{}",
		},
	},
	{
		name: "concatenated-gzip-members",
		data: func(t testing.TB) []byte {
			raw := rawTar(t, file("resources/pods/cluster/p.json", "{}"))
			return append(gz(t, raw[:512]), gz(t, raw[512:])...)
		},
		want: map[string]string{"resources/pods/cluster/p.json": "{}"},
	},
	{
		name: "version-dirs-without-items",
		data: func(t testing.TB) []byte {
			return tgz(t, dir("./resources/widgets.example.com/v1-preferredversion/"), dir("resources/widgets.example.com/v2/namespaces/"),
				dir("resources/gadgets.example.com/"), file("resources/widgets.example.com/v1-preferredversion/cluster/w.json", "{}"))
		},
		want: map[string]string{"resources/widgets.example.com/v1-preferredversion/cluster/w.json": "{}"},
	},
	{
		name: "mixed-entries", // Velero's parser case: files and directories side by side
		data: func(t testing.TB) []byte {
			return tgz(t, file("velero-backup.json", "{}"), dir("resources/"), file("resources/stray.txt", "x"),
				dir("resources/pods/"), file("resources/pods/README", "x"),
				file("resources/pods/v1-preferredversion/namespaces/ns/p.json", "{}"),
				file("resources/pods/namespaces/ns/p.json", "{}"), file("resources/pods/namespaces/ns/notes.txt", "x"))
		},
		want: map[string]string{
			"velero-backup.json": "{}", "resources/stray.txt": "x", "resources/pods/README": "x",
			"resources/pods/v1-preferredversion/namespaces/ns/p.json": "{}",
			"resources/pods/namespaces/ns/p.json":                     "{}", "resources/pods/namespaces/ns/notes.txt": "x",
		},
		items: []string{"resources/pods/v1-preferredversion/namespaces/ns/p.json", "resources/pods/namespaces/ns/p.json"},
	},
	{
		// Velero restores it as "zero items", but every backup Velero writes holds
		// metadata/version, even an empty one.
		name:      "empty-tarball",
		data:      func(t testing.TB) []byte { return tgz(t) },
		want:      map[string]string{},
		notBackup: true,
	},
	{
		name:      "empty-gzip-stream",
		data:      func(t testing.TB) []byte { return gz(t, nil) },
		want:      map[string]string{},
		notBackup: true,
	},
	{
		name: "unrelated-files",
		data: func(t testing.TB) []byte {
			return tgz(t, file("velero-backup.json", "{}"), file("metadata/other", "x"), dir("resourcesx/"))
		},
		want:      map[string]string{"velero-backup.json": "{}", "metadata/other": "x"},
		notBackup: true,
	},
	{
		name:      "resources-a-file",
		data:      func(t testing.TB) []byte { return tgz(t, file("resources", "x")) },
		want:      map[string]string{"resources": "x"},
		notBackup: true,
	},
	{
		name: "metadata-version-a-directory",
		data: func(t testing.TB) []byte {
			return tgz(t, dir("metadata/version/"), file("metadata/version/x", "1.1.0"))
		},
		want:      map[string]string{"metadata/version/x": "1.1.0"},
		notBackup: true,
	},
	{
		name: "empty-backup", // what Writer and Velero write for a backup of nothing
		data: func(t testing.TB) []byte { return tgz(t, file("metadata/version", "1.1.0\n")) },
		want: map[string]string{"metadata/version": "1.1.0\n"},
	},
	{
		name: "empty-resources-directory", // a directory resources/ alone: an empty legacy backup
		data: func(t testing.TB) []byte { return tgz(t, dir("resources/")) },
		want: map[string]string{},
	},
}

func TestAcceptedShapes(t *testing.T) {
	for _, tc := range acceptedCases {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data(t)
			_, dest := emptyDest(t)
			require.NoError(t, archive.Extract(context.Background(), bytes.NewReader(data), dest))
			got := map[string]string{}
			err := filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
				require.NoError(t, err)
				info, err := d.Info()
				require.NoError(t, err)
				if p == dest {
					return nil
				}
				if d.IsDir() {
					require.Equal(t, os.FileMode(0o700), info.Mode().Perm(), p)
					return nil
				}
				require.True(t, info.Mode().IsRegular(), p)
				require.Equal(t, os.FileMode(0o600), info.Mode().Perm(), p)
				b, err := os.ReadFile(p)
				require.NoError(t, err)
				rel, _ := filepath.Rel(dest, p)
				got[filepath.ToSlash(rel)] = string(b)
				return nil
			})
			require.NoError(t, err)
			require.Equal(t, tc.want, got)

			idx, err := archive.Scan(context.Background(), bytes.NewReader(data))
			if tc.notBackup {
				require.ErrorIs(t, err, archive.ErrNotBackup)
				require.EqualError(t, err, "archive: scan: not a backup: no metadata/version file and no resources/ directory")
				require.Nil(t, idx)
				_, err = archive.Open(os.DirFS(dest))
				require.ErrorIs(t, err, archive.ErrNotBackup)
				require.EqualError(t, err, "archive: open: not a backup: no metadata/version file and no resources/ directory")
				return
			}
			require.NoError(t, err)
			var paths []string
			for _, it := range idx.Items {
				paths = append(paths, it.Path)
			}
			want := tc.items
			if want == nil {
				for p := range tc.want {
					if strings.HasPrefix(p, "resources/") {
						want = append(want, p)
					}
				}
			}
			require.ElementsMatch(t, want, paths)

			opened, err := archive.Open(os.DirFS(dest))
			require.NoError(t, err)
			require.Equal(t, opened.GroupVersions(), idx.GroupVersions, "Scan and Open disagree")
			require.Equal(t, opened.FormatVersion(), idx.FormatVersion)
		})
	}
}

// TestSizeCap: Velero's size cap, at the boundary: exactly the limit passes, one more fails.
func TestSizeCap(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int
		want error
	}{
		{"at-limit", 1000, nil},
		{"one-over", 1001, archive.ErrLimitExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, dest := emptyDest(t)
			data := tgz(t, file("resources/pods/cluster/p.json", strings.Repeat("x", tc.size)))
			err := archive.Extract(context.Background(), bytes.NewReader(data), dest,
				archive.WithLimits(archive.Limits{MaxEntryBytes: 1000, MaxTotalBytes: 1000 + 1024*2}))
			if tc.want == nil {
				require.NoError(t, err)
				b, err := os.ReadFile(filepath.Join(dest, "resources/pods/cluster/p.json"))
				require.NoError(t, err)
				require.Len(t, b, tc.size)
				return
			}
			require.ErrorIs(t, err, tc.want)
			requireEmptyDir(t, dest)
		})
	}
}

// TestEscapeTxt is Velero's traversal case, checked on disk: nothing outside, nothing inside.
func TestEscapeTxt(t *testing.T) {
	parent, dest := emptyDest(t)
	data := tgz(t, file("ok.txt", "fine"), file("../escape.txt", "escaped"))
	err := archive.Extract(context.Background(), bytes.NewReader(data), dest)
	require.ErrorIs(t, err, archive.ErrInsecurePath)
	_, statErr := os.Stat(filepath.Join(parent, "escape.txt"))
	require.ErrorIs(t, statErr, fs.ErrNotExist)
	requireEmptyDir(t, dest)
}

func TestExtractDestination(t *testing.T) {
	data := tgz(t, file("a", "x"))
	t.Run("not-empty", func(t *testing.T) {
		dest := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dest, "keep"), []byte("mine"), 0o600))
		err := archive.Extract(context.Background(), bytes.NewReader(data), dest)
		require.ErrorContains(t, err, "not empty")
		b, err := os.ReadFile(filepath.Join(dest, "keep"))
		require.NoError(t, err)
		require.Equal(t, "mine", string(b))
	})
	t.Run("missing", func(t *testing.T) {
		err := archive.Extract(context.Background(), bytes.NewReader(data), filepath.Join(t.TempDir(), "nope"))
		require.ErrorIs(t, err, fs.ErrNotExist)
	})
	t.Run("negative-limit", func(t *testing.T) {
		_, dest := emptyDest(t)
		r := &countingReader{r: bytes.NewReader(data)}
		err := archive.Extract(context.Background(), r, dest, archive.WithLimits(archive.Limits{MaxEntries: -1}))
		require.ErrorContains(t, err, "negative limit")
		require.Zero(t, r.n, "read before the limits were checked")
		_, err = archive.Scan(context.Background(), r, archive.WithLimits(archive.Limits{MaxPathLen: -1}))
		require.ErrorContains(t, err, "negative limit")
		require.Zero(t, r.n)
	})
}

type countingReader struct {
	r      io.Reader
	n      int
	after  int
	cancel func()
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.cancel != nil && c.n >= c.after {
		c.cancel()
	}
	if len(p) > 1024 {
		p = p[:1024]
	}
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestCancellation(t *testing.T) {
	var ents []ent
	for i := range 200 {
		ents = append(ents, file("resources/pods/cluster/p"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+strings.Repeat("0", i/26)+".json", strings.Repeat("payload ", 200)))
	}
	data := tgz(t, ents...)

	t.Run("extract-before-start", func(t *testing.T) {
		_, dest := emptyDest(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := archive.Extract(ctx, bytes.NewReader(data), dest)
		require.ErrorIs(t, err, context.Canceled)
		requireEmptyDir(t, dest)
	})
	t.Run("extract-midway", func(t *testing.T) {
		parent, dest := emptyDest(t)
		before := snapshot(t, parent)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		r := &countingReader{r: bytes.NewReader(data), after: len(data) / 2, cancel: cancel}
		err := archive.Extract(ctx, r, dest)
		require.ErrorIs(t, err, context.Canceled)
		require.Less(t, r.n, len(data), "read to the end despite cancellation")
		requireEmptyDir(t, dest)
		require.Equal(t, before, snapshot(t, parent))
	})
	t.Run("scan-from-visit", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		visited := 0
		_, err := archive.Scan(ctx, bytes.NewReader(data), archive.WithVisitor(func(*archive.Item) error {
			visited++
			cancel()
			return nil
		}))
		require.ErrorIs(t, err, context.Canceled)
		require.Equal(t, 1, visited)
	})
	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 0)
		defer cancel()
		_, err := archive.Scan(ctx, bytes.NewReader(data))
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})
}

// TestDefaultLimits: a zero Limits field means DefaultLimits' value, checked at its edge.
func TestDefaultLimits(t *testing.T) {
	longName := func(n int) string {
		name := "resources/"
		for len(name) < n-len("/x.json") {
			name += strings.Repeat("d", min(200, n-len("/x.json")-len(name)-1)) + "/"
		}
		name = strings.TrimSuffix(name, "/")
		name += strings.Repeat("e", n-len(name)-len("/x.json")) + "/x.json"
		require.Len(t, name, n)
		return name
	}
	for _, tc := range []struct {
		name string
		ent  ent
		opts []archive.Option
		want error
	}{
		{"path-at-default", file(longName(archive.DefaultLimits.MaxPathLen), "x"), nil, nil},
		{"path-over-default", file(longName(archive.DefaultLimits.MaxPathLen+1), "x"), nil, archive.ErrLimitExceeded},
		{"path-over-default-other-field-set", file(longName(archive.DefaultLimits.MaxPathLen+1), "x"),
			[]archive.Option{archive.WithLimits(archive.Limits{MaxEntries: 10})}, archive.ErrLimitExceeded},
		{"entry-size-default-with-other-field-set", file("resources/big", strings.Repeat("x", 1<<20)),
			[]archive.Option{archive.WithLimits(archive.Limits{MaxEntries: 10})}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := archive.Scan(context.Background(), bytes.NewReader(tgz(t, tc.ent)), tc.opts...)
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.want)
		})
	}
}

type failingReader struct {
	r     io.Reader
	after int
	err   error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.after <= 0 {
		return 0, f.err
	}
	if len(p) > f.after {
		p = p[:f.after]
	}
	n, err := f.r.Read(p)
	f.after -= n
	return n, err
}

// TestSourceError: an error from the caller's reader comes back as itself, not as ErrFormat.
func TestSourceError(t *testing.T) {
	boom := errors.New("connection reset")
	data := tgz(t, withGood(file("resources/pods/cluster/b.json", strings.Repeat("payload", 5000)))...)
	for _, after := range []int{0, 5, len(data) / 2} {
		t.Run(fmt.Sprint("after-", after), func(t *testing.T) {
			_, dest := emptyDest(t)
			err := archive.Extract(context.Background(), &failingReader{bytes.NewReader(data), after, boom}, dest)
			require.ErrorIs(t, err, boom)
			require.NotErrorIs(t, err, archive.ErrFormat)
			requireEmptyDir(t, dest)
			_, err = archive.Scan(context.Background(), &failingReader{bytes.NewReader(data), after, boom})
			require.ErrorIs(t, err, boom)
			require.NotErrorIs(t, err, archive.ErrFormat)
		})
	}
}

// TestStopsAtOnce: a limit is enforced at the entry's header, before its bytes are used, so
// a refused archive is not written past the offending entry, and not read further than the
// walk's bounded read-ahead (archive.ReadAheadBytes of decompressed data).
func TestStopsAtOnce(t *testing.T) {
	noise := make([]byte, archive.ReadAheadBytes+4<<20) // incompressible, so compressed bytes track entry bytes
	for i := range noise {
		noise[i] = byte(i*7919 ^ i>>3 ^ i>>11)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] ^= byte(rnd.Uint32())
	}
	data := tgz(t, file("resources/pods/cluster/a.json", "{}"), file("resources/pods/cluster/big.json", string(noise)))
	for _, tc := range []struct {
		name string
		lim  archive.Limits
	}{
		{"entry-bytes", archive.Limits{MaxEntryBytes: 1 << 20}},
		{"total-bytes", archive.Limits{MaxTotalBytes: 1 << 20}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, dest := emptyDest(t)
			r := &countingReader{r: bytes.NewReader(data)}
			err := archive.Extract(context.Background(), r, dest, archive.WithLimits(tc.lim))
			require.ErrorIs(t, err, archive.ErrLimitExceeded)
			require.Less(t, r.n, archive.ReadAheadBytes+256<<10, "read %d of %d compressed bytes", r.n, len(data))
			requireEmptyDir(t, dest)
		})
	}
}
