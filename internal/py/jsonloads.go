package py

import "strings"

// JSONValid is whether Python's json.loads accepts s: JSON plus NaN,
// Infinity and -Infinity, whitespace " \t\n\r" around the value.
func JSONValid(s string) bool {
	p := &jsonParser{s: s}
	p.ws()
	if !p.value(0) {
		return false
	}
	p.ws()
	return p.i == len(p.s)
}

type jsonParser struct {
	s string
	i int
}

// maxDepth stands for Python's recursion limit (a RecursionError there,
// not a verdict); documents nested this deep are refused.
const maxDepth = 900

func (p *jsonParser) ws() {
	for p.i < len(p.s) && strings.IndexByte(" \t\n\r", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *jsonParser) lit(w string) bool {
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

func (p *jsonParser) value(depth int) bool {
	if p.i >= len(p.s) || depth > maxDepth {
		return false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == 'n':
		return p.lit("null")
	case c == 't':
		return p.lit("true")
	case c == 'f':
		return p.lit("false")
	case c == 'N':
		return p.lit("NaN")
	case c == 'I':
		return p.lit("Infinity")
	case c == '-' && strings.HasPrefix(p.s[p.i:], "-Infinity"):
		return p.lit("-Infinity")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return false
}

func (p *jsonParser) object(depth int) bool {
	p.i++
	p.ws()
	if p.lit("}") {
		return true
	}
	for {
		if p.i >= len(p.s) || p.s[p.i] != '"' || !p.str() {
			return false
		}
		p.ws()
		if !p.lit(":") {
			return false
		}
		p.ws()
		if !p.value(depth + 1) {
			return false
		}
		p.ws()
		if p.lit("}") {
			return true
		}
		if !p.lit(",") {
			return false
		}
		p.ws()
	}
}

func (p *jsonParser) array(depth int) bool {
	p.i++
	p.ws()
	if p.lit("]") {
		return true
	}
	for {
		p.ws()
		if !p.value(depth + 1) {
			return false
		}
		p.ws()
		if p.lit("]") {
			return true
		}
		if !p.lit(",") {
			return false
		}
	}
}

// str reads a string: no control characters (strict=True), valid escapes.
func (p *jsonParser) str() bool {
	p.i++
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return false
			}
			e := p.s[p.i+1]
			if e == 'u' {
				if p.i+6 > len(p.s) || !isHex4(p.s[p.i+2:p.i+6]) {
					return false
				}
				p.i += 6
				continue
			}
			if strings.IndexByte(`"\/bfnrt`, e) < 0 {
				return false
			}
			p.i += 2
		default:
			p.i++
		}
	}
	return false
}

func isHex4(s string) bool {
	for i := 0; i < 4; i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// number reads -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)? (ASCII digits).
func (p *jsonParser) number() bool {
	p.lit("-")
	if p.lit("0") {
	} else if !p.digits() {
		return false
	}
	if p.i+1 < len(p.s) && p.s[p.i] == '.' && isDigit(p.s[p.i+1]) {
		p.i++
		p.digits()
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		j := p.i + 1
		if j < len(p.s) && (p.s[j] == '+' || p.s[j] == '-') {
			j++
		}
		if j < len(p.s) && isDigit(p.s[j]) {
			p.i = j
			p.digits()
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *jsonParser) digits() bool {
	start := p.i
	for p.i < len(p.s) && isDigit(p.s[p.i]) {
		p.i++
	}
	return p.i > start
}
