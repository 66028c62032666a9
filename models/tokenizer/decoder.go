package tokenizer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// decoder is Rust's Decoder::decode_chain: tokens in, tokens out.
type decoder interface{ chain(toks []string) []string }

type decSeq []decoder

func (d decSeq) chain(t []string) []string {
	for _, x := range d {
		t = x.chain(t)
	}
	return t
}

// byteLevelDec maps byte-level characters back to bytes, then UTF-8 lossy.
type byteLevelDec struct{}

func (byteLevelDec) chain(toks []string) []string {
	var buf []byte
	for _, t := range toks {
		start := len(buf)
		ok := true
		for _, r := range t {
			b, in := charToByte[r]
			if !in {
				ok = false
				break
			}
			buf = append(buf, b)
		}
		if !ok {
			buf = append(buf[:start], t...)
		}
	}
	return []string{lossyUTF8(buf)}
}

// metaspaceDec turns the replacement back into spaces.
type metaspaceDec struct {
	repl          rune
	prependScheme string
}

func (d metaspaceDec) chain(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		var sb strings.Builder
		for _, r := range t {
			switch {
			case r != d.repl:
				sb.WriteRune(r)
			case i == 0 && d.prependScheme != "never":
			default:
				sb.WriteByte(' ')
			}
		}
		out[i] = sb.String()
	}
	return out
}

// byteFallbackDec joins runs of <0xHH> tokens into UTF-8 text.
type byteFallbackDec struct{}

func (byteFallbackDec) chain(toks []string) []string {
	out := make([]string, 0, len(toks))
	var pending []byte
	flush := func() {
		if len(pending) == 0 {
			return
		}
		if utf8.Valid(pending) {
			out = append(out, string(pending))
		} else {
			for range pending {
				out = append(out, "\uFFFD")
			}
		}
		pending = pending[:0]
	}
	for _, t := range toks {
		if b, ok := parseByteToken(t); ok {
			pending = append(pending, b)
			continue
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out
}

// parseByteToken parses "<0xHH>" like Rust's u8::from_str_radix.
func parseByteToken(t string) (byte, bool) {
	if len(t) != 6 || !strings.HasPrefix(t, "<0x") || t[5] != '>' {
		return 0, false
	}
	h := strings.TrimPrefix(t[3:5], "+")
	v, err := strconv.ParseUint(h, 16, 8)
	return byte(v), err == nil
}

type fuseDec struct{}

func (fuseDec) chain(toks []string) []string { return []string{strings.Join(toks, "")} }

// stripDec removes up to start leading and stop trailing content chars.
type stripDec struct {
	content     rune
	start, stop int
}

func (d stripDec) chain(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		rs := []rune(t)
		lo := 0
		for j := 0; j < d.start && j < len(rs) && rs[j] == d.content; j++ {
			lo = j + 1
		}
		hi := len(rs)
		for j := 0; j < d.stop && len(rs)-j-1 >= 0 && rs[len(rs)-j-1] == d.content; j++ {
			hi = len(rs) - j - 1
		}
		if hi < lo {
			hi = lo
		}
		out[i] = string(rs[lo:hi])
	}
	return out
}

type replaceDec struct {
	pat     *pattern
	content string
}

func (d replaceDec) chain(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = d.pat.replaceAll(t, d.content)
	}
	return out
}

type decJSON struct {
	Type          string            `json:"type"`
	Decoders      []json.RawMessage `json:"decoders"`
	Replacement   string            `json:"replacement"`
	PrependScheme string            `json:"prepend_scheme"`
	AddPrefix     *bool             `json:"add_prefix_space"`
	Pattern       patternJSON       `json:"pattern"`
	Content       string            `json:"content"`
	Start         int               `json:"start"`
	Stop          int               `json:"stop"`
}

// parseDecoder builds a decoder; nil when raw is null.
func parseDecoder(raw json.RawMessage) (decoder, error) {
	var j decJSON
	typ, err := decodeTyped(raw, &j)
	if err != nil || typ == "" {
		return nil, err
	}
	switch typ {
	case "Sequence":
		seq, err := parseSequence(j.Decoders, "decoders", parseDecoder)
		return decSeq(seq), err
	case "ByteLevel":
		return byteLevelDec{}, nil
	case "ByteFallback":
		return byteFallbackDec{}, nil
	case "Fuse":
		return fuseDec{}, nil
	case "Metaspace":
		rs := []rune(j.Replacement)
		if len(rs) != 1 {
			return nil, fmt.Errorf("Metaspace: replacement %q is not one character", j.Replacement)
		}
		ps := j.PrependScheme
		if ps == "" {
			ps = "always"
			if j.AddPrefix != nil && !*j.AddPrefix {
				ps = "never"
			}
		}
		return metaspaceDec{rs[0], ps}, nil
	case "Strip":
		rs := []rune(j.Content)
		if len(rs) != 1 {
			return nil, fmt.Errorf("Strip: content %q is not one character", j.Content)
		}
		return stripDec{rs[0], j.Start, j.Stop}, nil
	case "Replace":
		p, err := j.Pattern.compile()
		if err != nil {
			return nil, fmt.Errorf("Replace: %w", err)
		}
		return replaceDec{p, j.Content}, nil
	}
	return nil, fmt.Errorf("unsupported decoder type %q", typ)
}
