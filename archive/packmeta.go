package archive

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/backupkit/backupkit/manifest"
)

// writerProjection is what Writer's manifest keeps of labels and annotations itself: the
// depends-on annotation, which makes the manifest's edges. The rest of them is packed
// (packMeta) beside the manifest, and written whole into manifest.json.
var writerProjection = manifest.Projection{Labels: manifest.Keys(), Annotations: manifest.Keys(manifest.DependsOnAnnotation)}

// packMeta encodes an item's labels and annotations in one string: for each map, its
// length plus one (0 for a nil map), then its entries in key order, each key and value
// as its length and bytes (lengths as uvarints). Two Go maps of a few entries cost about
// 600 bytes; their packed form, their bytes and a few more.
func packMeta(labels, annotations map[string]string) string {
	size := 2
	for _, m := range [2]map[string]string{labels, annotations} {
		for k, v := range m {
			size += len(k) + len(v) + 2*binary.MaxVarintLen32
		}
	}
	b := make([]byte, 0, size)
	for _, m := range [2]map[string]string{labels, annotations} {
		if m == nil {
			b = binary.AppendUvarint(b, 0)
			continue
		}
		b = binary.AppendUvarint(b, uint64(len(m))+1)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			b = binary.AppendUvarint(b, uint64(len(k)))
			b = append(b, k...)
			b = binary.AppendUvarint(b, uint64(len(m[k])))
			b = append(b, m[k]...)
		}
	}
	return string(b)
}

var errPacked = errors.New("archive: packed metadata: malformed")

// unpackMeta decodes what packMeta encoded. The strings of the maps share s's bytes.
func unpackMeta(s string) (labels, annotations map[string]string, err error) {
	var out [2]map[string]string
	for i := range out {
		n, rest, ok := uvarint(s)
		if !ok {
			return nil, nil, errPacked
		}
		s = rest
		if n == 0 {
			continue
		}
		n--
		if n > uint64(len(s)) {
			return nil, nil, errPacked
		}
		m := make(map[string]string, n)
		for range n {
			var k, v string
			if k, s, ok = lenPrefixed(s); !ok {
				return nil, nil, errPacked
			}
			if v, s, ok = lenPrefixed(s); !ok {
				return nil, nil, errPacked
			}
			m[k] = v
		}
		out[i] = m
	}
	if s != "" {
		return nil, nil, errPacked
	}
	return out[0], out[1], nil
}

func uvarint(s string) (uint64, string, bool) {
	var x uint64
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, s[i+1:], true
		}
	}
	return 0, s, false
}

func lenPrefixed(s string) (string, string, bool) {
	n, rest, ok := uvarint(s)
	if !ok || n > uint64(len(rest)) {
		return "", s, false
	}
	return rest[:n], rest[n:], true
}

// packedMeta is Writer's store of its manifest items' labels and annotations, by
// manifest position.
type packedMeta struct {
	m      *manifest.Manifest
	packed []string
	err    error // the first entry of(it) could not decode
}

// add records the metadata of the item the manifest has just added.
func (p *packedMeta) add(labels, annotations map[string]string) {
	p.packed = append(p.packed, packMeta(labels, annotations))
}

// of returns an item's labels and annotations, for manifest.WithMetadataOf.
func (p *packedMeta) of(it *manifest.Item) (labels, annotations map[string]string) {
	pos, ok := p.m.Position(it)
	if !ok || pos >= len(p.packed) {
		return it.Labels, it.Annotations
	}
	labels, annotations, err := unpackMeta(p.packed[pos])
	if err != nil && p.err == nil { // packMeta's own output: not expected
		p.err = fmt.Errorf("%w: item %s", err, it)
	}
	return labels, annotations
}

// whole returns a manifest holding the items of p.m with their labels and annotations,
// and the versions they were recorded in.
func (p *packedMeta) whole() *manifest.Manifest {
	out := manifest.New()
	out.Grow(p.m.Len())
	for _, it := range p.m.Items() {
		c := it.Clone()
		c.Labels, c.Annotations = p.of(it)
		_, _ = out.Add(c) // the items of one manifest cannot collide
		for _, v := range it.Versions() {
			if v != it.Version {
				_, _ = out.AddVersion(c.UID, v)
			}
		}
	}
	return out
}
