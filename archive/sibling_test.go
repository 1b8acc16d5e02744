package archive_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/archive/archivetest"
	"github.com/backupkit/backupkit/manifest/manifesttest"
)

// withSibling writes a drawn backup again with its sibling.
func withSibling(t require.TestingT, b *archivetest.Backup) (data, sibling []byte) {
	var buf, sib bytes.Buffer
	w := archive.NewWriter(&buf)
	for r, v := range b.Preferred {
		require.NoError(t, w.SetPreferred(r, v))
	}
	for _, it := range b.Items {
		require.NoError(t, w.Add(it.Resource, it.Version, it.Namespace, it.Name, it.Data))
	}
	require.Error(t, w.WriteSibling(&sib), "before Close")
	require.NoError(t, w.Close())
	require.NoError(t, w.WriteSibling(&sib))
	return buf.Bytes(), sib.Bytes()
}

// TestSiblingRoundTrip: the sibling Writer writes reads back, verifies against its tarball,
// and gives the Index Scan gives (items aside), whose manifest and group versions say which files the backup holds.
func TestSiblingRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := archivetest.Backups(manifesttest.WithMaxObjects(20)).Draw(t, "backup")
		data, sib := withSibling(t, b)
		require.Equal(t, b.Data, data, "the sibling changes the tarball")
		s, err := archive.ReadSibling(context.Background(), bytes.NewReader(sib))
		require.NoError(t, err)
		_, err = s.Index()
		require.ErrorIs(t, err, archive.ErrSiblingMismatch, "Index before Verify")
		require.NoError(t, s.Verify(context.Background(), bytes.NewReader(data)))
		idx, err := s.Index()
		require.NoError(t, err)
		scanned, err := archive.Scan(context.Background(), bytes.NewReader(data), archive.WithStoredManifest())
		require.NoError(t, err)
		require.Equal(t, scanned.FormatVersion, idx.FormatVersion)
		require.Equal(t, b.GroupVersions, idx.GroupVersions)
		require.Equal(t, manifestJSON(t, scanned.Manifest), manifestJSON(t, idx.Manifest))
		require.Nil(t, idx.Items)
		require.Equal(t, fileSet(b.Files), itemFiles(t, idx))
		_, again := withSibling(t, b)
		require.Equal(t, sib, again, "the sibling is not deterministic")
	})
}

// byteCounter counts the bytes read through it.
type byteCounter struct {
	r io.Reader
	n int64
}

func (c *byteCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestSiblingRefused: a sibling that is not the tarball's, or not a sibling, is refused
// with the error that says which.
func TestSiblingRefused(t *testing.T) {
	write := func(n int) (data, sib []byte) {
		var buf, s bytes.Buffer
		w, err := archivetest.WriteConfigMaps(&buf, n, 200)
		require.NoError(t, err)
		require.NoError(t, w.WriteSibling(&s))
		return buf.Bytes(), s.Bytes()
	}
	data, sib := write(3)
	other, otherSib := write(4)
	flipped := bytes.Clone(data)
	flipped[len(flipped)/2] ^= 1
	for _, tc := range []struct {
		name           string
		sibling, tar   []byte
		readErr, verif error
		msg            string
	}{
		{"another-backups-sibling", otherSib, data, nil, archive.ErrSiblingMismatch, "size:"},
		{"another-backup", sib, other, nil, archive.ErrSiblingMismatch, "size:"},
		{"one-byte-changed", sib, flipped, nil, archive.ErrSiblingMismatch, "sha256:"},
		{"bytes-appended", sib, append(bytes.Clone(data), 0), nil, archive.ErrSiblingMismatch, "more than"},
		{"truncated-tarball", sib, data[:len(data)-1], nil, archive.ErrSiblingMismatch, "size:"},
		{"truncated-sibling", sib[:len(sib)-5], data, archive.ErrFormat, nil, ""},
		{"truncated-sibling-in-first-document", sib[:20], data, archive.ErrFormat, nil, ""},
		{"empty-sibling", nil, data, archive.ErrFormat, nil, "not gzip"},
		{"tarball-as-sibling", data, data, archive.ErrFormat, nil, ""},
		{"plain-sibling", plainSibling(t, sib), data, archive.ErrFormat, nil, "not gzip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := archive.ReadSibling(context.Background(), bytes.NewReader(tc.sibling))
			if tc.readErr != nil {
				require.ErrorIs(t, err, tc.readErr)
				require.Contains(t, err.Error(), tc.msg)
				var ae *archive.Error
				require.True(t, errors.As(err, &ae))
				require.Equal(t, "sibling", ae.Op)
				return
			}
			require.NoError(t, err)
			err = s.Verify(context.Background(), bytes.NewReader(tc.tar))
			require.ErrorIs(t, err, tc.verif)
			require.Contains(t, err.Error(), tc.msg)
			_, err = s.Index()
			require.ErrorIs(t, err, archive.ErrSiblingMismatch)

			// Bound to the same tarball's size and digest, known without reading it: the
			// same refusal.
			err = s.Bind(int64(len(tc.tar)), sha256.Sum256(tc.tar))
			require.ErrorIs(t, err, tc.verif)
			require.Contains(t, err.Error(), tc.msg)
			_, err = s.Index()
			require.ErrorIs(t, err, archive.ErrSiblingMismatch)
		})
	}
}

// TestSiblingBind: a sibling bound to its tarball's size and SHA-256 is verified as if
// Verify had read the tarball.
func TestSiblingBind(t *testing.T) {
	var buf, sb bytes.Buffer
	w, err := archivetest.WriteConfigMaps(&buf, 3, 200)
	require.NoError(t, err)
	require.NoError(t, w.WriteSibling(&sb))
	s, err := archive.ReadSibling(context.Background(), bytes.NewReader(sb.Bytes()))
	require.NoError(t, err)
	_, err = s.Index()
	require.ErrorIs(t, err, archive.ErrSiblingMismatch, "not before it is bound")
	require.NoError(t, s.Bind(int64(buf.Len()), sha256.Sum256(buf.Bytes())))
	idx, err := s.Index()
	require.NoError(t, err)
	require.Equal(t, w.Manifest().Len(), idx.Manifest.Len())
}

func plainSibling(t *testing.T, sib []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(sib))
	require.NoError(t, err)
	b, err := io.ReadAll(zr)
	require.NoError(t, err)
	return b
}

// TestSiblingHeaderRefused: a first document that is not a sibling's is ErrFormat, naming
// what is wrong.
func TestSiblingHeaderRefused(t *testing.T) {
	var buf, sb bytes.Buffer
	w, err := archivetest.WriteConfigMaps(&buf, 2, 200)
	require.NoError(t, err)
	require.NoError(t, w.WriteSibling(&sb))
	plain := string(plainSibling(t, sb.Bytes()))
	header, rest, _ := strings.Cut(plain, "\n")
	for _, tc := range []struct{ name, old, new, msg string }{
		{"kind", `"kind":"SiblingManifest"`, `"kind":"Other"`, "kind"},
		{"unknown-field", `"kind":"SiblingManifest"`, `"kind":"SiblingManifest","x":1`, "unknown field"},
		{"format", `"backupFormatVersion":"1.1.0"`, `"backupFormatVersion":"x"`, "backupFormatVersion"},
		{"size", `"size":`, `"size":-`, "tarball size"},
		{"digest", `"sha256":"`, `"sha256":"A`, "sha256"},
		{"preferred", `"preferred":"v1"`, `"preferred":"v2"`, "preferred version"},
		{"version-dir", `"versions":["v1"]`, `"versions":["v1","cluster"]`, "cannot be a version directory"},
		{"resource", `"configmaps"`, `".."`, "groupVersions"},
		{"two-values", `}`, `} {}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, header, tc.old)
			h := strings.Replace(header, tc.old, tc.new, 1)
			if tc.name == "two-values" {
				h = header + " {}"
			}
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			_, err := zw.Write([]byte(h + "\n" + rest))
			require.NoError(t, err)
			require.NoError(t, zw.Close())
			_, err = archive.ReadSibling(context.Background(), &z)
			require.ErrorIs(t, err, archive.ErrFormat)
			require.Contains(t, err.Error(), tc.msg)
		})
	}
	// The first document is held to Limits.MaxEntryBytes.
	_, err = archive.ReadSibling(context.Background(), bytes.NewReader(sb.Bytes()), archive.WithLimits(archive.Limits{MaxEntryBytes: int64(len(header)) - 1}))
	require.ErrorIs(t, err, archive.ErrLimitExceeded)
	_, err = archive.ReadSibling(context.Background(), bytes.NewReader(sb.Bytes()), archive.WithLimits(archive.Limits{MaxEntryBytes: int64(len(header))}))
	require.NoError(t, err)
}

// TestSiblingVerifyDoesNotInflate: Verify reads exactly the tarball's compressed bytes, and
// only hashes them: bytes that are no gzip stream at all verify if the sibling was written
// for them.
func TestSiblingVerifyDoesNotInflate(t *testing.T) {
	var buf, sb bytes.Buffer
	w, err := archivetest.WriteConfigMaps(&buf, 20_000, 1<<10)
	require.NoError(t, err)
	require.NoError(t, w.WriteSibling(&sb))
	s, err := archive.ReadSibling(context.Background(), bytes.NewReader(sb.Bytes()))
	require.NoError(t, err)
	cr := &byteCounter{r: bytes.NewReader(buf.Bytes())}
	require.NoError(t, s.Verify(context.Background(), cr))
	require.Equal(t, int64(buf.Len()), cr.n)
	require.Equal(t, int64(buf.Len()), s.TarballSize)

	garbage := bytes.Repeat([]byte("not gzip "), 1000)
	s.TarballSize, s.TarballSHA256 = int64(len(garbage)), sha256.Sum256(garbage)
	cr = &byteCounter{r: bytes.NewReader(garbage)}
	require.NoError(t, s.Verify(context.Background(), cr))
	require.Equal(t, int64(len(garbage)), cr.n)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, s.Verify(ctx, bytes.NewReader(garbage)), context.Canceled)
	_, err = archive.ReadSibling(ctx, bytes.NewReader(sb.Bytes()))
	require.ErrorIs(t, err, context.Canceled)
}

func TestSiblingManifestName(t *testing.T) {
	for in, want := range map[string]string{
		"backup.tar.gz":               "backup-manifest.json.gz",
		"/tmp/b/backup-1.tar.gz":      "/tmp/b/backup-1-manifest.json.gz",
		"backups/nightly/nightly.tgz": "backups/nightly/nightly-manifest.json.gz",
		"backup":                      "backup-manifest.json.gz",
		"backup.tar":                  "backup.tar-manifest.json.gz",
	} {
		require.Equal(t, want, archive.SiblingManifestName(in), in)
	}
}

// siblingSeeds are the plain contents (before gzip) of small siblings Writer wrote.
func siblingSeeds(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	for name, n := range map[string]int{"configmaps-0": 0, "configmaps-3": 3} {
		var buf, sb bytes.Buffer
		w, err := archivetest.WriteConfigMaps(&buf, n, 100)
		require.NoError(t, err)
		require.NoError(t, w.WriteSibling(&sb))
		zr, err := gzip.NewReader(&sb)
		require.NoError(t, err)
		plain, err := io.ReadAll(zr)
		require.NoError(t, err)
		out[name] = plain
	}
	return out
}

// TestWriteSiblingFuzzSeeds regenerates the checked-in FuzzReadSibling seeds with
// -update-seeds, and otherwise checks that they are still what Writer produces.
func TestWriteSiblingFuzzSeeds(t *testing.T) {
	checkFuzzSeeds(t, "FuzzReadSibling", "TestWriteSiblingFuzzSeeds", siblingSeeds(t))
}

// FuzzReadSibling: on any content (gzip-compressed here), ReadSibling never panics; it
// accepts, or refuses with ErrFormat or ErrLimitExceeded; what it accepts has a manifest,
// and every resource's preferred version among its versions.
func FuzzReadSibling(f *testing.F) {
	for _, data := range siblingSeeds(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, plain []byte) {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		_, _ = zw.Write(plain)
		require.NoError(t, zw.Close())
		s, err := archive.ReadSibling(context.Background(), &z, archive.WithLimits(archive.Limits{MaxEntryBytes: 1 << 16, MaxTotalBytes: 1 << 20}))
		if err != nil {
			require.True(t, errors.Is(err, archive.ErrFormat) || errors.Is(err, archive.ErrLimitExceeded), "%v", err)
			return
		}
		require.NotNil(t, s.Manifest)
		for key, g := range s.GroupVersions {
			require.NotEmpty(t, g.Versions, key)
			if g.PreferredVersion.Version == "" {
				continue
			}
			found := false
			for _, v := range g.Versions {
				found = found || v == g.PreferredVersion
			}
			require.True(t, found, key)
		}
		_, err = s.Index()
		require.ErrorIs(t, err, archive.ErrSiblingMismatch)
	})
}
