package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// normalizer rewrites a string before pre-tokenization. Offsets are not
// tracked: only ids and decodes are needed.
type normalizer interface{ normalize(s string) string }

type normSeq []normalizer

func (n normSeq) normalize(s string) string {
	for _, x := range n {
		s = x.normalize(s)
	}
	return s
}

type normForm struct{ f norm.Form }

func (n normForm) normalize(s string) string { return n.f.String(s) }

type lowercase struct{}

func (lowercase) normalize(s string) string { return rustLower(s) }

// rustLower lowercases like Rust's char::to_lowercase (full mapping).
func rustLower(s string) string {
	if !strings.ContainsRune(s, 'İ') {
		return strings.ToLower(s)
	}
	return strings.ToLower(strings.ReplaceAll(s, "İ", "i\u0307"))
}

type prepend struct{ s string }

func (p prepend) normalize(s string) string {
	if s == "" {
		return s
	}
	return p.s + s
}

type strip struct{ left, right bool }

func (p strip) normalize(s string) string {
	if p.left {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
	}
	if p.right {
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	return s
}

type stripAccents struct{}

func (stripAccents) normalize(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, s)
}

// replaceNorm replaces every match of a pattern.
type replaceNorm struct {
	pat     *pattern
	content string
}

func (r replaceNorm) normalize(s string) string { return r.pat.replaceAll(s, r.content) }

type normJSON struct {
	Type        string            `json:"type"`
	Normalizers []json.RawMessage `json:"normalizers"`
	Prepend     string            `json:"prepend"`
	Pattern     patternJSON       `json:"pattern"`
	Content     string            `json:"content"`
	StripLeft   bool              `json:"strip_left"`
	StripRight  bool              `json:"strip_right"`
	Lowercase   *bool             `json:"lowercase"`
	Precompiled *string           `json:"precompiled_charsmap"`
}

// parseNormalizer builds a normalizer; nil when raw is null.
func parseNormalizer(raw json.RawMessage) (normalizer, error) {
	var j normJSON
	typ, err := decodeTyped(raw, &j)
	if err != nil || typ == "" {
		return nil, err
	}
	switch typ {
	case "Sequence":
		seq, err := parseSequence(j.Normalizers, "normalizers", parseNormalizer)
		return normSeq(seq), err
	case "NFC":
		return normForm{norm.NFC}, nil
	case "NFD":
		return normForm{norm.NFD}, nil
	case "NFKC":
		return normForm{norm.NFKC}, nil
	case "NFKD":
		return normForm{norm.NFKD}, nil
	case "Lowercase":
		return lowercase{}, nil
	case "StripAccents":
		return stripAccents{}, nil
	case "Prepend":
		return prepend{j.Prepend}, nil
	case "Strip":
		return strip{j.StripLeft, j.StripRight}, nil
	case "Replace":
		p, err := j.Pattern.compile()
		if err != nil {
			return nil, fmt.Errorf("Replace: %w", err)
		}
		return replaceNorm{p, j.Content}, nil
	case "Precompiled":
		if j.Precompiled == nil || *j.Precompiled == "" {
			return nil, nil
		}
	}
	return nil, fmt.Errorf("unsupported normalizer type %q", typ)
}
