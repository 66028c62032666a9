package ifeval

import (
	"strings"
	"unicode"
)

// Python's str semantics that the checks depend on, where Go's differ.

// isSpace is Python's str.isspace for one character: Unicode White_Space
// plus the ASCII information separators U+001C–U+001F, which Go's
// unicode.IsSpace leaves out.
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// isWord is a character of Python re's Unicode \w: str.isalnum or '_'.
func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// strip is Python's str.strip() with no argument.
func strip(s string) string { return strings.TrimFunc(s, isSpace) }

// fields is Python's str.split() with no argument.
func fields(s string) []string { return strings.FieldsFunc(s, isSpace) }

// lower is Python's str.lower(): Go's simple mapping plus the two rules of
// Unicode's full mapping Python applies: U+0130 lowers to "i̇" (two
// characters) and a capital sigma ending a word lowers to final sigma.
func lower(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == 0x130:
			b.WriteString("i\u0307")
		case r == 0x3a3 && finalSigma(rs, i):
			b.WriteRune(0x3c2)
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma is Unicode's Final_Sigma condition at rs[i]: a cased letter
// before it and none after it, skipping case-ignorable characters.
func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && caseIgnorable(rs[j]) {
		j--
	}
	if j < 0 || !cased(rs[j]) {
		return false
	}
	k := i + 1
	for k < len(rs) && caseIgnorable(rs[k]) {
		k++
	}
	return k == len(rs) || !cased(rs[k])
}

func cased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '^', '`', 0xb7, 0x2018, 0x2019, 0x2024, 0xfe52, 0xff07, 0xff0e, 0xad:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
