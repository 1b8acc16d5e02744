package archive_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/archive/archivetest"
)

// tarStats is what the limits see of an archive: per entry in order, its name and size.
type tarStats struct {
	names []string
	sizes []int64
}

func statsOf(t *testing.T, data []byte) tarStats {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	var s tarStats
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return s
		}
		require.NoError(t, err)
		s.names = append(s.names, hdr.Name)
		s.sizes = append(s.sizes, hdr.Size)
	}
}

// TestLimitsHit: each limit, set one below what a backup needs, stops the read at the entry
// that crosses it with an error naming the limit, its value and how to raise it; set at
// what the backup needs, the backup reads.
func TestLimitsHit(t *testing.T) {
	var buf bytes.Buffer
	_, err := archivetest.WriteConfigMaps(&buf, 5, 300)
	require.NoError(t, err)
	data := buf.Bytes()
	st := statsOf(t, data)
	// What the backup needs of each limit, and the entry that crosses it one below.
	var lastItem string
	items := 0
	for _, n := range st.names {
		if strings.Count(n, "/") == 4 && !strings.Contains(n, "preferredversion") && strings.HasPrefix(n, "resources/") {
			items++
			lastItem = n
		}
	}
	require.Equal(t, 5, items)
	var maxSize, total int64
	var biggest, maxPathEntry string
	maxPath := 0
	for i, n := range st.names {
		if st.sizes[i] > maxSize {
			maxSize, biggest = st.sizes[i], n
		}
		if len(n) > maxPath {
			maxPath, maxPathEntry = len(n), n
		}
		total += st.sizes[i]
	}
	lastSized := st.names[len(st.names)-1] // the manifest, the last entry, is not empty
	for _, tc := range []struct {
		field  string
		need   int64
		set    func(int64) archive.Limits
		crosss string // the entry that crosses the limit one below need
	}{
		{"MaxItems", int64(items), func(v int64) archive.Limits { return archive.Limits{MaxItems: int(v)} }, lastItem},
		{"MaxEntries", int64(len(st.names)), func(v int64) archive.Limits { return archive.Limits{MaxEntries: int(v)} }, st.names[len(st.names)-1]},
		{"MaxEntryBytes", maxSize, func(v int64) archive.Limits { return archive.Limits{MaxEntryBytes: v} }, biggest},
		{"MaxTotalBytes", total, func(v int64) archive.Limits { return archive.Limits{MaxTotalBytes: v} }, lastSized},
		{"MaxPathLen", int64(maxPath), func(v int64) archive.Limits { return archive.Limits{MaxPathLen: int(v)} }, maxPathEntry},
	} {
		t.Run(tc.field, func(t *testing.T) {
			for _, op := range []struct {
				name string
				run  func(archive.Option) error
			}{
				{"scan", func(o archive.Option) error {
					_, err := archive.Scan(context.Background(), bytes.NewReader(data), o, archive.WithManifest())
					return err
				}},
				{"extract", func(o archive.Option) error {
					return archive.Extract(context.Background(), bytes.NewReader(data), t.TempDir(), o)
				}},
			} {
				t.Run(op.name, func(t *testing.T) {
					require.NoError(t, op.run(archive.WithLimits(tc.set(tc.need))), "at what the backup needs")
					err := op.run(archive.WithLimits(tc.set(tc.need - 1)))
					require.ErrorIs(t, err, archive.ErrLimitExceeded)
					var ae *archive.Error
					require.True(t, errors.As(err, &ae))
					require.Equal(t, tc.crosss, ae.Entry)
					var le *archive.LimitError
					require.True(t, errors.As(err, &le))
					require.Equal(t, tc.field, le.Field)
					require.Equal(t, tc.need-1, le.Limit)
					require.Contains(t, err.Error(), "Limits."+tc.field+" is ")
					require.Contains(t, err.Error(), "raise it with archive.WithLimits(archive.Limits{"+tc.field+": n})")
				})
			}
		})
	}
}

// TestLimitsResolve: the zero fields take DefaultLimits' values, MaxItems and MaxEntries
// scaling together as Limits documents.
func TestLimitsResolve(t *testing.T) {
	d := archive.DefaultLimits
	require.Equal(t, 2_000_000, d.MaxItems)
	require.Equal(t, 4*d.MaxItems+100_000, d.MaxEntries)
	for _, tc := range []struct {
		name     string
		in, want archive.Limits
		err      bool
	}{
		{"zero", archive.Limits{}, d, false},
		{"items-scale-entries", archive.Limits{MaxItems: 3_000_000},
			archive.Limits{MaxItems: 3_000_000, MaxEntries: 12_100_000, MaxEntryBytes: d.MaxEntryBytes, MaxTotalBytes: d.MaxTotalBytes, MaxPathLen: d.MaxPathLen}, false},
		{"entries-alone-bound-items", archive.Limits{MaxEntries: 10},
			archive.Limits{MaxItems: 10, MaxEntries: 10, MaxEntryBytes: d.MaxEntryBytes, MaxTotalBytes: d.MaxTotalBytes, MaxPathLen: d.MaxPathLen}, false},
		{"both-set", archive.Limits{MaxEntries: 10, MaxItems: 20},
			archive.Limits{MaxItems: 20, MaxEntries: 10, MaxEntryBytes: d.MaxEntryBytes, MaxTotalBytes: d.MaxTotalBytes, MaxPathLen: d.MaxPathLen}, false},
		{"items-huge-saturates", archive.Limits{MaxItems: math.MaxInt},
			archive.Limits{MaxItems: math.MaxInt, MaxEntries: math.MaxInt, MaxEntryBytes: d.MaxEntryBytes, MaxTotalBytes: d.MaxTotalBytes, MaxPathLen: d.MaxPathLen}, false},
		{"negative-items", archive.Limits{MaxItems: -1}, archive.Limits{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := archive.ResolveLimits(tc.in)
			if tc.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestLimitsStoredManifestScalesWithItems: the stored manifest may be larger than
// MaxEntryBytes, up to 256 bytes × MaxItems (a million objects' manifest is
// larger than 64 MiB); past that the error names MaxItems; any other entry stays bounded
// by MaxEntryBytes.
func TestLimitsStoredManifestScalesWithItems(t *testing.T) {
	// Annotations that do not compress make the manifest larger than 256 bytes
	// per object.
	rng := rand.New(rand.NewPCG(1, 2))
	var objs []*unstructured.Unstructured
	for i := range 20 {
		noise := make([]byte, 600)
		for j := range noise {
			noise[j] = byte('a' + rng.IntN(26))
		}
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind("ConfigMap")
		u.SetNamespace("ns")
		u.SetName(fmt.Sprintf("cm-%d", i))
		u.SetUID(types.UID(fmt.Sprintf("uid-%d", i)))
		u.SetAnnotations(map[string]string{"noise": string(noise)})
		objs = append(objs, u)
	}
	var buf bytes.Buffer
	_, err := archivetest.WriteObjects(&buf, func(string) string { return "configmaps" }, objs...)
	require.NoError(t, err)
	data := buf.Bytes()
	st := statsOf(t, data)
	var manifestSize, itemMax int64
	for i, n := range st.names {
		switch {
		case n == archive.ManifestFile:
			manifestSize = st.sizes[i]
		case strings.HasPrefix(n, "resources/"):
			itemMax = max(itemMax, st.sizes[i])
		}
	}
	require.Greater(t, manifestSize, itemMax, "the test needs a manifest larger than every item")
	scan := func(l archive.Limits) error {
		_, err := archive.Scan(context.Background(), bytes.NewReader(data), archive.WithLimits(l), archive.WithManifest())
		return err
	}
	items := int(manifestSize/256) + 1 // room for the manifest
	require.NoError(t, scan(archive.Limits{MaxEntryBytes: itemMax, MaxItems: items}))

	err = scan(archive.Limits{MaxEntryBytes: itemMax, MaxItems: items - 1})
	var ae *archive.Error
	require.ErrorAs(t, err, &ae)
	require.ErrorIs(t, err, archive.ErrLimitExceeded)
	require.Equal(t, archive.ManifestFile, ae.Entry)
	require.Contains(t, err.Error(), "raise it with archive.WithLimits(archive.Limits{MaxItems: n})")

	err = scan(archive.Limits{MaxEntryBytes: itemMax - 1, MaxItems: items})
	require.ErrorAs(t, err, &ae)
	require.NotEqual(t, archive.ManifestFile, ae.Entry, "an item over MaxEntryBytes is refused, whatever MaxItems")
	require.Contains(t, err.Error(), "raise it with archive.WithLimits(archive.Limits{MaxEntryBytes: n})")
}
