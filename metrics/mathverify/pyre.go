package mathverify

import (
	"strings"

	"github.com/dlclark/regexp2"
)

// pyRe is a Python `re` pattern on regexp2 (a backtracking engine with the
// same semantics for the constructs math-verify uses: look-behind, lazy
// quantifiers, scoped flags). Patterns are written in .NET syntax
// ((?<name>...) groups); positions are code points, as Python's.
type pyRe struct{ re *regexp2.Regexp }

func mustRe(pattern string, dotall bool) *pyRe {
	opt := regexp2.RegexOptions(regexp2.None)
	if dotall {
		opt = regexp2.Singleline
	}
	return &pyRe{regexp2.MustCompile(pattern, opt)}
}

// span is one match: start and end in code points, and its named groups.
type span struct {
	start, end int
	m          *regexp2.Match
}

func (s span) group(name string) (string, bool) {
	g := s.m.GroupByName(name)
	if g == nil || len(g.Captures) == 0 {
		return "", false
	}
	return g.String(), true
}

// finditer is re.finditer over runes.
func (p *pyRe) finditer(rs []rune) []span {
	var out []span
	m, err := p.re.FindRunesMatch(rs)
	for err == nil && m != nil {
		out = append(out, span{m.Index, m.Index + m.Length, m})
		m, err = p.re.FindNextMatch(m)
	}
	return out
}

// sub is re.sub with a function of the match.
func (p *pyRe) sub(s string, f func(m *regexp2.Match) string) string {
	out, err := p.re.ReplaceFunc(s, func(m regexp2.Match) string { return f(&m) }, -1, -1)
	if err != nil {
		return s
	}
	return out
}

// subGroups is re.sub with a template of \1-style group references only.
func (p *pyRe) subGroups(s string, tmpl string) string {
	return p.sub(s, func(m *regexp2.Match) string {
		var b strings.Builder
		for i := 0; i < len(tmpl); i++ {
			if tmpl[i] == '\\' && i+1 < len(tmpl) && tmpl[i+1] >= '1' && tmpl[i+1] <= '9' {
				if g := m.GroupByNumber(int(tmpl[i+1] - '0')); g != nil && len(g.Captures) > 0 {
					b.WriteString(g.String())
				}
				i++
				continue
			}
			b.WriteByte(tmpl[i])
		}
		return b.String()
	})
}

func (p *pyRe) search(s string) bool {
	ok, err := p.re.MatchString(s)
	return err == nil && ok
}

// split is re.split for a pattern without groups.
func (p *pyRe) split(s string) []string {
	rs := []rune(s)
	var out []string
	last := 0
	for _, m := range p.finditer(rs) {
		out = append(out, string(rs[last:m.start]))
		last = m.end
	}
	return append(out, string(rs[last:]))
}

// pyStrip is Python's str.strip() (Unicode whitespace).
func pyStrip(s string) string {
	return strings.TrimFunc(s, isPySpace)
}

func isPySpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}
