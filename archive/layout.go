package archive

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/backupkit/backupkit/internal/layout"
	"github.com/backupkit/backupkit/versionselect"
)

// The Velero backup layout, format 1.1.0.
const (
	// CurrentFormat is the format version Writer writes to metadata/version.
	CurrentFormat = "1.1.0"
	// VersionFile is the path of the file holding the format version.
	VersionFile = "metadata/version"
	// ResourcesDir, "resources", is the directory holding one directory per backed-up
	// resource.
	ResourcesDir = layout.ResourcesDir
	// ManifestFile is the path of the manifest Writer stores: manifest.json (manifest
	// format version 1) compressed with gzip. It lies outside resources/, where Velero's
	// reader never looks.
	ManifestFile = "metadata/manifest.json.gz"
	// PreferredSuffix marks the version directory of a resource's preferred version.
	//
	// Deprecated: Use versionselect.PreferredVersionDirSuffix, the same string. It has one
	// home, versionselect, which names Choice.Dir with it and may not import archive.
	PreferredSuffix = versionselect.PreferredVersionDirSuffix
)

// ItemRef locates one backed-up item: where it is stored and its coordinates parsed from that
// path. It is a plain value, safe to copy and compare (Meta aside, which is shared).
type ItemRef struct {
	Path          string    // slash path inside the backup, e.g. "resources/deployments.apps/v1-preferredversion/namespaces/ns/web.json"
	GroupResource string    // the directory under resources/, "<resource>.<group>" or "<resource>"; the key of GroupVersions
	Resource      string    // the plural resource, "deployments"
	Group         string    // the API group, "apps"; "" for the core group
	VersionDir    string    // "" for the legacy unversioned path, else "<v>" or "<v>-preferredversion"
	Namespace     string    // "" for a cluster-scoped item
	Name          string    // the object name, the file name without ".json"
	Size          int64     // bytes as stored
	Meta          *Metadata // set only by Scan with WithMetadata and a readable item
}

// SchemaGroupResource returns the item's group and resource as a schema.GroupResource
// (Group and Resource): its String is GroupResource, the directory under resources/.
func (r ItemRef) SchemaGroupResource() schema.GroupResource {
	return schema.GroupResource{Group: r.Group, Resource: r.Resource}
}

// Version returns the API version of the version directory ("v1" for "v1-preferredversion"),
// or "" for the legacy unversioned path.
func (r ItemRef) Version() string {
	return strings.TrimSuffix(r.VersionDir, versionselect.PreferredVersionDirSuffix)
}

// ItemPath returns the slash path of an item inside a backup:
// resources/<resource>[/<versionDir>]/{namespaces/<namespace>|cluster}/<name>.json.
// resource is the directory name ("deployments.apps", "pods"); versionDir is "" for the
// legacy path; namespace is "" for a cluster-scoped item. Any component that is empty where
// required, contains '/', '\\' or NUL, is not valid UTF-8, or is "." or "..", and a versionDir that would read
// back as another path ("cluster", "namespaces", a bare "-preferredversion"): an error
// wrapping ErrInsecurePath.
func ItemPath(resource, versionDir, namespace, name string) (string, error) {
	if err := checkItem(resource, versionDir, namespace, name); err != nil {
		return "", fmt.Errorf("archive: item path: %w", err)
	}
	return layout.ItemPath(resource, "", versionDir, namespace, name), nil
}

func checkItem(resource, versionDir, namespace, name string) error {
	if err := checkComponent("resource", resource, true); err != nil {
		return err
	}
	if err := checkComponent("version directory", versionDir, false); err != nil {
		return err
	}
	if versionDir == layout.ClusterDir || versionDir == layout.NamespacesDir || versionDir == versionselect.PreferredVersionDirSuffix {
		return insecure("version directory %q would be read as another path", versionDir)
	}
	if err := checkComponent("namespace", namespace, false); err != nil {
		return err
	}
	return checkComponent("name", name, true)
}

func checkComponent(what, s string, required bool) error {
	switch {
	case s == "" && required:
		return insecure("empty %s", what)
	case s == "." || s == "..":
		return insecure("%s %q", what, s)
	case strings.ContainsAny(s, "/\\\x00"):
		return insecure("%s %q contains a separator or NUL", what, s)
	case !utf8.ValidString(s):
		return insecure("%s %q is not valid UTF-8", what, s)
	}
	return nil
}

// parseItemPath parses a clean slash path as an item path; ok is false for anything else.
// The strings in the result share p's memory.
func parseItemPath(p string) (ItemRef, bool) {
	rest, ok := strings.CutPrefix(p, ResourcesDir+"/")
	if !ok {
		return ItemRef{}, false
	}
	var parts [5]string
	n := 0
	for {
		c, r, more := strings.Cut(rest, "/")
		if n == len(parts) {
			return ItemRef{}, false
		}
		parts[n] = c
		n++
		if !more {
			break
		}
		rest = r
	}
	ref := ItemRef{Path: p}
	switch {
	case n == 3 && parts[1] == layout.ClusterDir:
	case n == 4 && parts[1] == layout.NamespacesDir:
		ref.Namespace = parts[2]
	case n == 4 && parts[2] == layout.ClusterDir:
		ref.VersionDir = parts[1]
	case n == 5 && parts[2] == layout.NamespacesDir:
		ref.VersionDir, ref.Namespace = parts[1], parts[3]
	default:
		return ItemRef{}, false
	}
	name, ok := strings.CutSuffix(parts[n-1], layout.ItemExt)
	if !ok || name == "" || parts[0] == "" {
		return ItemRef{}, false
	}
	ref.Name = name
	ref.GroupResource = parts[0]
	ref.Resource, ref.Group, _ = strings.Cut(parts[0], ".")
	if ref.VersionDir != "" && ref.Version() == "" {
		return ItemRef{}, false
	}
	return ref, true
}

// groupVersions turns the version directories seen per resource directory into what
// versionselect.Choose takes. A resource with no "-preferredversion" directory or several is
// reported and gets no PreferredVersion.
//
// A resource with no version directory at all is a legacy resource (Velero before 1.4, format
// below 1.1.0, wrote only the legacy paths): legacy holds the versions of its items'
// apiVersion, which become its versions, the only one marked preferred (it is what the
// source served as preferred when the backup was taken). It is reported only where the
// layout is inconsistent: legacy items at several versions, none readable, or a format
// (versionDirs) that requires version directories.
func groupVersions(dirs map[string]map[string]bool, legacy map[string]map[string]bool, versionDirs bool) (map[string]metav1.APIGroup, []Problem) {
	out := make(map[string]metav1.APIGroup, len(dirs))
	var problems []Problem
	for key, vdirs := range dirs {
		where := ResourcesDir + "/" + key
		_, group, _ := strings.Cut(key, ".")
		seen := map[string]bool{}
		var versions, preferred []string
		for d := range vdirs {
			v, pref := strings.CutSuffix(d, versionselect.PreferredVersionDirSuffix)
			if v == "" {
				continue
			}
			if pref {
				preferred = append(preferred, v)
			}
			if !seen[v] {
				seen[v] = true
				versions = append(versions, v)
			}
		}
		if len(versions) == 0 {
			if versionDirs || len(legacy[key]) == 0 {
				// A format with version directories, or nothing readable: left out. (Scan may
				// have noted legacy versions before it met a late metadata/version.)
				problems = append(problems, Problem{where, "no version directory"})
				continue
			}
			for v := range legacy[key] {
				versions = append(versions, v)
			}
			if len(versions) == 1 {
				preferred = versions
			} else {
				versionselect.Sort(versions)
				problems = append(problems, Problem{where, "legacy items at several versions: " + strings.Join(versions, ", ")})
			}
		}
		versionselect.Sort(versions)
		g := metav1.APIGroup{Name: group}
		for _, v := range versions {
			g.Versions = append(g.Versions, gv(group, v))
		}
		switch {
		case len(preferred) == 1:
			g.PreferredVersion = gv(group, preferred[0])
		case len(vdirs) == 0:
			// legacy, several versions: reported above
		case len(preferred) == 0:
			problems = append(problems, Problem{where, "no " + versionselect.PreferredVersionDirSuffix + " directory"})
		default:
			sort.Strings(preferred)
			problems = append(problems, Problem{where, "several " + versionselect.PreferredVersionDirSuffix + " directories: " + strings.Join(preferred, ", ")})
		}
		out[key] = g
	}
	sortProblems(problems)
	return out, problems
}

// legacyVersions records, per resource directory, the versions of the apiVersions of its
// items at legacy paths, for resources that may have no version directory.
type legacyVersions map[string]map[string]bool

// note records the apiVersion of a legacy item of resource key; an apiVersion whose group
// is not the resource's is a problem, returned.
func (l legacyVersions) note(ref ItemRef, apiVersion string) *Problem {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || gv.Version == "" {
		return &Problem{ref.Path, fmt.Sprintf("apiVersion %q is not a group version", apiVersion)}
	}
	if gv.Group != ref.Group {
		return &Problem{ref.Path, fmt.Sprintf("apiVersion %q is not of the resource's group %q", apiVersion, ref.Group)}
	}
	vs := l[ref.GroupResource]
	if vs == nil {
		vs = map[string]bool{}
		l[ref.GroupResource] = vs
	}
	vs[gv.Version] = true
	return nil
}

func gv(group, version string) metav1.GroupVersionForDiscovery {
	if group == "" {
		return metav1.GroupVersionForDiscovery{GroupVersion: version, Version: version}
	}
	return metav1.GroupVersionForDiscovery{GroupVersion: group + "/" + version, Version: version}
}

func sortProblems(p []Problem) {
	sort.SliceStable(p, func(i, j int) bool {
		if p[i].Path != p[j].Path {
			return p[i].Path < p[j].Path
		}
		return p[i].Reason < p[j].Reason
	})
}

func copyGroups(in map[string]metav1.APIGroup) map[string]metav1.APIGroup {
	out := make(map[string]metav1.APIGroup, len(in))
	for k, g := range in {
		c := g
		c.Versions = append([]metav1.GroupVersionForDiscovery(nil), g.Versions...)
		out[k] = c
	}
	return out
}
