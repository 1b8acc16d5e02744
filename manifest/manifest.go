package manifest

import (
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/internal/manifestopt"
	"github.com/backupkit/backupkit/internal/stringarena"
)

// Manifest is the set of items a backup holds, indexed by UID and by identity, and the
// dependency graph between them. The zero value is an empty manifest ready to use, like
// the result of [New]. A Manifest must not be copied after first use.
//
// All methods are safe for concurrent use: a backup may Add from a pool of workers while
// another goroutine reads. The graph (edges, waves) is computed lazily on the first query
// after a change and cached until the next Add, AddDependency or SetResourceOrder.
type Manifest struct {
	mu    sync.Mutex
	items []*Item

	seed    maphash.Seed
	hashFn  func(string) uint64 // test seam; nil: maphash with seed
	byUID   hashIndex           // see index.go
	byIdent hashIndex

	// Group, resource, namespace, kind and version strings are interned, and names and
	// UIDs copied into shared buffers: Add points each item's fields at the manifest's
	// copies, so that items share the bytes and keep no caller's buffer alive (a reader of
	// a tarball may hand in substrings of the entry's path, or of a decoded document).
	grIDs     map[schema.GroupResource]int32
	grs       []schema.GroupResource // the manifest's copies
	grKind    []string               // by interned group/resource, the kind its items had last
	grVersion []string               // the same for the version
	nsIDs     map[string]int32
	nss       []string          // the manifest's copies
	lastNS    int32             // the namespace interned last, an index into nss
	strs      map[string]string // kinds and versions, one copy of each
	shared    sharedMaps        // labels and annotations, one map for equal ones
	names     stringarena.Arena // each item's name and UID, copied one after the other into shared buffers

	projection manifestopt.Projection // what Add keeps of labels and annotations
	projected  bool                   // a projection may have left labels or annotations out

	versionOf  []int32        // by item index, its versions beyond Item.Version in versions; may be shorter than items (0: none)
	versions   versionTable   // see versions.go
	sources    []Itemer       // by item index, what AddItemer was given; may be shorter than items
	dependsOn  dependsOnList  // items carrying a depends-on annotation, by index
	refs       []uint64       // AddDependency's pairs, see reference.go
	refsSorted int            // refs[:refsSorted] are sorted without repeats
	order      *ResourceOrder // SetResourceOrder's; nil for none
	graph      *graph         // nil when stale
	orderCache []int32        // item indices in String order; nil when stale
}

// dependsOnEntry is the depends-on annotation of the item at idx, read once by Add (an
// item's fields do not change once added) so that building the graph does not look it up
// in every item's annotations again.
type dependsOnEntry struct {
	idx   int32
	value string
}

// dependsOnList holds entries in chunks that double up to 4,096 entries: appending
// never copies what is already there, and a large manifest allocates little beyond
// what it holds.
type dependsOnList struct {
	chunks [][]dependsOnEntry
	n      int
}

func (l *dependsOnList) add(e dependsOnEntry) {
	if k := len(l.chunks); k == 0 || len(l.chunks[k-1]) == cap(l.chunks[k-1]) {
		size := 8
		if k > 0 {
			size = min(2*cap(l.chunks[k-1]), 4096)
		}
		l.chunks = append(l.chunks, make([]dependsOnEntry, 0, size))
	}
	last := &l.chunks[len(l.chunks)-1]
	*last = append(*last, e)
	l.n++
}

// dependsOnCursor walks a dependsOnList in the order the entries were added.
type dependsOnCursor struct {
	l    *dependsOnList
	c, k int
}

// next returns the next entry, false after the last.
func (cur *dependsOnCursor) next() (dependsOnEntry, bool) {
	for cur.c < len(cur.l.chunks) {
		if chunk := cur.l.chunks[cur.c]; cur.k < len(chunk) {
			cur.k++
			return chunk[cur.k-1], true
		}
		cur.c, cur.k = cur.c+1, 0
	}
	return dependsOnEntry{}, false
}

// identKey is an item's identity with group/resource and namespace interned.
type identKey struct {
	gr, ns int32
	name   string
}

// New returns an empty manifest, configured by opts.
func New(opts ...Option) *Manifest {
	m := &Manifest{}
	m.initLocked()
	if len(opts) == 0 {
		return m
	}
	cfg := &newConfig{} // escapes to the options: made only when there are some
	for _, o := range opts {
		if o != nil {
			o(cfg)
		}
	}
	m.projection, m.projected = cfg.Projection, !cfg.Projection.Whole()
	m.grow(cfg.Capacity)
	return m
}

// initLocked prepares a zero Manifest for its first item. m.mu must be held (or m not
// yet shared).
func (m *Manifest) initLocked() {
	if m.nsIDs != nil {
		return
	}
	m.seed = maphash.MakeSeed()
	m.grIDs = map[schema.GroupResource]int32{}
	m.nsIDs = map[string]int32{"": 0}
	m.nss = []string{""}
}

// grow makes room for n more items, so that adding them does not rehash the indexes.
// A negative n is ignored. m must not be shared yet.
func (m *Manifest) grow(n int) {
	if n <= 0 {
		return
	}
	m.items = slices.Grow(m.items, n)
	m.byUID.reserve(len(m.items) + n)
	m.byIdent.reserve(len(m.items) + n)
}

// Add adds it to the manifest, keeping the pointer (no copy).
// It points the item's Group, Version, Resource, Kind and Namespace at the manifest's
// copies of the same strings, shared by its items, and its Name and UID at copies in
// buffers the manifest shares between its items, so that the item keeps no larger string
// of the caller's alive (a path or a document it was cut from); their values do not
// change. It may point the item's Labels and Annotations at an equal map of an item added
// before, shared between them, so that objects labelled alike keep one map: an added
// item's maps are the manifest's, read but never changed. In a projected manifest
// ([Manifest.Projected]), it replaces them by the entries the manifest keeps.
// An item whose UID or identity (group, resource, namespace, name) is already in the
// manifest is refused with [ErrItemAlreadyExists]; an item that belongs to
// another manifest with [ErrItemInManifest]; nil with [ErrInvalidItem]. Safe for
// concurrent use.
//
// Add checks only what indexing needs; [NewItem] and [NewItemFromMetadata] are the
// validating constructors, and [Manifest.AddItemer] adds an item type of the caller's
// own. An item with an empty UID is indexed by identity only: Get cannot find it and no
// ownerReference can name it.
func (m *Manifest) Add(it *Item) error {
	if it == nil {
		return fmt.Errorf("%w: nil item", ErrInvalidItem)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.addLocked(it)
}

// addLocked is Add of a non-nil item. m.mu must be held.
func (m *Manifest) addLocked(it *Item) error {
	m.initLocked()
	if it.m != nil && it.m != m {
		return fmt.Errorf("%w: %s", ErrItemInManifest, describe(it))
	}
	uidHash := m.hashString(string(it.UID))
	key := identKey{gr: m.internGR(it.Group, it.Resource), ns: m.internNS(it.Namespace), name: it.Name}
	identHash := m.identHash(key)
	// Both tables are large and a probe's first load is a cache miss: loading both first
	// slots before looking at either lets the two misses overlap, and when both are
	// empty (most of the time at load <= 1/2) neither key is present.
	uidFirst, identFirst := m.byUID.first(uidHash), m.byIdent.first(identHash)
	if uidFirst != 0 && it.UID != "" {
		if _, dup := m.uidIndexHash(it.UID, uidHash); dup {
			return ErrItemAlreadyExists
		}
	}
	if identFirst != 0 {
		if _, dup := m.identIndexHash(key, identHash); dup {
			return ErrItemAlreadyExists
		}
	}
	if len(m.items) >= 1<<31-1 {
		return fmt.Errorf("%w: manifest full (%d items)", ErrInvalidItem, len(m.items))
	}
	idx := int32(len(m.items))
	if len(m.items) == cap(m.items) {
		// Double (append grows large slices by a quarter, copying five times over).
		m.items = slices.Grow(m.items, max(64, len(m.items)))
	}
	m.items = append(m.items, it)
	it.m, it.idx, it.gr, it.ns = m, idx, key.gr, key.ns
	gr := &m.grs[key.gr]
	it.Group, it.Resource, it.Namespace = gr.Group, gr.Resource, m.nss[key.ns]
	name, uid := m.names.Pair(it.Name, string(it.UID))
	it.Name, it.UID = name, types.UID(uid)
	if kind := m.grKind[key.gr]; it.Kind == kind {
		it.Kind = kind
	} else {
		it.Kind = m.internString(it.Kind)
		m.grKind[key.gr] = it.Kind
	}
	if version := m.grVersion[key.gr]; it.Version == version {
		it.Version = version
	} else {
		it.Version = m.internString(it.Version)
		m.grVersion[key.gr] = it.Version
	}
	if it.UID != "" {
		m.byUID.insert(uidHash, idx)
	}
	m.byIdent.insert(identHash, idx)
	it.Labels = m.shared.share(manifestopt.Apply(it.Labels, m.projection.Labels))
	it.Annotations = m.shared.share(manifestopt.Apply(it.Annotations, m.projection.Annotations))
	if v, ok := it.Annotations[DependsOnAnnotation]; ok {
		m.dependsOn.add(dependsOnEntry{idx: idx, value: v})
	}
	m.graph, m.orderCache = nil, nil
	return nil
}

func (m *Manifest) internGR(group, resource string) int32 {
	k := schema.GroupResource{Group: group, Resource: resource}
	if id, ok := m.grIDs[k]; ok {
		return id
	}
	id := int32(len(m.grs))
	k = schema.GroupResource{Group: m.internString(group), Resource: strings.Clone(resource)}
	m.grs = append(m.grs, k)
	m.grKind = append(m.grKind, "")
	m.grVersion = append(m.grVersion, "")
	m.grIDs[k] = id
	return id
}

// internString returns the manifest's copy of s, made on first use.
func (m *Manifest) internString(s string) string {
	if c, ok := m.strs[s]; ok {
		return c
	}
	if m.strs == nil {
		m.strs = map[string]string{}
	}
	c := strings.Clone(s)
	m.strs[c] = c
	return c
}

func (m *Manifest) internNS(ns string) int32 {
	// Items come in runs of one namespace (an archive lists a namespace's objects
	// together; a Deployment's ReplicaSets and Pods share it), and comparing with the
	// last one is cheaper than hashing into a table of thousands.
	if last := m.lastNS; m.nss[last] == ns {
		return last
	}
	id, ok := m.nsIDs[ns]
	if !ok {
		id = int32(len(m.nss))
		ns = strings.Clone(ns)
		m.nss = append(m.nss, ns)
		m.nsIDs[ns] = id
	}
	m.lastNS = id
	return id
}

// AddVersion records that the item with this UID was also captured in version (an
// archive holding the same object under several version directories calls it once per
// extra directory). It returns true if the version was new for the item, false if it was
// already recorded or is the item's Version. An unknown UID is an error wrapping
// [ErrItemNotFound]; an empty version is ignored (false, nil). [Item.Versions] lists the
// result. Safe for concurrent use.
func (m *Manifest) AddVersion(uid types.UID, version string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	idx, ok := m.uidIndex(uid)
	if !ok {
		return false, fmt.Errorf("%w: uid %q", ErrItemNotFound, uid)
	}
	return m.addVersionLocked(idx, version), nil
}

// copied is an item of one manifest picked for another: a clone of the Item with what the
// manifest keeps of it beside the Item, the versions recorded by AddVersion and the Itemer
// it was added from.
type copied struct {
	it       *Item
	versions []string
	source   Itemer
}

// copyLocked returns a clone of the item at idx with its versions and source. m.mu must
// be held.
func (m *Manifest) copyLocked(idx int32) copied {
	return copied{it: m.items[idx].Clone(), versions: m.versionsLocked(idx), source: m.sourceLocked(idx)}
}

// addCopy adds an item copyLocked returned, with its versions and source, under one lock:
// no reader sees the item without them.
func (m *Manifest) addCopy(c copied) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.addLocked(c.it); err != nil {
		return err
	}
	for _, v := range c.versions {
		m.addVersionLocked(c.it.idx, v)
	}
	if c.source != nil {
		m.setSourceLocked(c.it.idx, c.source)
	}
	return nil
}

// Len returns the number of items.
func (m *Manifest) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.items)
}

// Get returns the item with this UID.
func (m *Manifest) Get(uid types.UID) (*Item, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	idx, ok := m.uidIndex(uid)
	if !ok {
		return nil, false
	}
	return m.items[idx], true
}

// Lookup returns the item with this identity: group and resource, namespace ("" for a
// cluster-scoped object) and name. The version plays no part.
func (m *Manifest) Lookup(gr schema.GroupResource, namespace, name string) (*Item, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	idx, ok := m.lookupLocked(gr, namespace, name)
	if !ok {
		return nil, false
	}
	return m.items[idx], true
}

func (m *Manifest) lookupLocked(gr schema.GroupResource, namespace, name string) (int32, bool) {
	g, ok := m.grIDs[gr]
	if !ok {
		return 0, false
	}
	ns, ok := m.nsIDs[namespace]
	if !ok {
		return 0, false
	}
	return m.identIndex(identKey{gr: g, ns: ns, name: name})
}

// Items returns every item in [Item.String] order. The slice is the caller's; the items
// are the manifest's.
func (m *Manifest) Items() []*Item {
	m.mu.Lock()
	defer m.mu.Unlock()
	order := m.orderLocked()
	out := make([]*Item, len(order))
	for k, idx := range order {
		out[k] = m.items[idx]
	}
	return out
}
