package restore

import (
	"bufio"
	"fmt"
	"io"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// WriteJSON writes p as JSON to w, the bytes a json.Encoder with SetIndent("", indent)
// writes for it (compact for indent ""; a newline at the end), streaming: the document is
// encoded into a buffer of fixed size as it goes, so writing the plan of a million items
// holds no copy of the document.
func (p *Plan) WriteJSON(w io.Writer, indent string) error { return p.writeJSON(w, indent, false) }

// writeJSON is WriteJSON; open leaves the plan's object open for more fields, without its
// closing brace (and the newline before it, indented) and the newline after it.
func (p *Plan) writeJSON(w io.Writer, indent string, open bool) error {
	// go-json-experiment's encoder with encoding/json's options writes encoding/json's
	// bytes (HTML characters escaped, map keys sorted, nil slices null, ...) without
	// holding the document: bench/NOTES.md's Restore section compares them.
	opts := []jsonv2.Options{jsonv1.DefaultOptionsV1()}
	if indent != "" {
		opts = append(opts, jsontext.WithIndent(indent))
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var out io.Writer = bw
	closing := "}"
	if indent != "" {
		closing = "\n}"
	}
	hold := &holdBack{w: bw, n: len(closing)}
	if open {
		out = hold
	}
	if err := jsonv2.MarshalWrite(out, p, opts...); err != nil {
		return fmt.Errorf("restore: writing the plan: %w", err)
	}
	switch {
	case open && string(hold.held) != closing:
		return fmt.Errorf("restore: writing the plan: it ends with %q, not %q", hold.held, closing)
	case !open:
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("restore: writing the plan: %w", err)
	}
	return nil
}

// holdBack passes on to w all it is given but the last n bytes, which it holds.
type holdBack struct {
	w    io.Writer
	n    int
	held []byte
}

func (h *holdBack) Write(b []byte) (int, error) {
	all := append(h.held, b...)
	cut := max(len(all)-h.n, 0)
	if _, err := h.w.Write(all[:cut]); err != nil {
		return 0, err
	}
	h.held = append(h.held[:0:0], all[cut:]...)
	return len(b), nil
}
