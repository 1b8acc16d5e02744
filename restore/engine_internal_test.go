package restore

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/archive"
)

func TestResetMetadata(t *testing.T) {
	in := `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "n", "uid": "u", "resourceVersion": "7",
	  "creationTimestamp": "2026-01-01T00:00:00Z", "generation": 2, "managedFields": [], "labels": {"a": "b"}, "annotations": {"x": "y"},
	  "finalizers": ["example.com/f"], "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "o"}],
	  "deletionTimestamp": "2026-01-02T00:00:00Z", "generateName": "c-"},
	  "data": {"k": "v"}, "status": {"phase": "x"}}`
	tests := []struct {
		name       string
		finalizers bool
		want       string
	}{
		{"finalizers dropped", false, `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "n", "labels": {"a": "b"}, "annotations": {"x": "y"},
		  "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "o"}]}, "data": {"k": "v"}}`},
		{"finalizers kept", true, `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "n", "labels": {"a": "b"}, "annotations": {"x": "y"},
		  "finalizers": ["example.com/f"], "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "o"}]}, "data": {"k": "v"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var obj, want map[string]any
			require.NoError(t, json.Unmarshal([]byte(in), &obj))
			require.NoError(t, json.Unmarshal([]byte(tt.want), &want))
			u := &unstructured.Unstructured{Object: obj}
			resetMetadata(u, tt.finalizers)
			require.Equal(t, want, u.Object)
		})
	}
}

func TestRetry(t *testing.T) {
	transient := apierrors.NewServiceUnavailable("unavailable")
	permanent := apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "a", errors.New("no"))
	t.Run("transient, then success", func(t *testing.T) {
		r := &restorer{}
		calls := 0
		attempts, err := r.retry(t.Context(), func() error {
			calls++
			if calls < 3 {
				return transient
			}
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, 3, attempts)
		require.EqualValues(t, 3, r.requests.Load(), "every attempt is a request")
	})
	t.Run("permanent: one attempt", func(t *testing.T) {
		r := &restorer{}
		attempts, err := r.retry(t.Context(), func() error { return permanent })
		require.ErrorIs(t, err, permanent)
		require.Equal(t, 1, attempts)
	})
	t.Run("cancelled while waiting", func(t *testing.T) {
		r := &restorer{}
		ctx, cancel := context.WithCancel(t.Context())
		attempts, err := r.retry(ctx, func() error { cancel(); return transient })
		require.ErrorIs(t, err, context.Canceled)
		require.ErrorContains(t, err, "last error: ")
		require.Equal(t, 1, attempts)
	})
}

// streamBackup is a backup of n ConfigMaps of growing size, and its items' bytes by path.
func streamBackup(t *testing.T, n int) ([]byte, []string, map[string][]byte) {
	var objs []*unstructured.Unstructured
	for k := range n {
		objs = append(objs, testObject("v1", "ConfigMap", "ns", fmt.Sprintf("cm-%03d", k), fmt.Sprintf("uid-%d", k),
			map[string]any{"data": map[string]any{"v": string(bytes.Repeat([]byte("x"), 10*k))}}))
	}
	b := backupOf(t, objs...)
	want := map[string][]byte{}
	var paths []string
	_, err := archive.Scan(t.Context(), bytes.NewReader(b), archive.WithVisitor(func(it *archive.Item) error {
		data, err := it.Bytes()
		want[it.Path] = data
		paths = append(paths, it.Path)
		return err
	}))
	require.NoError(t, err)
	return b, paths, want
}

// streamPaths streams the items at paths, numbered in that order.
func streamPaths(ctx context.Context, src Source, paths []string, budget int64) *itemStream {
	num := map[string]int32{}
	for i, p := range paths {
		num[p] = int32(i)
	}
	locate := func(ref archive.ItemRef) (int32, bool) { i, ok := num[ref.Path]; return i, ok }
	return streamItems(ctx, src, archive.Limits{}, len(paths), len(paths), locate, func(i int32) string { return paths[i] }, budget, maxHeld)
}

// The second pass hands each planned item's bytes over once, exactly as a Scan reads them.
func TestItemStream(t *testing.T) {
	b, paths, want := streamBackup(t, 20)
	s := streamPaths(t.Context(), FromBytes(b), paths, maxReadAhead)
	defer s.close()
	for i, p := range paths {
		got, err := s.take(t.Context(), int32(i))
		require.NoError(t, err)
		require.Equal(t, want[p], got, p)
	}
	_, err := s.take(t.Context(), 0)
	require.EqualError(t, err, paths[0]+" taken twice")
	_, err = s.take(t.Context(), int32(len(paths)))
	require.EqualError(t, err, fmt.Sprintf("item %d is not a planned item", len(paths)))

	// A backup cut short: the items it no longer holds fail, naming the item and the cause.
	s2 := streamPaths(t.Context(), FromBytes(b[:len(b)/2]), paths, maxReadAhead)
	defer s2.close()
	failed := 0
	for i, p := range paths {
		if _, err := s2.take(t.Context(), int32(i)); err != nil {
			failed++
			require.ErrorContains(t, err, "reading "+p+" from the backup: ")
		}
	}
	require.Positive(t, failed)
}

// A planned item met twice in the second pass (the plan's read refuses such a backup, so it
// changed between the two, or its sibling manifest was made for another) ends the pass: the
// items not read yet fail, naming the repeated item.
func TestItemStreamRepeatedItem(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	paths := []string{"resources/configmaps/namespaces/ns/a.json", "resources/configmaps/namespaces/ns/b.json"}
	for _, e := range []struct{ path, body string }{{paths[0], `{"first":1}`}, {paths[0], `{"second":2}`}, {paths[1], `{}`}} {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: e.path, Mode: 0o644, Size: int64(len(e.body)), Typeflag: tar.TypeReg}))
		_, err := tw.Write([]byte(e.body))
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())

	s := streamPaths(t.Context(), FromBytes(buf.Bytes()), paths, maxReadAhead)
	defer s.close()
	got, err := s.take(t.Context(), 0)
	require.NoError(t, err)
	require.JSONEq(t, `{"first":1}`, string(got))
	_, err = s.take(t.Context(), 1)
	require.ErrorIs(t, err, errChanged)
	require.ErrorContains(t, err, "reading "+paths[1]+" from the backup: ")
	require.ErrorContains(t, err, paths[0]+" is in the backup twice")
}

// The pass reads ahead at most its budget while the walk takes items in archive order, and
// reads on past it for an item the walk waits for: taking in reverse order does not hang.
func TestItemStreamReadAhead(t *testing.T) {
	b, paths, want := streamBackup(t, 20)
	largest := 0
	for _, d := range want {
		largest = max(largest, len(d))
	}
	s := streamPaths(t.Context(), FromBytes(b), paths, 1)
	for i, p := range paths {
		_, err := s.take(t.Context(), int32(i))
		require.NoError(t, err, p)
		s.mu.Lock()
		held := s.heldBytes
		s.mu.Unlock()
		require.LessOrEqual(t, held, int64(largest), "read ahead past the budget after %s", p)
	}
	s.close()

	s = streamPaths(t.Context(), FromBytes(b), paths, 1)
	defer s.close()
	for i := len(paths) - 1; i >= 0; i-- {
		_, err := s.take(t.Context(), int32(i))
		require.NoError(t, err, paths[i])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	require.Zero(t, s.heldBytes, "everything taken")
	require.Empty(t, s.held, "everything taken")
	require.Empty(t, s.waits, "nothing waited for")

	// Cancelled while the pass waits on its budget: close returns.
	ctx, cancel := context.WithCancel(t.Context())
	s3 := streamPaths(ctx, FromBytes(b), paths, 1)
	cancel()
	s3.close()
}

// On-demand items (a plan's additional-only items): the pass holds none it is not waiting
// for, and one asked for after the pass went by, or ended, is read again, exactly.
func TestItemStreamOnDemand(t *testing.T) {
	b, paths, want := streamBackup(t, 20)
	num := map[string]int32{}
	for i, p := range paths {
		num[p] = int32(i)
	}
	locate := func(ref archive.ItemRef) (int32, bool) { i, ok := num[ref.Path]; return i, ok }
	const regular = 10 // items 10..19 on demand
	var opens atomic.Int32
	src := func(ctx context.Context) (io.ReadCloser, error) { opens.Add(1); return FromBytes(b)(ctx) }
	s := streamItems(t.Context(), src, archive.Limits{}, len(paths), regular, locate, func(i int32) string { return paths[i] }, maxReadAhead, maxHeld)
	defer s.close()
	for i := range regular {
		got, err := s.take(t.Context(), int32(i))
		require.NoError(t, err)
		require.Equal(t, want[paths[i]], got)
	}
	<-s.done // every regular item read: the pass ended before the on-demand ones
	s.mu.Lock()
	require.Empty(t, s.held, "no on-demand item held unasked")
	s.mu.Unlock()
	for _, i := range []int32{15, 19, 10} {
		got, err := s.take(t.Context(), i)
		require.NoError(t, err)
		require.Equal(t, want[paths[i]], got, paths[i])
	}
	require.EqualValues(t, 4, opens.Load(), "one pass, and one for each on-demand item")
	_, err := s.take(t.Context(), 15)
	require.EqualError(t, err, paths[15]+" taken twice")

	// Asked for before the pass reaches it (the pass waiting on its budget): read in the
	// pass, not again.
	opens.Store(0)
	s2 := streamItems(t.Context(), src, archive.Limits{}, len(paths), regular, locate, func(i int32) string { return paths[i] }, 1, maxHeld)
	defer s2.close()
	got, err := s2.take(t.Context(), 15)
	require.NoError(t, err)
	require.Equal(t, want[paths[15]], got)
	require.EqualValues(t, 1, opens.Load())
}
