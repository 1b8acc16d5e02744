package restore

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
)

// Source opens a Velero-layout backup tarball (gzip-compressed tar) for one streaming
// pass. NewPlan opens it once (with WithSibling, only when the backup holds kinds whose
// bodies name dependencies: Pods, workloads, bindings, ...; else not at all), and Run once
// more to create the items, so a Source must give the same bytes every time it is called.
type Source func(ctx context.Context) (io.ReadCloser, error)

// FromFile is the backup tarball at path.
func FromFile(path string) Source {
	return func(context.Context) (io.ReadCloser, error) { return os.Open(path) }
}

// FromFS is the backup tarball name in fsys (an fs.FS over a directory, an embed.FS, ...).
func FromFS(fsys fs.FS, name string) Source {
	return func(context.Context) (io.ReadCloser, error) { return fsys.Open(name) }
}

// FromBytes is a backup tarball held in memory. The restore does not modify b.
func FromBytes(b []byte) Source {
	return func(context.Context) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
}
