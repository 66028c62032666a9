package py

import (
	"fmt"
	"strings"

	"github.com/dlclark/regexp2"
)

// Regexp is a compiled Python `re` pattern. It runs on dlclark/regexp2
// (a backtracking .NET-syntax engine) after translating the few constructs
// whose meaning differs, which brings it much closer to Python than Go's
// RE2-based regexp:
//
//   - `$` matches at the end of the text or before a final "\n" (Python and
//     .NET agree; Go's `$` is only the end of text), so lm-eval's gsm8k
//     regex `\.$` strips a "." before a trailing newline here too.
//   - `\d`, `\w`, `\s`, `\b` are Unicode-aware (Go's are ASCII). `\s` is
//     widened with U+001C..U+001F, which Python counts as whitespace; `\w`
//     becomes [\p{L}\p{N}_] (Python: str.isalnum() or "_"). Inside a
//     character class `\S` and `\W` are kept as .NET's.
//   - `\Z` (Python: end of text only) becomes `\z`; `(?P<name>...)` becomes
//     a plain numbered group (.NET would number named groups after all
//     unnamed ones; Python numbers them in order) and `(?P=name)` a
//     numbered backreference.
//   - look-around and backreferences work (RE2 has neither).
//
// Known remaining differences: `\b` uses .NET's word definition (it also
// counts combining marks and all connector punctuation as word characters);
// possessive quantifiers and atomic groups exist only in .NET.
type Regexp struct {
	src   string
	re    *regexp2.Regexp
	names map[string]int // Python group name → group number
}

// Compile compiles a Python `re` pattern (no flags; use inline flags such
// as (?s) or (?i) as Python does).
func Compile(pattern string) (*Regexp, error) {
	tr, names := translatePy(pattern)
	re, err := regexp2.Compile(tr, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("regex %q: %w", pattern, err)
	}
	return &Regexp{src: pattern, re: re, names: names}, nil
}

// MustCompile is Compile that panics on error, for fixed patterns.
func MustCompile(pattern string) *Regexp {
	re, err := Compile(pattern)
	if err != nil {
		panic(err)
	}
	return re
}

// String returns the Python source pattern.
func (p *Regexp) String() string { return p.src }

// FindAll is Python's re.findall: one entry per match, each entry holding the
// whole match when the pattern has no groups, else one string per group
// (an unmatched group is ""). Empty matches are included as in Python 3.7+.
func (p *Regexp) FindAll(s string) [][]string {
	var out [][]string
	m, err := p.re.FindStringMatch(s)
	for err == nil && m != nil {
		groups := m.Groups()
		if len(groups) == 1 {
			out = append(out, []string{m.String()})
		} else {
			row := make([]string, len(groups)-1)
			for i, g := range groups[1:] {
				if len(g.Captures) > 0 {
					row[i] = g.String()
				}
			}
			out = append(out, row)
		}
		m, err = p.re.FindNextMatch(m)
	}
	return out
}

// MatchString reports whether the pattern matches anywhere in s (re.search).
func (p *Regexp) MatchString(s string) bool {
	ok, err := p.re.MatchString(s)
	return err == nil && ok
}

// Sub is Python's re.sub(pattern, repl, s) with a template repl: `\1`,
// `\g<1>`, `\g<name>` insert groups and `\n`, `\t`, `\\` are escapes.
func (p *Regexp) Sub(s, repl string) string { return p.SubN(s, repl, 0) }

// SubN is re.sub with count: at most count replacements (0 = all).
func (p *Regexp) SubN(s, repl string, count int) string {
	if count <= 0 {
		count = -1
	}
	out, err := p.re.Replace(s, translateRepl(repl, p.names), -1, count)
	if err != nil {
		return s
	}
	return out
}

// Split is Python's re.split(pattern, s): pieces between matches, with the
// groups' texts interleaved when the pattern has groups; empty pieces at
// the ends are kept.
func (p *Regexp) Split(s string) []string {
	var out []string
	last := 0
	m, err := p.re.FindStringMatch(s)
	for err == nil && m != nil {
		start := runeToByte(s, m.Index)
		out = append(out, s[last:start])
		for _, g := range m.Groups()[1:] {
			out = append(out, g.String())
		}
		last = runeToByte(s, m.Index+m.Length)
		m, err = p.re.FindNextMatch(m)
	}
	return append(out, s[last:])
}

// runeToByte converts regexp2's rune offset into a byte offset of s.
func runeToByte(s string, runeIdx int) int {
	n := 0
	for i := range s {
		if n == runeIdx {
			return i
		}
		n++
	}
	return len(s)
}

// translatePy rewrites the Python-only or Python-different constructs of a
// pattern into regexp2 syntax (see Regexp).
func translatePy(p string) (string, map[string]int) {
	var b strings.Builder
	inClass := false
	names := map[string]int{}
	groups := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteString(translateEscape(p[i+1], inClass))
			i++
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// a ']' right after '[' or '[^' is a literal
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		case !inClass && strings.HasPrefix(p[i:], "(?P<"):
			end := strings.IndexByte(p[i:], '>')
			if end < 0 {
				b.WriteString(p[i:])
				return b.String(), names
			}
			groups++
			names[p[i+4:i+end]] = groups
			b.WriteByte('(')
			i += end
		case !inClass && strings.HasPrefix(p[i:], "(?P="):
			end := strings.IndexByte(p[i:], ')')
			if end < 0 {
				b.WriteString(p[i:])
				return b.String(), names
			}
			b.WriteString(fmt.Sprintf(`(?:\k<%d>)`, names[p[i+4:i+end]]))
			i += end
		case !inClass && c == '(' && (i+1 >= len(p) || p[i+1] != '?'):
			groups++
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), names
}

func translateEscape(c byte, inClass bool) string {
	switch c {
	case 's':
		if inClass {
			return `\s\x1c-\x1f`
		}
		return `[\s\x1c-\x1f]`
	case 'S':
		if inClass {
			return `\S`
		}
		return `[^\s\x1c-\x1f]`
	case 'w':
		if inClass {
			return `\p{L}\p{N}_`
		}
		return `[\p{L}\p{N}_]`
	case 'W':
		if inClass {
			return `\W`
		}
		return `[^\p{L}\p{N}_]`
	case 'Z':
		return `\z`
	}
	return `\` + string(c)
}

// translateRepl turns a Python re.sub template into .NET substitution syntax.
func translateRepl(r string, names map[string]int) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		if c == '$' {
			b.WriteString("$$")
			continue
		}
		if c != '\\' || i+1 >= len(r) {
			b.WriteByte(c)
			continue
		}
		i++
		switch d := r[i]; {
		case d >= '0' && d <= '9':
			j := i + 1
			if j < len(r) && r[j] >= '0' && r[j] <= '9' {
				j++
			}
			b.WriteString("${" + r[i:j] + "}")
			i = j - 1
		case d == 'g' && i+1 < len(r) && r[i+1] == '<':
			end := strings.IndexByte(r[i:], '>')
			if end < 0 {
				b.WriteString(`\g`)
				continue
			}
			name := r[i+2 : i+end]
			if n, ok := names[name]; ok {
				name = fmt.Sprint(n)
			}
			b.WriteString("${" + name + "}")
			i += end
		case d == 'n':
			b.WriteByte('\n')
		case d == 't':
			b.WriteByte('\t')
		case d == 'r':
			b.WriteByte('\r')
		case d == '\\':
			b.WriteByte('\\')
		default:
			b.WriteByte('\\')
			b.WriteByte(d)
		}
	}
	return b.String()
}
