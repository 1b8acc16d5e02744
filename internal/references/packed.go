package references

import (
	"encoding/binary"
	"errors"
)

// Packed is a key and the Refs read from one object, in one string, for a reader that
// keeps the references of many objects: one allocation, where Refs' slices and strings are
// several (bench/NOTES.md, "The restore's memory at a million").
// Unpack gives back Refs equal to those packed, whose strings share the Packed's bytes.
// A Packed is for the process that packed it: Why strings are kept by their number in it.
type Packed string

// flags of a packed Ref.
const (
	packedLocal = 1 << iota
	packedReady
	packedServing
)

// errPacked is the error of Unpack for a string Pack did not make.
var errPacked = errors.New("references: not a packed Refs")

// Pack packs key and r. A Why that Read made is kept as its number, any other whole.
func Pack(key string, r Refs) Packed {
	var b []byte
	b = appendString(b, key)
	b = binary.AppendUvarint(b, uint64(len(r.Refs)))
	for _, ref := range r.Refs {
		var f byte
		if ref.Local {
			f |= packedLocal
		}
		if ref.Ready {
			f |= packedReady
		}
		if ref.Serving {
			f |= packedServing
		}
		b = append(b, f)
		for _, s := range []string{ref.Group, ref.Resource, ref.Kind, ref.Namespace, ref.Name} {
			b = appendString(b, s)
		}
		id := whyID(ref.Why)
		b = binary.AppendUvarint(b, id)
		if id == 0 {
			b = appendString(b, ref.Why)
		}
	}
	b = appendLabels(b, r.Selector)
	b = appendLabels(b, r.PodLabels)
	return Packed(b)
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// appendLabels appends 0 for nil, else 1 + the number of labels and their pairs.
func appendLabels(b []byte, l Labels) []byte {
	if l == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(l.Len())+1)
	for _, s := range l {
		b = appendString(b, s)
	}
	return b
}

// Key returns the key p was packed with, sharing p's bytes.
func (p Packed) Key() string {
	d := decoder{s: string(p)}
	return d.string()
}

// Unpack returns the Refs p holds; an error only for a string Pack did not make.
func (p Packed) Unpack() (Refs, error) {
	d := decoder{s: string(p)}
	d.string() // the key
	var r Refs
	n := d.uvarint()
	for i := uint64(0); i < n && d.err == nil; i++ {
		f := d.byte()
		ref := Ref{Local: f&packedLocal != 0, Ready: f&packedReady != 0, Serving: f&packedServing != 0}
		for _, s := range []*string{&ref.Group, &ref.Resource, &ref.Kind, &ref.Namespace, &ref.Name} {
			*s = d.string()
		}
		if id := d.uvarint(); id == 0 {
			ref.Why = d.string()
		} else if w, ok := whyOfID(id); ok {
			ref.Why = w
		} else {
			d.err = errPacked
		}
		r.Refs = append(r.Refs, ref)
	}
	r.Selector, r.PodLabels = d.labels(), d.labels()
	if d.err == nil && d.s != "" {
		d.err = errPacked
	}
	if d.err != nil {
		return Refs{}, d.err
	}
	return r, nil
}

// decoder reads what Pack wrote; the first error sticks, and every read after it gives
// zero values.
type decoder struct {
	s   string
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	var v uint64
	for i := 0; i < len(d.s) && i < binary.MaxVarintLen64; i++ {
		c := d.s[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			d.s = d.s[i+1:]
			return v
		}
	}
	d.err = errPacked
	return 0
}

func (d *decoder) byte() byte {
	if d.err != nil || d.s == "" {
		d.err = errPacked
		return 0
	}
	c := d.s[0]
	d.s = d.s[1:]
	return c
}

// labels reads what appendLabels wrote.
func (d *decoder) labels() Labels {
	n := d.uvarint()
	if n == 0 {
		return nil
	}
	l := make(Labels, 0, 2*min(n-1, uint64(len(d.s))))
	for i := uint64(0); i < 2*(n-1) && d.err == nil; i++ {
		l = append(l, d.string())
	}
	return l
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.s)) {
		d.err = errPacked
		return ""
	}
	s := d.s[:n]
	d.s = d.s[n:]
	return s
}
