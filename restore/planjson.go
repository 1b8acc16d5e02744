package restore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteJSON writes p as JSON to w, the bytes a json.Encoder with SetIndent("", indent)
// writes for it (compact for indent ""; a newline at the end), but an item at a time: the
// waves, one item per object to create, are encoded one item after the other into a buffer
// of fixed size, so writing the plan of a million items holds no copy of the document. The
// rest of the plan (its resources, skipped and filtered items, findings) is encoded whole.
func (p *Plan) WriteJSON(w io.Writer, indent string) error { return p.writeJSON(w, indent, false) }

// writeJSON is WriteJSON; open leaves the plan's object open for more fields, without its
// closing brace and the newline after it.
func (p *Plan) writeJSON(w io.Writer, indent string, open bool) error {
	head := *p
	head.Waves = nil
	b, err := json.Marshal(&head)
	if err != nil {
		return fmt.Errorf("restore: writing the plan: %w", err)
	}
	marker := []byte(`,"waves":null,`) // "," then '"' is never inside a string: '"' is escaped
	if indent != "" {
		var ib bytes.Buffer
		if err := json.Indent(&ib, b, "", indent); err != nil {
			return fmt.Errorf("restore: writing the plan: %w", err)
		}
		b = ib.Bytes()
		marker = []byte("\n" + indent + `"waves": null,`) // no string holds a raw newline
	}
	at := bytes.Index(b, marker)
	if at < 0 {
		return fmt.Errorf("restore: writing the plan: no waves field in %d bytes of JSON", len(b))
	}
	before, after := b[:at+len(marker)-len("null,")], b[at+len(marker)-len(","):]

	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(before)
	if err := p.writeWaves(bw, indent); err != nil {
		return err
	}
	if open {
		after = bytes.TrimSuffix(bytes.TrimSuffix(after, []byte("}")), []byte("\n"))
		bw.Write(after)
	} else {
		bw.Write(after)
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("restore: writing the plan: %w", err)
	}
	return nil
}

// writeWaves writes p.Waves as json.Indent would lay them out at the depth of a field of
// the plan's object (compact for indent "").
func (p *Plan) writeWaves(bw *bufio.Writer, indent string) error {
	if p.Waves == nil {
		bw.WriteString("null")
		return nil
	}
	if len(p.Waves) == 0 {
		bw.WriteString("[]")
		return nil
	}
	line := func(depth int) {
		if indent != "" {
			bw.WriteByte('\n')
			bw.WriteString(strings.Repeat(indent, depth))
		}
	}
	itemPrefix := strings.Repeat(indent, 3)
	var ib bytes.Buffer
	bw.WriteByte('[')
	for k, wave := range p.Waves {
		if k > 0 {
			bw.WriteByte(',')
		}
		line(2)
		switch {
		case wave == nil:
			bw.WriteString("null")
			continue
		case len(wave) == 0:
			bw.WriteString("[]")
			continue
		}
		bw.WriteByte('[')
		for i, it := range wave {
			if i > 0 {
				bw.WriteByte(',')
			}
			line(3)
			b, err := json.Marshal(it)
			if err != nil {
				return fmt.Errorf("restore: writing the plan: item %s: %w", it.item(), err)
			}
			if indent != "" {
				ib.Reset()
				if err := json.Indent(&ib, b, itemPrefix, indent); err != nil {
					return fmt.Errorf("restore: writing the plan: item %s: %w", it.item(), err)
				}
				b = ib.Bytes()
			}
			bw.Write(b)
		}
		line(2)
		bw.WriteByte(']')
	}
	line(1)
	bw.WriteByte(']')
	return nil
}
