package manifest

import (
	"slices"
	"strconv"
	"strings"
)

// Versions beyond Item.Version are stored as sets shared between items: in a backup every
// item of a resource is usually captured in the same versions, so a manifest holds a few
// distinct sets whatever its size. versionTable interns them; a manifest keeps one int32
// per item, the id of the item's set (0, the empty set, for an item without).
type versionTable struct {
	sets [][]string            // by id, each in sortVersions order and never modified; sets[0] is empty
	ids  map[string]int32      // set id by setKey
	next map[versionStep]int32 // the set a version added to a set makes, as found so far
}

// versionStep is the adding of version v to the set from.
type versionStep struct {
	from int32
	v    string
}

// add returns the id of the set from with v added; v must not be in it, and must be a
// string the table may keep.
func (t *versionTable) add(from int32, v string) int32 {
	if t.sets == nil {
		t.sets = [][]string{nil}
		t.ids = map[string]int32{setKey(nil): 0}
		t.next = map[versionStep]int32{}
	}
	if id, ok := t.next[versionStep{from, v}]; ok {
		return id
	}
	set := append(slices.Clone(t.sets[from]), v)
	sortVersions(set)
	key := setKey(set)
	id, ok := t.ids[key]
	if !ok {
		id = int32(len(t.sets))
		t.sets = append(t.sets, set[:len(set):len(set)])
		t.ids[key] = id
	}
	t.next[versionStep{from, v}] = id
	return id
}

// setKey encodes a sorted set of versions, each prefixed with its length so that no two
// sets share a key.
func setKey(set []string) string {
	var b strings.Builder
	for _, v := range set {
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteByte(':')
		b.WriteString(v)
	}
	return b.String()
}

// versionsLocked returns the versions recorded for the item at idx beyond its Version, in
// sortVersions order: the manifest's slice, not to be modified. m.mu must be held.
func (m *Manifest) versionsLocked(idx int32) []string {
	if int(idx) >= len(m.versionOf) {
		return nil
	}
	return m.versions.sets[m.versionOf[idx]]
}

// addVersionLocked is AddVersion of the item at idx. m.mu must be held.
func (m *Manifest) addVersionLocked(idx int32, version string) bool {
	if version == "" || version == m.items[idx].Version || slices.Contains(m.versionsLocked(idx), version) {
		return false
	}
	var from int32
	if int(idx) < len(m.versionOf) {
		from = m.versionOf[idx]
	}
	id := m.versions.add(from, m.internString(version))
	if int(idx) >= len(m.versionOf) {
		// Cover every item so far, with room for as many as m.items has: the table grows
		// when m.items does, not item by item.
		if n := len(m.items); n <= cap(m.versionOf) {
			m.versionOf = m.versionOf[:n]
		} else {
			grown := make([]int32, n, cap(m.items))
			copy(grown, m.versionOf)
			m.versionOf = grown
		}
	}
	m.versionOf[idx] = id
	return true
}
