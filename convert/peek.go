package convert

// peekHead reads apiVersion, kind, metadata.name and metadata.namespace from raw, a JSON
// value the review decoder has already validated, without decoding the rest. ok is false
// when raw is not an object or uses escapes in those places; the caller then decodes the
// head with encoding/json, which gives the same answer and a proper error.
func peekHead(raw []byte) (h rawHead, ok bool) {
	p := peeker{b: raw}
	ok = p.object(func(key []byte) bool {
		switch string(key) {
		case "apiVersion":
			return p.str(&h.APIVersion)
		case "kind":
			return p.str(&h.Kind)
		case "metadata":
			if p.peek() != '{' {
				// null decodes as no metadata; anything else is json's to refuse.
				return p.peek() == 'n' && p.skip()
			}
			return p.object(func(key []byte) bool {
				switch string(key) {
				case "name":
					return p.str(&h.Metadata.Name)
				case "namespace":
					return p.str(&h.Metadata.Namespace)
				default:
					return p.skip()
				}
			})
		default:
			return p.skip()
		}
	})
	return h, ok && p.rest()
}

type peeker struct {
	b []byte
	i int
}

func (p *peeker) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *peeker) peek() byte {
	p.ws()
	if p.i >= len(p.b) {
		return 0
	}
	return p.b[p.i]
}

// rest reports whether only whitespace is left.
func (p *peeker) rest() bool {
	p.ws()
	return p.i == len(p.b)
}

// object walks an object, calling member with each key positioned at its value.
func (p *peeker) object(member func(key []byte) bool) bool {
	if p.peek() != '{' {
		return false
	}
	p.i++
	if p.peek() == '}' {
		p.i++
		return true
	}
	for {
		key, ok := p.bytes()
		if !ok || p.peek() != ':' {
			return false
		}
		p.i++
		if !member(key) {
			return false
		}
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return true
		default:
			return false
		}
	}
}

// str reads a string without escapes into s.
func (p *peeker) str(s *string) bool {
	b, ok := p.bytes()
	if ok {
		*s = string(b)
	}
	return ok
}

// bytes reads a string without escapes; the result aliases the input.
func (p *peeker) bytes() ([]byte, bool) {
	if p.peek() != '"' {
		return nil, false
	}
	start := p.i + 1
	for j := start; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false // escapes and non-ASCII: leave them to encoding/json
		case c == '"':
			p.i = j + 1
			return p.b[start:j], true
		}
	}
	return nil, false
}

// skip passes over one value of any kind.
func (p *peeker) skip() bool {
	depth := 0
	p.ws()
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch c {
		case '"':
			p.i++
			for p.i < len(p.b) && p.b[p.i] != '"' {
				if p.b[p.i] == '\\' {
					p.i++
				}
				p.i++
			}
			if p.i >= len(p.b) {
				return false
			}
			p.i++
		case '{', '[':
			depth++
			p.i++
		case '}', ']':
			if depth == 0 {
				return true
			}
			depth--
			p.i++
		case ',':
			if depth == 0 {
				return true
			}
			p.i++
		default:
			p.i++
		}
		if depth == 0 && (c == '"' || c == '}' || c == ']') {
			return true
		}
	}
	return depth == 0
}
