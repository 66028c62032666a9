package tokenizer

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// patternJSON is {"String": s} or {"Regex": r} in tokenizer.json.
type patternJSON struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

// pattern finds non-overlapping matches of a literal or a regex, returning
// byte offsets.
type pattern struct {
	lit string
	re  *regexp2.Regexp
}

func (p patternJSON) compile() (*pattern, error) {
	switch {
	case p.String != nil:
		return &pattern{lit: *p.String}, nil
	case p.Regex != nil:
		return compileRegex(*p.Regex)
	}
	return nil, fmt.Errorf("pattern: want {\"String\": ...} or {\"Regex\": ...}")
}

func compileRegex(src string) (*pattern, error) {
	re, err := regexp2.Compile(src, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("invalid regex %q: %w", src, err)
	}
	return &pattern{re: re}, nil
}

// findAll appends the [start, end) byte offsets of every match to out.
func (p *pattern) findAll(s string, out [][2]int) [][2]int {
	switch {
	case p.re != nil:
		return p.regexFindAll(s, out)
	case p.lit == "":
		return out
	}
	for i := 0; ; {
		j := strings.Index(s[i:], p.lit)
		if j < 0 {
			return out
		}
		out = append(out, [2]int{i + j, i + j + len(p.lit)})
		i += j + len(p.lit)
	}
}

// regexFindAll runs regexp2 and converts its rune offsets to byte offsets.
// Empty matches are skipped.
func (p *pattern) regexFindAll(s string, out [][2]int) [][2]int {
	if s == "" {
		return out
	}
	runes := []rune(s)
	byteAt := make([]int, len(runes)+1)
	off := 0
	for i, r := range runes {
		byteAt[i] = off
		off += utf8.RuneLen(r)
	}
	byteAt[len(runes)] = off
	m, err := p.re.FindRunesMatch(runes)
	for err == nil && m != nil {
		if m.Length > 0 {
			out = append(out, [2]int{byteAt[m.Index], byteAt[m.Index+m.Length]})
		}
		m, err = p.re.FindNextMatch(m)
	}
	return out
}

// replaceAll replaces every match with content.
func (p *pattern) replaceAll(s, content string) string {
	if p.re == nil {
		if p.lit == "" {
			return s
		}
		return strings.ReplaceAll(s, p.lit, content)
	}
	ms := p.findAll(s, nil)
	if len(ms) == 0 {
		return s
	}
	var sb strings.Builder
	prev := 0
	for _, m := range ms {
		sb.WriteString(s[prev:m[0]])
		sb.WriteString(content)
		prev = m[1]
	}
	sb.WriteString(s[prev:])
	return sb.String()
}
