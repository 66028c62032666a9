package metrics

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// TestIntlCategoriesMatchRegex: intlNumber, intlPunct and intlSymbol
// match the code points the pinned `regex` module's \p{N}, \p{P} and \p{S}
// match, all of them (testdata/intl_categories.json, from
// parity/metrics/truthfulqa_golden.py).
func TestIntlCategoriesMatchRegex(t *testing.T) {
	raw, err := os.ReadFile("testdata/intl_categories.json")
	if err != nil {
		t.Fatal(err)
	}
	var cats map[string]json.RawMessage
	if err := json.Unmarshal(raw, &cats); err != nil {
		t.Fatal(err)
	}
	for name, is := range map[string]func(rune) bool{"N": intlNumber, "P": intlPunct, "S": intlSymbol} {
		var want [][2]rune
		if err := json.Unmarshal(cats[name], &want); err != nil {
			t.Fatal(err)
		}
		var got [][2]rune
		for c := rune(0); c < 0x110000; c++ {
			if c >= 0xD800 && c < 0xE000 || !is(c) {
				continue
			}
			if n := len(got); n > 0 && got[n-1][1] == c-1 {
				got[n-1][1] = c
			} else {
				got = append(got, [2]rune{c, c})
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf(`\p{%s}: Go's %d ranges differ from regex's %d`, name, len(got), len(want))
		}
	}
}

// TestTokenizeIntl: sacrebleu's intl tokenizer on a few hand-checked
// lines (the golden cases exercise it through SentenceBLEUIntl).
func TestTokenizeIntl(t *testing.T) {
	for in, want := range map[string][]string{
		"Hello, world!":       {"Hello", ",", "world", "!"},
		"It costs $5.50 now.": {"It", "costs", "$", "5.50", "now", "."},
		"In 1990.":            {"In", "1990."},
		"a.,b":                {"a", ".", ",", "b"},
		"x²+½":                {"x²", "+", "½"},
		"":                    {},
	} {
		if got := tokenizeIntl(in); len(got) != len(want) || len(got) > 0 && !reflect.DeepEqual(got, want) {
			t.Errorf("tokenizeIntl(%q) = %q, want %q", in, got, want)
		}
	}
}
