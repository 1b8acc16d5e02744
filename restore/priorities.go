package restore

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
)

// ResourcePriorities is the order the restore takes resources in, with the meaning of Velero's
// --restore-resource-priorities: the High resources first, in the order given, then every
// resource listed in neither, then the Low resources, in the order given. The zero value
// lists nothing: every resource is in the middle.
//
// A resource is written "<resource>" for the core group and "<resource>.<group>" otherwise,
// as [schema.GroupResource.String] writes it.
type ResourcePriorities struct {
	High, Low []schema.GroupResource
}

// prioritySeparator separates the high priorities from the low ones in [ParseResourcePriorities]'
// syntax.
const prioritySeparator = "-"

// DefaultResourcePriorities returns the restore priorities Velero's server uses when it is given
// none (defaultRestorePriorities in pkg/cmd/server/config/config.go). The list was read at
// Velero's tag v1.18.1, the newest tag of the copy of Velero it was read from, whose
// release-1.18 branch (May 2026) and main branch hold the same list; v1.18.3 itself was not
// available. It is reproduced as Velero writes it, including its entry
// "volumesnapshotclass.snapshot.storage.k8s.io", which is singular: Velero resolves it
// through the target's discovery to the VolumeSnapshotClasses, and so does NewPlan given
// the target's served resources (WithServedResources; Connect reads them); resolved
// against the backup alone it names nothing. Each call returns new slices.
func DefaultResourcePriorities() ResourcePriorities {
	gr := func(s string) schema.GroupResource { return schema.ParseGroupResource(s) }
	return ResourcePriorities{
		High: []schema.GroupResource{
			gr("customresourcedefinitions"),
			gr("namespaces"),
			gr("storageclasses"),
			gr("volumesnapshotclass.snapshot.storage.k8s.io"),
			gr("volumesnapshotcontents.snapshot.storage.k8s.io"),
			gr("volumesnapshots.snapshot.storage.k8s.io"),
			gr("datauploads.velero.io"),
			gr("persistentvolumes"),
			gr("persistentvolumeclaims"),
			gr("clusterroles"),
			gr("roles"),
			gr("serviceaccounts"),
			gr("clusterrolebindings"),
			gr("rolebindings"),
			gr("secrets"),
			gr("configmaps"),
			gr("limitranges"),
			gr("priorityclasses"),
			gr("pods"),
			gr("replicasets.apps"),
			gr("clusterclasses.cluster.x-k8s.io"),
			gr("endpoints"),
			gr("services"),
		},
		Low: []schema.GroupResource{
			gr("clusterbootstraps.run.tanzu.vmware.com"),
			gr("clusters.cluster.x-k8s.io"),
			gr("clusterresourcesets.addons.cluster.x-k8s.io"),
			gr("apps.kappctrl.k14s.io"),
			gr("packageinstalls.packaging.carvel.dev"),
		},
	}
}

// ParseResourcePriorities parses the syntax of Velero's --restore-resource-priorities: resources
// separated by commas ("customresourcedefinitions,replicasets.apps"), where an entry "-"
// ends the high priorities and starts the low ones. Without "-" every resource is high;
// "-" may come first (only low priorities) or last (only high ones). An empty string, or
// "-" alone, is the zero ResourcePriorities. Slices with nothing in them are nil.
//
// Whitespace around an entry is trimmed. Velero accepts anything between the commas and
// compares it with resource names as written; ParseResourcePriorities refuses, with an error
// naming the entry and its position (counted from 1), what could never name a resource:
// an empty entry ("a,,b", a trailing comma), a second "-", a resource repeated (in either
// part), and a malformed entry, one whose resource is not a lowercase DNS label or whose
// group is not a lowercase DNS subdomain ("Pods", "pods/log", "a b").
func ParseResourcePriorities(s string) (ResourcePriorities, error) {
	var p ResourcePriorities
	if strings.TrimSpace(s) == "" {
		return p, nil
	}
	seen := make(map[schema.GroupResource]int)
	low := false
	for i, raw := range strings.Split(s, ",") {
		pos := i + 1
		e := strings.TrimSpace(raw)
		switch {
		case e == "":
			return ResourcePriorities{}, fmt.Errorf("restore: priorities: entry %d is empty", pos)
		case e == prioritySeparator:
			if low {
				return ResourcePriorities{}, fmt.Errorf("restore: priorities: entry %d: a second separator %q", pos, prioritySeparator)
			}
			low = true
			continue
		}
		gr, err := parsePriority(e)
		if err != nil {
			return ResourcePriorities{}, fmt.Errorf("restore: priorities: entry %d %q: %w", pos, e, err)
		}
		if prev, ok := seen[gr]; ok {
			return ResourcePriorities{}, fmt.Errorf("restore: priorities: entry %d %q repeats entry %d", pos, e, prev)
		}
		seen[gr] = pos
		if low {
			p.Low = append(p.Low, gr)
		} else {
			p.High = append(p.High, gr)
		}
	}
	return p, nil
}

// parsePriority reads one entry, "<resource>" or "<resource>.<group>".
func parsePriority(e string) (schema.GroupResource, error) {
	gr := schema.ParseGroupResource(e)
	if gr.Group == "" && strings.Contains(e, ".") {
		return gr, fmt.Errorf("malformed: empty group after %q", gr.Resource+".")
	}
	if msgs := validation.IsDNS1123Label(gr.Resource); len(msgs) > 0 {
		return gr, fmt.Errorf("malformed resource %q: %s", gr.Resource, strings.Join(msgs, "; "))
	}
	if gr.Group != "" {
		if msgs := validation.IsDNS1123Subdomain(gr.Group); len(msgs) > 0 {
			return gr, fmt.Errorf("malformed group %q: %s", gr.Group, strings.Join(msgs, "; "))
		}
	}
	return gr, nil
}

// String writes p in [ParseResourcePriorities]' syntax: the high resources, then, if there are low
// ones, "-" and the low resources, all separated by commas ("pods,-,clusters.cluster.x-k8s.io";
// "-,clusters.cluster.x-k8s.io" when only low ones are listed). ParseResourcePriorities gives p
// back from it when p is something ParseResourcePriorities returns (no repeated or malformed
// resource; nil, never empty, slices).
func (p ResourcePriorities) String() string {
	var b strings.Builder
	for i, gr := range p.High {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(gr.String())
	}
	if len(p.Low) > 0 {
		if len(p.High) > 0 {
			b.WriteByte(',')
		}
		b.WriteString(prioritySeparator)
		for _, gr := range p.Low {
			b.WriteByte(',')
			b.WriteString(gr.String())
		}
	}
	return b.String()
}
