package restorejobs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/archive"
)

// eachBackedUp calls fn with every item of the backup at path at its legacy path (the
// preferred version), decoded, one at a time as the tarball is read from the file: what
// readBackup gives, without holding the backup. It returns the preferred version of each
// resource, which the tarball tells only once read whole.
func eachBackedUp(ctx context.Context, path string, fn func(gr schema.GroupResource, u *unstructured.Unstructured) error) (map[schema.GroupResource]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	idx, err := archive.Scan(ctx, f, archive.WithVisitor(func(it *archive.Item) error {
		if it.VersionDir != "" {
			return nil
		}
		b, err := it.Bytes()
		if err != nil {
			return err
		}
		u := &unstructured.Unstructured{}
		if err := json.Unmarshal(b, &u.Object); err != nil {
			return fmt.Errorf("%s: %w", it.Path, err)
		}
		return fn(schema.GroupResource{Group: it.Group, Resource: it.Resource}, u)
	}))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	preferred := map[schema.GroupResource]string{}
	for dir, gv := range idx.GroupVersions {
		if gv.PreferredVersion.Version != "" {
			preferred[schema.ParseGroupResource(dir)] = gv.PreferredVersion.Version
		}
	}
	return preferred, nil
}
