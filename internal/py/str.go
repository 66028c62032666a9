package py

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsSpace reports whether r is whitespace for Python's str.isspace,
// str.strip and str.split. It differs from unicode.IsSpace by including the
// information separators U+001C..U+001F.
func IsSpace(r rune) bool {
	switch {
	case r >= 0x09 && r <= 0x0d, r >= 0x1c && r <= 0x20, r == 0x85, r == 0xa0,
		r == 0x1680, r >= 0x2000 && r <= 0x200a, r == 0x2028, r == 0x2029,
		r == 0x202f, r == 0x205f, r == 0x3000:
		return true
	}
	return false
}

// Strip is Python's str.strip() with no argument.
func Strip(s string) string { return strings.TrimFunc(s, IsSpace) }

// Split is Python's str.split() with no argument: runs of Python
// whitespace separate fields; no empty fields.
func Split(s string) []string { return strings.FieldsFunc(s, IsSpace) }

// Lower is Python's str.lower(): full Unicode lowercase mapping, including
// U+0130 → "i̇" (two code points) and the final-sigma rule (Σ → ς at the end
// of a word). Other SpecialCasing conditions are not implemented.
func Lower(s string) string { return lowerFrom(s, 0) }

// lowerFrom lowercases s[from:], judging final sigmas in the context of
// the whole string (str.capitalize does the same).
func lowerFrom(s string, from int) string {
	var b strings.Builder
	b.Grow(len(s) - from)
	for i, r := range s {
		if i < from {
			continue
		}
		switch {
		case r == 0x130:
			b.WriteString("i\u0307")
		case r == 'Σ' && finalSigma(s, i):
			b.WriteRune('ς')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// Upper is Python's str.upper(): simple uppercase mapping plus the common
// one-to-many mappings (ß → SS, ŉ → ʼN, ﬁ/ﬂ ligatures).
func Upper(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if m, ok := upperSpecial[r]; ok {
			b.WriteString(m)
			continue
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

var upperSpecial = map[rune]string{
	'ß': "SS", 'ŉ': "ʼN", 'ﬀ': "FF", 'ﬁ': "FI", 'ﬂ': "FL", 'ﬃ': "FFI", 'ﬄ': "FFL", 'ﬅ': "ST", 'ﬆ': "ST",
}

var titleSpecial = map[rune]string{
	'ß': "Ss", 'ŉ': "ʼN", 'ﬀ': "Ff", 'ﬁ': "Fi", 'ﬂ': "Fl", 'ﬃ': "Ffi", 'ﬄ': "Ffl", 'ﬅ': "St", 'ﬆ': "St",
}

// Capitalize is Python 3.8+'s str.capitalize(): the first character
// titlecased, every other character LOWERCASED ("hELLO wORLD" → "Hello world").
func Capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	first, ok := titleSpecial[r]
	if !ok {
		first = string(unicode.ToTitle(r))
	}
	return first + lowerFrom(s, size)
}

// finalSigma implements Unicode's Final_Sigma condition for the Σ at byte i:
// preceded by a cased letter and not followed by one (case-ignorable
// characters skipped).
func finalSigma(s string, i int) bool {
	before := false
	for j := i; j > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		j -= size
		if caseIgnorable(r) {
			continue
		}
		before = cased(r)
		break
	}
	if !before {
		return false
	}
	for j := i + len("Σ"); j < len(s); {
		r, size := utf8.DecodeRuneInString(s[j:])
		j += size
		if caseIgnorable(r) {
			continue
		}
		return !cased(r)
	}
	return true
}

// cased is Unicode's Cased property: Lu, Ll, Lt and the Other_Lowercase
// and Other_Uppercase letters (ª, ʰ, Ⓐ …).
func cased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

// caseIgnorable is Unicode's Case_Ignorable property: Mn, Me, Cf, Lm, Sk
// and the word-break MidLetter, MidNumLet and Single_Quote characters.
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '^', '`', 0xb7, 0x387, 0x55f, 0x5f4, 0x2018, 0x2019, 0x2024, 0x2027,
		0xfe13, 0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
