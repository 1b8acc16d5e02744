package archive_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/backupkit/backupkit/archive"
)

// good is a valid prefix put before each hostile entry, so that a refusal happens after
// something was extracted and the cleanup is exercised.
func good() []ent {
	return []ent{
		file("metadata/version", "1.1.0"),
		dir("resources/"),
		file("resources/pods/cluster/a.json", `{"kind":"Pod"}`),
	}
}

func withGood(hostile ...ent) []ent { return append(good(), hostile...) }

// hostileCase is one malicious or broken archive. Like os.Root's rootTestCases, one table
// is shared by every operation that reads an archive (Scan, Extract).
type hostileCase struct {
	name  string
	build func(t testing.TB, destBase string) []byte // destBase: the destination's base name
	opts  []archive.Option
	want  error  // the sentinel the error must wrap
	entry string // the entry name the *Error must carry; "" to skip (the stream is at fault)
}

func entries(ents ...ent) func(testing.TB, string) []byte {
	return func(t testing.TB, _ string) []byte { return tgz(t, ents...) }
}

var hostileCases = []hostileCase{
	{name: "symlink", build: entries(withGood(ent{name: "resources/evil", typeflag: tar.TypeSymlink, link: "/etc"})...), want: archive.ErrInsecurePath, entry: "resources/evil"},
	{name: "symlink-relative-out", build: entries(withGood(ent{name: "up", typeflag: tar.TypeSymlink, link: "../.."})...), want: archive.ErrInsecurePath, entry: "up"},
	{name: "hardlink", build: entries(withGood(ent{name: "resources/h", typeflag: tar.TypeLink, link: "/etc/passwd"})...), want: archive.ErrInsecurePath, entry: "resources/h"},
	{name: "char-device", build: entries(withGood(ent{name: "null", typeflag: tar.TypeChar})...), want: archive.ErrInsecurePath, entry: "null"},
	{name: "block-device", build: entries(withGood(ent{name: "sda", typeflag: tar.TypeBlock})...), want: archive.ErrInsecurePath, entry: "sda"},
	{name: "fifo", build: entries(withGood(ent{name: "pipe", typeflag: tar.TypeFifo})...), want: archive.ErrInsecurePath, entry: "pipe"},
	{name: "absolute", build: entries(withGood(file("/tmp/evil.json", "x"))...), want: archive.ErrInsecurePath, entry: "/tmp/evil.json"},
	{name: "dotdot", build: entries(withGood(file("../escape.txt", "x"))...), want: archive.ErrInsecurePath, entry: "../escape.txt"},
	{name: "dotdot-inner", build: entries(withGood(file("resources/../../escape.txt", "x"))...), want: archive.ErrInsecurePath, entry: "resources/../../escape.txt"},
	{name: "dotdot-after-dot-slash", build: entries(withGood(file("./../escape.txt", "x"))...), want: archive.ErrInsecurePath, entry: "./../escape.txt"},
	{name: "dotdot-dir", build: entries(withGood(dir("../up/"))...), want: archive.ErrInsecurePath, entry: "../up/"},
	{name: "sibling-prefix-escape", build: func(t testing.TB, base string) []byte {
		return tgz(t, withGood(file("../"+base+"X/f", "x"))...)
	}, want: archive.ErrInsecurePath},
	{name: "nul-in-pax-path", build: func(t testing.TB, _ string) []byte {
		raw := rawTar(t, withGood(file("aXb/"+strings.Repeat("c", 120), "x"))...) // long: stored in a PAX path record
		raw = bytes.Replace(raw, []byte("path=aXb"), []byte("path=a\x00b"), 1)
		return gz(t, raw)
	}, want: archive.ErrFormat}, // archive/tar itself refuses a NUL in a PAX path
	{name: "backslash", build: entries(withGood(file(`..\escape.txt`, "x"))...), want: archive.ErrInsecurePath, entry: `..\escape.txt`},
	{name: "invalid-utf8", build: entries(withGood(file("resources/\xbe.json", "x"))...), want: archive.ErrInsecurePath, entry: "resources/\xbe.json"},
	{name: "empty-component", build: entries(withGood(file("resources//x.json", "x"))...), want: archive.ErrInsecurePath, entry: "resources//x.json"},
	{name: "dot-component", build: entries(withGood(file("resources/./x.json", "x"))...), want: archive.ErrInsecurePath, entry: "resources/./x.json"},
	{name: "duplicate-file", build: entries(withGood(file("resources/pods/cluster/a.json", "again"))...), want: archive.ErrInsecurePath, entry: "resources/pods/cluster/a.json"},
	{name: "duplicate-after-dot-slash", build: entries(withGood(file("./resources/pods/cluster/a.json", "again"))...), want: archive.ErrInsecurePath, entry: "./resources/pods/cluster/a.json"},
	{name: "dir-over-file", build: entries(withGood(dir("resources/pods/cluster/a.json/"))...), want: archive.ErrInsecurePath, entry: "resources/pods/cluster/a.json/"},
	{name: "file-over-dir", build: entries(withGood(file("resources/pods", "x"))...), want: archive.ErrInsecurePath, entry: "resources/pods"},
	{name: "file-under-file", build: entries(withGood(file("metadata/version/x", "x"))...), want: archive.ErrInsecurePath, entry: "metadata/version/x"},
	{name: "file-named-root", build: entries(withGood(file(".", "x"))...), want: archive.ErrInsecurePath, entry: "."},
	{name: "unsupported-type", build: entries(withGood(ent{name: "vol", typeflag: 'V'})...), want: archive.ErrFormat, entry: "vol"},
	{name: "name-too-long", build: entries(withGood(file("resources/"+strings.Repeat("n", 60), "x"))...),
		opts: []archive.Option{archive.WithLimits(archive.Limits{MaxPathLen: 64})}, want: archive.ErrLimitExceeded, entry: "resources/" + strings.Repeat("n", 60)},
	{name: "too-many-entries", build: entries(withGood(file("b", "x"))...),
		opts: []archive.Option{archive.WithLimits(archive.Limits{MaxEntries: 3})}, want: archive.ErrLimitExceeded, entry: "b"},
	{name: "entry-too-big", build: entries(withGood(file("big", strings.Repeat("x", 101)))...),
		opts: []archive.Option{archive.WithLimits(archive.Limits{MaxEntryBytes: 100})}, want: archive.ErrLimitExceeded, entry: "big"},
	{name: "total-too-big", build: entries(withGood(file("b1", strings.Repeat("x", 60)), file("b2", strings.Repeat("x", 60)))...),
		opts: []archive.Option{archive.WithLimits(archive.Limits{MaxTotalBytes: 100})}, want: archive.ErrLimitExceeded, entry: "b2"},
	{name: "bomb-after-tar-end", build: func(t testing.TB, _ string) []byte {
		return gz(t, append(rawTar(t, good()...), make([]byte, 1<<20)...))
	}, opts: []archive.Option{archive.WithLimits(archive.Limits{MaxTotalBytes: 64 << 10})}, want: archive.ErrLimitExceeded},
	{name: "not-gzip", build: func(t testing.TB, _ string) []byte { return rawTar(t, good()...) }, want: archive.ErrFormat},
	{name: "empty-input", build: func(testing.TB, string) []byte { return nil }, want: archive.ErrFormat},
	{name: "not-tar", build: func(t testing.TB, _ string) []byte {
		return gz(t, bytes.Repeat([]byte("this is not a tar header "), 100))
	}, want: archive.ErrFormat},
	{name: "truncated", build: func(t testing.TB, _ string) []byte {
		b := tgz(t, withGood(file("resources/pods/cluster/b.json", strings.Repeat("payload", 2000)))...)
		return b[:len(b)*2/3]
	}, want: archive.ErrFormat},
	{name: "truncated-tar-in-valid-gzip", build: func(t testing.TB, _ string) []byte {
		raw := rawTar(t, withGood(file("resources/pods/cluster/b.json", strings.Repeat("payload", 2000)))...)
		return gz(t, raw[:2048+700])
	}, want: archive.ErrFormat},
	{name: "corrupt-gzip-trailer", build: func(t testing.TB, _ string) []byte {
		b := tgz(t, good()...)
		b[len(b)-8] ^= 0xff // CRC-32 of the uncompressed data
		return b
	}, want: archive.ErrFormat},
	{name: "wrong-gzip-size", build: func(t testing.TB, _ string) []byte {
		b := tgz(t, good()...)
		b[len(b)-1] ^= 0x01 // ISIZE
		return b
	}, want: archive.ErrFormat},
	{name: "garbage-after-gzip", build: func(t testing.TB, _ string) []byte {
		return append(tgz(t, good()...), "trailing garbage"...)
	}, want: archive.ErrFormat},
}

func TestHostileScan(t *testing.T) {
	for _, tc := range hostileCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := archive.Scan(context.Background(), bytes.NewReader(tc.build(t, "dest")), tc.opts...)
			checkRefusal(t, tc, err, "scan")
		})
	}
}

func TestHostileExtract(t *testing.T) {
	for _, tc := range hostileCases {
		t.Run(tc.name, func(t *testing.T) {
			parent, dest := emptyDest(t)
			before := snapshot(t, parent)
			data := tc.build(t, filepath.Base(dest))
			err := archive.Extract(context.Background(), bytes.NewReader(data), dest, tc.opts...)
			checkRefusal(t, tc, err, "extract")
			require.Equal(t, before, snapshot(t, parent), "the parent directory changed")
			requireEmptyDir(t, dest)
		})
	}
}

func checkRefusal(t *testing.T, tc hostileCase, err error, op string) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, tc.want)
	for _, other := range []error{archive.ErrInsecurePath, archive.ErrLimitExceeded, archive.ErrFormat} {
		if other != tc.want {
			require.False(t, errors.Is(err, other), "error %q also matches %v", err, other)
		}
	}
	var ae *archive.Error
	require.ErrorAs(t, err, &ae)
	require.Equal(t, op, ae.Op)
	if tc.entry != "" {
		require.Equal(t, tc.entry, ae.Entry)
	}
}

// TestErrorMessage pins the message format: operation, quoted entry as stored, reason.
func TestErrorMessage(t *testing.T) {
	_, dest := emptyDest(t)
	err := archive.Extract(context.Background(), bytes.NewReader(tgz(t, file("../escape.txt", "x"))), dest)
	require.EqualError(t, err, `archive: extract "../escape.txt": insecure path: ".." component`)
	err = archive.Extract(context.Background(), strings.NewReader("this is plainly not gzip"), dest)
	require.EqualError(t, err, `archive: extract: bad format: not gzip: gzip: invalid header`)
}
