package archive

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/backupkit/backupkit/internal/layout"
	"github.com/backupkit/backupkit/manifest"
)

// writerItems is what Writer keeps, until Close, of each item of the manifest it builds.
// Not a manifest.Item (seven strings, two maps and a slice of its own, and a manifest's two
// indexes of it) but a record of 16 bytes: the item's type (group, version, resource, kind)
// and directory (group, resource, namespace) by number, and where its name, uid, owner
// references, labels and annotations are, packed one after the other in an arena of large
// byte chunks (a uid of the API server's UUID form in its 16 bytes, see appendUID; a
// hexadecimal label or annotation value in half its bytes, see appendValue). The uids and
// identities taken are kept as 96-bit hashes (a nameSet, with the coordinates of the files
// added: see takenKey), so that an item the manifest would refuse as a repeat is refused
// the same way.
type writerItems struct {
	types   numbered[itemType]
	dirs    numbered[itemDir]
	paths   [][]byte // by directory: its String without the name and ".json"
	recs    []itemRecord
	arena   arena
	keys    keyTable // label and annotation keys, numbered
	taken   *nameSet // the keys of the files added, and of the uids and identities recorded (see takenKey)
	scratch []byte
}

type itemType struct{ group, version, resource, kind string }

// itemDir is an item's directory in the legacy layout.
type itemDir struct{ group, resource, namespace string }

// numbered numbers the values it is given, in the order it first meets them.
type numbered[K comparable] struct {
	list []K
	num  map[K]uint32
}

// number returns k's number; a value met first is kept as keep(k) returns it (a copy of
// its strings, which may share a larger buffer).
func (n *numbered[K]) number(k K, keep func(K) K) (num uint32, added bool) {
	if num, ok := n.num[k]; ok {
		return num, false
	}
	if n.num == nil {
		n.num = map[K]uint32{}
	}
	k = keep(k)
	num = uint32(len(n.list))
	n.list = append(n.list, k)
	n.num[k] = num
	return num, true
}

type itemRecord struct {
	typ, dir uint32
	at       uint64 // its packed name, uid, owners, labels and annotations in the arena
}

func newWriterItems() *writerItems {
	return &writerItems{taken: newNameSet()}
}

// errManifestFull is what a manifest says of an item past its capacity.
var errManifestFull = fmt.Errorf("%w: manifest full", manifest.ErrInvalidItem)

// Keys of taken: a prefix saying what the key stands for, then its parts, each after a
// NUL. Built by concatenation, a key short enough stays on the stack (taken keeps hashes).
const (
	keyCoordinates = "c" // a file added: resource, version, namespace and name (see Writer.Add)
	keyUID         = "u" // an item's uid
	keyIdentity    = "i" // an item's identity: group, resource, namespace and name
	keyAtPath      = "m" // an identity that is also its item's legacy path: both at once
)

// takenKey returns the key in taken of four parts, marked with kind.
func takenKey(kind, a, b, c, d string) string {
	return kind + "\x00" + a + "\x00" + b + "\x00" + c + "\x00" + d
}

// add records it, or returns manifest.ErrItemAlreadyExists for an item whose uid or identity
// is recorded already, as manifest.Manifest.Add would. atPath says that its identity is
// also the coordinates of its legacy path: its key then stands for both, and the Writer
// keeps no other for the file (one key fewer an item, see Writer.Add).
func (w *writerItems) add(it *manifest.Item, atPath bool) error {
	uidKey := keyUID + "\x00" + string(it.UID)
	atPathKey := takenKey(keyAtPath, it.Group, it.Resource, it.Namespace, it.Name)
	identityKey := takenKey(keyIdentity, it.Group, it.Resource, it.Namespace, it.Name)
	if it.UID != "" && w.taken.has(uidKey) || w.taken.has(atPathKey) || w.taken.has(identityKey) {
		return manifest.ErrItemAlreadyExists
	}
	if len(w.recs) >= 1<<31-1 {
		return errManifestFull
	}
	if it.UID != "" {
		w.taken.add(uidKey)
	}
	if atPath {
		w.taken.add(atPathKey)
	} else {
		w.taken.add(identityKey)
	}
	typ, _ := w.types.number(itemType{it.Group, it.Version, it.Resource, it.Kind}, func(t itemType) itemType {
		return itemType{strings.Clone(t.group), strings.Clone(t.version), strings.Clone(t.resource), strings.Clone(t.kind)}
	})
	dir, added := w.dirs.number(itemDir{it.Group, it.Resource, it.Namespace}, func(d itemDir) itemDir {
		return itemDir{strings.Clone(d.group), strings.Clone(d.resource), strings.Clone(d.namespace)}
	})
	if added {
		w.paths = append(w.paths, []byte(strings.TrimSuffix(layout.ItemPath(it.Resource, it.Group, "", it.Namespace, ""), layout.ItemExt)))
	}
	b := appendString(w.scratch[:0], it.Name)
	b = appendUID(b, string(it.UID))
	b = appendOwners(b, it.OwnerReferences)
	b = appendMeta(b, &w.keys, it.Labels, it.Annotations)
	w.scratch = b
	w.recs = append(w.recs, itemRecord{typ: typ, dir: dir, at: w.arena.add(b)})
	return nil
}

// len is the number of items recorded.
func (w *writerItems) len() int { return len(w.recs) }

// nameUID returns the name and uid of item i, sharing the arena's bytes (the uid buf's,
// when it is packed as a UUID).
func (w *writerItems) nameUID(i int, buf *[uuidLen]byte) (name, uid []byte) {
	b := w.arena.get(w.recs[i].at)
	name, b, _ = lenPrefixed(b)
	uid, _, _ = readUID(b, buf)
	return name, uid
}

// item returns item i as a manifest.Item of its own, in no manifest.
func (w *writerItems) item(i int) (*manifest.Item, error) {
	r := w.recs[i]
	t, d := w.types.list[r.typ], w.dirs.list[r.dir]
	s := string(w.arena.get(r.at))
	name, s, ok1 := lenPrefixed(s)
	uid, s, ok2 := readUIDString(s)
	owners, s, err := unpackOwners(s)
	if !ok1 || !ok2 || err != nil {
		return nil, fmt.Errorf("%w: item %d", errPacked, i)
	}
	labels, annotations, err := unpackMeta(&w.keys, s)
	if err != nil {
		return nil, fmt.Errorf("%w: item %d", err, i)
	}
	return &manifest.Item{Group: t.group, Version: t.version, Resource: t.resource, Kind: t.kind,
		Namespace: d.namespace, Name: name, UID: types.UID(uid),
		Labels: labels, Annotations: annotations, OwnerReferences: owners}, nil
}

// identity is item i's group and resource, namespace, name and uid, for versionLinker.
func (w *writerItems) identity(i int) (schema.GroupResource, string, string, types.UID) {
	d := w.dirs.list[w.recs[i].dir]
	var buf [uuidLen]byte
	name, uid := w.nameUID(i, &buf)
	return schema.GroupResource{Group: d.group, Resource: d.resource}, d.namespace, string(name), types.UID(uid)
}

// order returns the items' numbers in the manifest's order: byte-wise order of their
// String, the uid breaking a tie (manifest.Write checks it).
func (w *writerItems) order() []int32 {
	out := make([]int32, len(w.recs))
	for i := range out {
		out[i] = int32(i)
	}
	ext := []byte(layout.ItemExt)
	var bufA, bufB [uuidLen]byte
	slices.SortFunc(out, func(a, b int32) int {
		na, ua := w.nameUID(int(a), &bufA)
		nb, ub := w.nameUID(int(b), &bufB)
		pa := [3][]byte{w.paths[w.recs[a].dir], na, ext}
		pb := [3][]byte{w.paths[w.recs[b].dir], nb, ext}
		if c := layout.ComparePaths(pa[:], pb[:]); c != 0 {
			return c
		}
		return bytes.Compare(ua, ub)
	})
	return out
}

// appendString appends s as a uvarint of its length and its bytes.
func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Owner reference flags: which of Controller and BlockOwnerDeletion are set, and to what.
const (
	ownerController = 1 << iota
	ownerControllerTrue
	ownerBlock
	ownerBlockTrue
)

// appendOwners appends refs: 0 for nil, else their count plus one, and for each its
// apiVersion, kind, name and uid (see appendString) and a byte of flags.
func appendOwners(b []byte, refs []metav1.OwnerReference) []byte {
	if refs == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(refs))+1)
	for _, r := range refs {
		for _, s := range [...]string{r.APIVersion, r.Kind, r.Name, string(r.UID)} {
			b = appendString(b, s)
		}
		var f byte
		if r.Controller != nil {
			f |= ownerController
			if *r.Controller {
				f |= ownerControllerTrue
			}
		}
		if r.BlockOwnerDeletion != nil {
			f |= ownerBlock
			if *r.BlockOwnerDeletion {
				f |= ownerBlockTrue
			}
		}
		b = append(b, f)
	}
	return b
}

var errPackedOwners = errors.New("archive: packed owner references: malformed")

// unpackOwners decodes what appendOwners appended, returning the rest of s.
func unpackOwners(s string) ([]metav1.OwnerReference, string, error) {
	n, s, ok := uvarint(s)
	if !ok {
		return nil, s, errPackedOwners
	}
	if n == 0 {
		return nil, s, nil
	}
	n--
	if n > uint64(len(s)) {
		return nil, s, errPackedOwners
	}
	refs := make([]metav1.OwnerReference, n)
	for k := range refs {
		var f [4]string
		for i := range f {
			if f[i], s, ok = lenPrefixed(s); !ok {
				return nil, s, errPackedOwners
			}
		}
		if s == "" {
			return nil, s, errPackedOwners
		}
		flags := s[0]
		s = s[1:]
		r := metav1.OwnerReference{APIVersion: f[0], Kind: f[1], Name: f[2], UID: types.UID(f[3])}
		if flags&ownerController != 0 {
			r.Controller = boolPtr(flags&ownerControllerTrue != 0)
		}
		if flags&ownerBlock != 0 {
			r.BlockOwnerDeletion = boolPtr(flags&ownerBlockTrue != 0)
		}
		refs[k] = r
	}
	return refs, s, nil
}

// itemVersions are the other versions items were recorded in, one entry a version (most
// items have none), added in the order of the items.
type itemVersions struct {
	items    []int32 // ascending
	versions []string
}

// add records version v of item i; i is not less than any item added before.
func (x *itemVersions) add(i int, v string) {
	x.items = append(x.items, int32(i))
	x.versions = append(x.versions, v)
}

// of returns the versions of item i.
func (x *itemVersions) of(i int) []string {
	lo, _ := slices.BinarySearch(x.items, int32(i))
	hi := lo
	for hi < len(x.items) && x.items[hi] == int32(i) {
		hi++
	}
	return x.versions[lo:hi:hi]
}

func boolPtr(v bool) *bool { return &v }

// arenaChunk is the size of an arena's chunks: large against an item's packed bytes (a few
// hundred), small against a backup's.
const arenaChunk = 256 << 10

// arena holds byte strings one after the other in chunks, each prefixed with its length; a
// string is never split between two chunks (a longer one gets a chunk of its own).
type arena struct{ chunks [][]byte }

// add copies b into the arena and returns where it is.
func (a *arena) add(b []byte) uint64 {
	need := len(b) + binary.MaxVarintLen64
	if len(a.chunks) == 0 || cap(a.chunks[len(a.chunks)-1])-len(a.chunks[len(a.chunks)-1]) < need {
		a.chunks = append(a.chunks, make([]byte, 0, max(arenaChunk, need)))
	}
	c := &a.chunks[len(a.chunks)-1]
	at := uint64(len(a.chunks)-1)<<32 | uint64(len(*c))
	*c = binary.AppendUvarint(*c, uint64(len(b)))
	*c = append(*c, b...)
	return at
}

// get returns the bytes add stored at at, sharing the arena's.
func (a *arena) get(at uint64) []byte {
	c := a.chunks[at>>32][uint32(at):]
	n, k := binary.Uvarint(c)
	return c[k : k+int(n)]
}
