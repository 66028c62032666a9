package ifeval

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Python str patterns as Go regular expressions. Python's \s, \d and \w
// are Unicode classes in a str pattern; Go's are ASCII. translate rewrites
// them (inside and outside brackets); \b, \B and constructs RE2 lacks
// (backreferences, lookaround) are refused rather than guessed.

const (
	spaceBody = `\t-\r\x1c-\x20\x{85}\p{Z}`
	wordBody  = `\p{L}\p{N}_`
	digitBody = `\p{Nd}`
)

// compile is the Go regexp for Python pattern p (ignoreCase: re.IGNORECASE,
// multiline: re.MULTILINE).
func compile(p string, ignoreCase, multiline bool) (*regexp.Regexp, error) {
	t, err := translate(p, ignoreCase)
	if err != nil {
		return nil, err
	}
	flags := ""
	if ignoreCase {
		flags += "i"
	}
	if multiline {
		flags += "m"
	}
	if flags != "" {
		t = "(?" + flags + ")" + t
	}
	re, err := regexp.Compile(t)
	if err != nil {
		return nil, fmt.Errorf("python pattern %q: %w", p, err)
	}
	return re, nil
}

// translate rewrites Python pattern p for Go; fold lowers its literal
// characters as fold does the text.
func translate(p string, fold bool) (string, error) {
	var b strings.Builder
	inClass := false
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\' && i+1 < len(rs):
			i++
			if err := escape(&b, rs[i], inClass, p); err != nil {
				return "", err
			}
			continue
		case r == '[' && !inClass:
			inClass = true
			b.WriteRune(r)
			if i+1 < len(rs) && rs[i+1] == '^' {
				b.WriteRune('^')
				i++
			}
			if i+1 < len(rs) && rs[i+1] == ']' { // a leading ] is literal in Python
				b.WriteString(`\]`)
				i++
			}
			continue
		case r == ']' && inClass:
			inClass = false
		case (r == '+' || r == '*' || r == '?') && i+1 < len(rs) && rs[i+1] == '+' && !inClass:
			// A possessive quantifier (Python 3.11) at the pattern's end
			// finds what the greedy one does; elsewhere it is refused.
			if i+2 != len(rs) {
				return "", fmt.Errorf("python pattern %q: possessive quantifiers are not supported", p)
			}
			b.WriteRune(r)
			i++
			continue
		case r == '$' && !inClass:
			// Python's $ also matches before a final newline.
			b.WriteString(`(?:$|(?-m:\n\z))`)
			continue
		}
		if fold {
			r = foldRune(r)
		}
		b.WriteRune(r)
	}
	return b.String(), nil
}

// escape writes the Go form of Python's escape \c.
func escape(b *strings.Builder, c rune, inClass bool, p string) error {
	body := map[rune]string{'s': spaceBody, 'w': wordBody, 'd': digitBody}
	switch c {
	case 's', 'w', 'd':
		if inClass {
			b.WriteString(body[c])
		} else {
			b.WriteString("[" + body[c] + "]")
		}
	case 'S', 'W', 'D':
		if inClass {
			return fmt.Errorf("python pattern %q: \\%c inside brackets is not supported", p, c)
		}
		b.WriteString("[^" + body[c+'a'-'A'] + "]")
	case 'b', 'B', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return fmt.Errorf("python pattern %q: \\%c is not supported", p, c)
	default:
		b.WriteRune('\\')
		b.WriteRune(c)
	}
	return nil
}

// foldText maps s as Python's re.IGNORECASE compares characters: each to
// its simple lowercase, and dotless ı to i (one of sre's extra
// equivalences; Go's (?i) folding covers the others: ſ, ς, K, µ …).
// Matching the folded pattern on folded text with (?i) then finds what
// Python finds; the text keeps its number of characters.
func foldText(s string) string { return strings.Map(foldRune, s) }

func foldRune(r rune) rune {
	if r == 0x131 {
		return 'i'
	}
	return unicode.ToLower(r)
}

// isWord is a character of Python re's Unicode \w: str.isalnum or '_'.
func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}
