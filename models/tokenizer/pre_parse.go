package tokenizer

import (
	"encoding/json"
	"fmt"
	"unicode"
)

// gpt2Pattern is the regex of the ByteLevel pre-tokenizer with use_regex.
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// parsePreTokenizer builds a pre-tokenizer; nil when raw is null.
func parsePreTokenizer(raw json.RawMessage) (preTokenizer, error) {
	var j preJSON
	typ, err := decodeTyped(raw, &j)
	if err != nil || typ == "" {
		return nil, err
	}
	beh, err := parseBehavior(j.Behavior)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", typ, err)
	}
	switch typ {
	case "Sequence":
		seq, err := parseSequence(j.Pretokenizers, "pretokenizers", parsePreTokenizer)
		return preSeq(seq), err
	case "Split":
		p, err := j.Pattern.compile()
		if err != nil {
			return nil, fmt.Errorf("Split: %w", err)
		}
		return splitPre{p, beh, j.Invert}, nil
	case "ByteLevel":
		t := byteLevelPre{addPrefixSpace: j.AddPrefixSpace == nil || *j.AddPrefixSpace}
		if j.UseRegex == nil || *j.UseRegex {
			t.re, _ = compileRegex(gpt2Pattern)
		}
		return t, nil
	case "Metaspace":
		return parseMetaspace(j)
	case "Digits":
		if j.IndividualDigits {
			return funcPre{unicode.IsNumber, isolated}, nil
		}
		return funcPre{unicode.IsNumber, contiguous}, nil
	case "Whitespace":
		p, _ := compileRegex(`\w+|[^\w\s]+`)
		return splitPre{p, removed, true}, nil
	case "WhitespaceSplit":
		return funcPre{unicode.IsSpace, removed}, nil
	case "Punctuation":
		return funcPre{isPunct, beh}, nil
	case "BertPreTokenizer":
		return preSeq{funcPre{unicode.IsSpace, removed}, funcPre{isPunct, isolated}}, nil
	case "CharDelimiterSplit":
		d := []rune(j.Delimiter)
		if len(d) != 1 {
			return nil, fmt.Errorf("CharDelimiterSplit: delimiter %q is not one character", j.Delimiter)
		}
		return funcPre{func(r rune) bool { return r == d[0] }, removed}, nil
	}
	return nil, fmt.Errorf("unsupported pre_tokenizer type %q", typ)
}

func parseMetaspace(j preJSON) (preTokenizer, error) {
	t := metaspacePre{repl: j.Replacement, prependScheme: j.PrependScheme, split: j.Split == nil || *j.Split}
	if len([]rune(t.repl)) != 1 {
		return nil, fmt.Errorf("Metaspace: replacement %q is not one character", j.Replacement)
	}
	if t.prependScheme == "" {
		t.prependScheme = "always"
		if j.AddPrefixSpace != nil && !*j.AddPrefixSpace {
			t.prependScheme = "never"
		}
	}
	switch t.prependScheme {
	case "always", "first", "never":
		return t, nil
	}
	return nil, fmt.Errorf("Metaspace: unknown prepend_scheme %q", t.prependScheme)
}
