package archivetest_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/backupkit/backupkit/archive"
	"github.com/backupkit/backupkit/archive/archivetest"
	"github.com/backupkit/backupkit/manifest/manifesttest"
)

// A property test draws inside rapid.Check and holds a reader to what the backup holds:
//
//	rapid.Check(t, func(t *rapid.T) {
//		b := archivetest.Backups().Draw(t, "backup")
//		files, err := myReader(b.Data)
//		require.NoError(t, err)
//		require.Equal(t, b.Files, files)
//	})
//
// Here, one backup drawn from a fixed seed, read back by archive.Scan: each resource with
// the versions it holds (the preferred one starred) and the number of its item files.
func ExampleBackups() {
	b := archivetest.Backups(manifesttest.WithMaxObjects(8)).Example(68)
	idx, err := archive.Scan(context.Background(), bytes.NewReader(b.Data))
	if err != nil {
		fmt.Println(err)
		return
	}
	files := map[string]int{}
	for _, ref := range idx.Items {
		files[ref.GroupResource]++
	}
	var resources []string
	for r := range idx.GroupVersions {
		resources = append(resources, r)
	}
	slices.Sort(resources)
	for _, r := range resources {
		g := idx.GroupVersions[r]
		var versions []string
		for _, v := range g.Versions {
			if v.Version == g.PreferredVersion.Version {
				versions = append(versions, v.Version+"*")
			} else {
				versions = append(versions, v.Version)
			}
		}
		fmt.Printf("%s %s: %d files\n", r, strings.Join(versions, ","), files[r])
	}
	fmt.Println("as many files as Files lists:", len(b.Files) == len(idx.Items))
	// Output:
	// customresourcedefinitions.apiextensions.k8s.io v1*: 2 files
	// deployments.apps v1*: 2 files
	// gadgets.example.com v2,v1*: 3 files
	// namespaces v1*: 2 files
	// pods v1*: 4 files
	// replicasets.apps v1*: 2 files
	// statefulsets.apps v1*: 2 files
	// as many files as Files lists: true
}
