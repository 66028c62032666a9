package py

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SplitTopLevel is lm-eval's CLI split_top_level: s split on the commas
// outside brackets, braces, parentheses and quotes, empty parts dropped
// ("until=[\"a\",\"b\"],x=1" is two parts).
func SplitTopLevel(s string) []string {
	var parts []string
	var quote rune
	depth, start := 0, 0
	for i, c := range s {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case strings.ContainsRune("[({", c):
			depth++
		case strings.ContainsRune("])}", c):
			depth = max(depth-1, 0)
		case c == ',' && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	parts = append(parts, s[start:])
	out := parts[:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// CLIValue types one key=value value as lm-eval's CLI does
// (handle_cli_value_string): true/false in any case, a string of digits as
// an int, else a float, else a Python literal (LiteralEval: lists, quoted
// strings, None), else the string itself.
func CLIValue(s string) any {
	switch strings.ToLower(s) {
	case "true":
		return true
	case "false":
		return false
	}
	if s != "" && strings.Trim(s, "0123456789") == "" {
		if n, err := strconv.Atoi(s); err == nil {
			return n
		}
	}
	if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !strings.HasPrefix(strings.ToLower(strings.TrimSpace(s)), "0x") {
		return f
	}
	if v, err := LiteralEval(s); err == nil {
		return v
	}
	return s
}

// LiteralEval is Python's ast.literal_eval for the literals a command line
// carries: str ('…' or "…", with \n \t \\ \' \" \xhh \uhhhh escapes), int,
// float, True, False, None, lists and tuples ([]any) and dicts with string
// keys (*Map[any]).
func LiteralEval(s string) (any, error) {
	p := &litParser{s: s}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if p.skip(); p.i != len(p.s) {
		return nil, fmt.Errorf("unexpected %q after the literal", p.s[p.i:])
	}
	return v, nil
}

type litParser struct {
	s string
	i int
}

func (p *litParser) skip() {
	for p.i < len(p.s) && strings.IndexByte(" \t\n\r", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *litParser) value() (any, error) {
	p.skip()
	if p.i >= len(p.s) {
		return nil, fmt.Errorf("missing value")
	}
	switch c := p.s[p.i]; {
	case c == '\'' || c == '"':
		return p.strs(c)
	case c == '[' || c == '(':
		return p.list(map[byte]byte{'[': ']', '(': ')'}[c])
	case c == '{':
		return p.dict()
	}
	j := p.i
	for j < len(p.s) && strings.IndexByte(",]}) \t\n\r:", p.s[j]) < 0 {
		j++
	}
	word := p.s[p.i:j]
	p.i = j
	switch word {
	case "True":
		return true, nil
	case "False":
		return false, nil
	case "None":
		return nil, nil
	}
	if n, err := strconv.Atoi(word); err == nil {
		return n, nil
	}
	if f, err := strconv.ParseFloat(word, 64); err == nil && !strings.ContainsAny(word, "xXnN") {
		return f, nil
	}
	return nil, fmt.Errorf("%q is not a Python literal", word)
}

// list reads [a, b] or (a, b) up to end.
func (p *litParser) list(end byte) ([]any, error) {
	p.i++
	out := []any{}
	for {
		if p.skip(); p.i < len(p.s) && p.s[p.i] == end {
			p.i++
			return out, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if p.skip(); p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
		} else if p.i >= len(p.s) || p.s[p.i] != end {
			return nil, fmt.Errorf("missing %q", end)
		}
	}
}

// dict reads {"k": v, …}.
func (p *litParser) dict() (*Map[any], error) {
	p.i++
	out := NewMap[any]()
	for {
		if p.skip(); p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return out, nil
		}
		k, err := p.value()
		ks, ok := k.(string)
		if err != nil || !ok {
			return nil, fmt.Errorf("dict keys must be strings")
		}
		if p.skip(); p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, fmt.Errorf("missing ':' after %q", ks)
		}
		p.i++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out.Set(ks, v)
		if p.skip(); p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
		} else if p.i >= len(p.s) || p.s[p.i] != '}' {
			return nil, fmt.Errorf("missing '}'")
		}
	}
}

// strs reads one string literal or several adjacent ones, which Python
// concatenates ('a' "b" is 'ab').
func (p *litParser) strs(q byte) (string, error) {
	out, err := p.str(q)
	for err == nil {
		p.skip()
		if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
			break
		}
		var more string
		more, err = p.str(p.s[p.i])
		out += more
	}
	return out, err
}

// str reads a quoted string, single- or triple-quoted, with Python's
// escapes.
func (p *litParser) str(q byte) (string, error) {
	var b strings.Builder
	end := string(q)
	if strings.HasPrefix(p.s[p.i:], strings.Repeat(end, 3)) {
		end = strings.Repeat(end, 3)
		p.i += 2
	}
	for p.i++; p.i < len(p.s); {
		c := p.s[p.i]
		switch {
		case strings.HasPrefix(p.s[p.i:], end):
			p.i += len(end)
			return b.String(), nil
		case c == '\\' && p.i+1 < len(p.s):
			if err := p.escape(&b); err != nil {
				return "", err
			}
		default:
			r, n := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteRune(r)
			p.i += n
		}
	}
	return "", fmt.Errorf("unterminated string")
}

// escape writes the escape sequence at p.i (a backslash) and moves past it.
func (p *litParser) escape(b *strings.Builder) error {
	c := p.s[p.i+1]
	if r, ok := map[byte]string{'n': "\n", 't': "\t", 'r': "\r", '\\': "\\", '\'': "'", '"': "\"", '0': "\x00",
		'a': "\a", 'b': "\b", 'f': "\f", 'v': "\v", '\n': ""}[c]; ok {
		b.WriteString(r)
		p.i += 2
		return nil
	}
	width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if width == 0 {
		b.WriteString(p.s[p.i : p.i+2]) // Python keeps unknown escapes
		p.i += 2
		return nil
	}
	if p.i+2+width > len(p.s) {
		return fmt.Errorf("truncated \\%c escape", c)
	}
	n, err := strconv.ParseUint(p.s[p.i+2:p.i+2+width], 16, 32)
	if err != nil {
		return fmt.Errorf("bad \\%c escape", c)
	}
	b.WriteRune(rune(n))
	p.i += 2 + width
	return nil
}
