package metrics

import (
	"strings"
	"unicode"

	"github.com/goeval/goeval/internal/py"
)

// sacrebleu's "intl" tokenizer (TokenizerV14International, mteval-v14's
// international tokenization): three `regex` substitutions over Unicode
// general categories, then whitespace normalised.
//
//	(\P{N})(\p{P}) → "\1 \2 "   punctuation after a non-number
//	(\p{P})(\P{N}) → " \1 \2"   punctuation before a non-number
//	(\p{S})        → " \1 "     symbols
//
// The `regex` module (2026.11.15, pinned) has Unicode 17's categories, Go's
// unicode package Unicode 15's: intlExtra* add the code points assigned
// since (metrics/testdata/intl_categories.json, from the parity script,
// checks all 1,114,112 code points).

var intlExtraN = &unicode.RangeTable{R32: []unicode.Range32{{0x10D40, 0x10D49, 1}, {0x116D0, 0x116E3, 1},
	{0x11BF0, 0x11BF9, 1}, {0x11DE0, 0x11DE9, 1}, {0x1246F, 0x1246F, 1}, {0x12475, 0x1247F, 1}, {0x12550, 0x12686, 1},
	{0x16130, 0x16139, 1}, {0x16D70, 0x16D79, 1}, {0x16FF4, 0x16FF6, 1}, {0x1CCF0, 0x1CCF9, 1}, {0x1E5F1, 0x1E5FA, 1}}}

var intlExtraP = &unicode.RangeTable{
	R16: []unicode.Range16{{0x1B4E, 0x1B4F, 1}, {0x1B7F, 0x1B7F, 1}, {0x2E60, 0x2E63, 1}},
	R32: []unicode.Range32{{0x10D6E, 0x10D6E, 1}, {0x10ED0, 0x10ED0, 1}, {0x113D4, 0x113D5, 1}, {0x113D7, 0x113D8, 1},
		{0x11BE1, 0x11BE1, 1}, {0x16D6D, 0x16D6F, 1}, {0x1E5FF, 0x1E5FF, 1}},
}

var intlExtraS = &unicode.RangeTable{
	R16: []unicode.Range16{{0x20C1, 0x20C4, 1}, {0x2427, 0x2429, 1}, {0x2B96, 0x2B96, 1}, {0x2FFC, 0x2FFF, 1},
		{0x31E4, 0x31E5, 1}, {0x31EF, 0x31EF, 1}, {0xFBC3, 0xFBD2, 1}, {0xFD90, 0xFD91, 1}, {0xFDC8, 0xFDCE, 1}},
	R32: []unicode.Range32{{0x10D8E, 0x10D8F, 1}, {0x10EC9, 0x10ECA, 1}, {0x10ED1, 0x10ED8, 1}, {0x1CC00, 0x1CCEF, 1},
		{0x1CCFA, 0x1CCFC, 1}, {0x1CD00, 0x1CEB3, 1}, {0x1CEBA, 0x1CED0, 1}, {0x1CED2, 0x1CED4, 1}, {0x1CEDD, 0x1CEFD, 1},
		{0x1D1EB, 0x1D1FF, 1}, {0x1D253, 0x1D25A, 1}, {0x1D25D, 0x1D25E, 1}, {0x1D260, 0x1D27F, 1}, {0x1DB00, 0x1DB1C, 1},
		{0x1F1AE, 0x1F1AE, 1}, {0x1F6D8, 0x1F6D9, 1}, {0x1F777, 0x1F77A, 1}, {0x1F7DA, 0x1F7DB, 1}, {0x1F7F1, 0x1F7FF, 1},
		{0x1F8B2, 0x1F8BB, 1}, {0x1F8C0, 0x1F8C1, 1}, {0x1F8D0, 0x1F8D8, 1}, {0x1FA54, 0x1FA57, 1}, {0x1FA89, 0x1FA8F, 1},
		{0x1FABE, 0x1FABE, 1}, {0x1FAC6, 0x1FAC6, 1}, {0x1FAC8, 0x1FAC8, 1}, {0x1FACC, 0x1FACD, 1}, {0x1FADC, 0x1FADD, 1},
		{0x1FADF, 0x1FADF, 1}, {0x1FAE9, 0x1FAEB, 1}, {0x1FAEF, 0x1FAEF, 1}, {0x1FAF9, 0x1FAFA, 1}, {0x1FBCB, 0x1FBEF, 1},
		{0x1FBFA, 0x1FBFA, 1}},
}

// intlNumber, intlPunct and intlSymbol are `regex`'s \p{N}, \p{P}, \p{S}.
func intlNumber(r rune) bool { return unicode.IsNumber(r) || unicode.Is(intlExtraN, r) }
func intlPunct(r rune) bool  { return unicode.IsPunct(r) || unicode.Is(intlExtraP, r) }
func intlSymbol(r rune) bool { return unicode.IsSymbol(r) || unicode.Is(intlExtraS, r) }

// intlPair is one pass of a two-character substitution: left to right,
// non-overlapping, each match (a, b) with match(a, b) written as repl.
func intlPair(rs []rune, match func(a, b rune) bool, repl func(b *strings.Builder, x, y rune)) []rune {
	var b strings.Builder
	for i := 0; i < len(rs); i++ {
		if i+1 < len(rs) && match(rs[i], rs[i+1]) {
			repl(&b, rs[i], rs[i+1])
			i++
			continue
		}
		b.WriteRune(rs[i])
	}
	return []rune(b.String())
}

// tokenizeIntl is sacrebleu's intl tokenizer, its tokens (the output's
// whitespace-split fields, as BLEU's n-gram extraction reads it).
func tokenizeIntl(line string) []string {
	rs := intlPair([]rune(line), func(a, b rune) bool { return !intlNumber(a) && intlPunct(b) },
		func(w *strings.Builder, x, y rune) {
			w.WriteRune(x)
			w.WriteByte(' ')
			w.WriteRune(y)
			w.WriteByte(' ')
		})
	rs = intlPair(rs, func(a, b rune) bool { return intlPunct(a) && !intlNumber(b) },
		func(w *strings.Builder, x, y rune) {
			w.WriteByte(' ')
			w.WriteRune(x)
			w.WriteByte(' ')
			w.WriteRune(y)
		})
	var b strings.Builder
	for _, r := range rs {
		if intlSymbol(r) {
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(r)
	}
	return py.Split(b.String())
}
