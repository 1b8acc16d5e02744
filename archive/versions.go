package archive

import (
	"hash/maphash"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/manifest"
)

// interner gives one copy of each of the few distinct strings met per item (resource,
// group, namespace, version, kind), so that what a manifest keeps does not point into,
// and keep alive, the tar header or item bytes it was cut from.
type interner map[string]string

func (in interner) intern(s string) string {
	if c, ok := in[s]; ok {
		return c
	}
	c := strings.Clone(s)
	in[c] = c
	return c
}

// versionLinker records in a manifest the other versions an object was captured in (the
// same identity and uid under another version directory, Manifest.AddVersion). A copy met
// after its object is in the manifest is recorded at once; one met before (Velero writes
// the version directory's copy before the legacy one) waits as 24 bytes, a 128-bit hash of
// its identity and uid and its version, and is matched when finish goes through the
// manifest once. The hash is seeded at random, so no input can be made to collide on
// purpose; by chance, two of a million pending copies collide with odds below 2^-88.
type versionLinker struct {
	s1, s2   maphash.Seed
	in       interner
	versions []string          // interned versions, by index
	vidx     map[string]uint32 // index in versions
	pending  []pendingVersion
}

type pendingVersion struct {
	h1, h2  uint64
	version uint32
}

func newVersionLinker(in interner) *versionLinker {
	return &versionLinker{s1: maphash.MakeSeed(), s2: maphash.MakeSeed(), in: in, vidx: map[string]uint32{}}
}

func (l *versionLinker) hash(gr schema.GroupResource, ns, name string, uid types.UID) (uint64, uint64) {
	var a, b maphash.Hash
	a.SetSeed(l.s1)
	b.SetSeed(l.s2)
	for _, s := range [...]string{gr.Group, gr.Resource, ns, name, string(uid)} {
		a.WriteString(s)
		a.WriteByte(0)
		b.WriteString(s)
		b.WriteByte(0)
	}
	return a.Sum64(), b.Sum64()
}

// note records that the object of identity (gr, ns, name) and uid was captured in version
// too: for the manifest item of the same identity and uid, now or at finish.
func (l *versionLinker) note(m *manifest.Manifest, gr schema.GroupResource, ns, name string, uid types.UID, version string) {
	if it, ok := m.Get(uid); ok && it.Group == gr.Group && it.Resource == gr.Resource && it.Namespace == ns && it.Name == name {
		_, _ = m.AddVersion(uid, l.in.intern(version)) // the item is in m: cannot fail
		return
	}
	l.pend(gr, ns, name, uid, version)
}

// pend records that the object of identity (gr, ns, name) and uid was captured in version
// too, to be matched by finish or finishEach.
func (l *versionLinker) pend(gr schema.GroupResource, ns, name string, uid types.UID, version string) {
	v, ok := l.vidx[version]
	if !ok {
		v = uint32(len(l.versions))
		c := l.in.intern(version)
		l.versions = append(l.versions, c)
		l.vidx[c] = v
	}
	h1, h2 := l.hash(gr, ns, name, uid)
	l.pending = append(l.pending, pendingVersion{h1, h2, v})
}

// finish records the pending versions whose object is in m; the others (no item of that
// identity and uid) are dropped.
func (l *versionLinker) finish(m *manifest.Manifest) {
	if len(l.pending) == 0 {
		return
	}
	items := m.Items()
	l.finishEach(len(items), func(i int) (schema.GroupResource, string, string, types.UID) {
		it := items[i]
		return it.GroupResource(), it.Namespace, it.Name, it.UID
	}, func(i int, version string) {
		_, _ = m.AddVersion(items[i].UID, version)
	})
}

// finishEach matches the pending versions with n items, item i of identity and uid given by
// identity(i), calling add for each version of each item, item by item in ascending order;
// the versions that match no item are dropped.
func (l *versionLinker) finishEach(n int, identity func(i int) (gr schema.GroupResource, ns, name string, uid types.UID), add func(i int, version string)) {
	if len(l.pending) == 0 {
		return
	}
	cmp := func(a, b pendingVersion) int {
		if a.h1 != b.h1 {
			if a.h1 < b.h1 {
				return -1
			}
			return 1
		}
		if a.h2 != b.h2 {
			if a.h2 < b.h2 {
				return -1
			}
			return 1
		}
		return 0
	}
	slices.SortFunc(l.pending, cmp)
	for i := range n {
		h1, h2 := l.hash(identity(i))
		k, found := slices.BinarySearchFunc(l.pending, pendingVersion{h1: h1, h2: h2}, cmp)
		for ; found && k < len(l.pending) && l.pending[k].h1 == h1 && l.pending[k].h2 == h2; k++ {
			add(i, l.versions[l.pending[k].version])
		}
	}
	l.pending = nil
}
