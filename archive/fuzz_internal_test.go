package archive

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// FuzzItemPath: ItemPath either refuses with ErrInsecurePath or returns a clean local path
// under resources/ that parses back to exactly the components it was given.
func FuzzItemPath(f *testing.F) {
	f.Add("pods", "", "ns", "p")
	f.Add("deployments.apps", "v1-preferredversion", "", "web")
	f.Add("pods", "v1", "..", "x")
	f.Add("pods", "cluster", "ns", "x")
	f.Add("pods", "", "ns", "../../etc/passwd")
	f.Fuzz(func(t *testing.T, resource, versionDir, namespace, name string) {
		p, err := ItemPath(resource, versionDir, namespace, name)
		if err != nil {
			if !errors.Is(err, ErrInsecurePath) {
				t.Fatalf("ItemPath error %v does not wrap ErrInsecurePath", err)
			}
			return
		}
		if !fs.ValidPath(p) || !strings.HasPrefix(p, ResourcesDir+"/") || strings.ContainsAny(p, "\\\x00") {
			t.Fatalf("ItemPath(%q, %q, %q, %q) = %q, not a clean local path", resource, versionDir, namespace, name, p)
		}
		ref, ok := parseItemPath(p)
		if !ok || ref.GroupResource != resource || ref.VersionDir != versionDir || ref.Namespace != namespace || ref.Name != name {
			t.Fatalf("ItemPath(%q, %q, %q, %q) = %q parses back as %+v, %v", resource, versionDir, namespace, name, p, ref, ok)
		}
	})
}
