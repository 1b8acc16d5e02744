package restore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
)

// Source opens a Velero-layout backup tarball (gzip-compressed tar) for one streaming
// pass. NewPlan opens it once (with WithSibling, only when the backup holds kinds whose
// bodies name dependencies: Pods, workloads, bindings, ...; else not at all), and Run once
// more to create the items, or more than once when the backup's order made its pass let go
// of items it read ahead (Summary.Passes counts them), so a Source must give the same bytes
// every time it is called.
// When the ReadCloser it returns has a method Name() string, as *os.File has, the errors
// reading it name it.
type Source func(ctx context.Context) (io.ReadCloser, error)

// FromFile is the backup tarball at path.
func FromFile(path string) Source {
	return func(context.Context) (io.ReadCloser, error) { return os.Open(path) }
}

// FromBytes is a backup tarball held in memory. The restore does not modify b.
func FromBytes(b []byte) Source {
	return func(context.Context) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
}

// named is err, from reading r, prefixed with r's name when r has one (an *os.File, a
// reader of backupstore) and err does not start with it already.
func named(r io.Reader, err error) error {
	n, ok := r.(interface{ Name() string })
	if err == nil || !ok {
		return err
	}
	name := n.Name()
	if name == "" || strings.HasPrefix(err.Error(), name+": ") {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}
