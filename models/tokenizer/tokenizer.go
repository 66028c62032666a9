package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// Tokenizer encodes and decodes like Hugging Face's Rust tokenizers, with
// the settings of tokenizer_config.json. It is safe for concurrent use.
type Tokenizer struct {
	model      *bpe
	normalizer normalizer
	preTok     preTokenizer
	post       *postProcessor
	decoder    decoder
	added      *addedVocab

	// fastSplit is set when the pre-tokenizer is exactly a Split on a regex
	// with a hand-written scanner followed by a plain ByteLevel: pieces go
	// straight from the scanner to the byte-level BPE.
	fastSplit *pattern
	vocabSize int

	cfg config
}

// finish precomputes what Encode needs after parsing.
func (t *Tokenizer) finish() {
	seen := make(map[string]bool, len(t.model.vocab)+len(t.added.tokens))
	for k := range t.model.vocab {
		seen[k] = true
	}
	for _, a := range t.added.tokens {
		seen[a.Content] = true
	}
	t.vocabSize = len(seen)
}

// Encode returns the ids of text. addSpecial applies the post-processor's
// special tokens (Hugging Face add_special_tokens). Invalid UTF-8 is first
// replaced with U+FFFD, as Python would have to before calling the Rust code.
func (t *Tokenizer) Encode(text string, addSpecial bool) []int32 {
	if !utf8.ValidString(text) {
		text = lossyUTF8([]byte(text))
	}
	out := make([]int32, 0, len(text)/3+4)
	if addSpecial {
		out = append(out, t.post.prefix...)
	}
	var pieces, sub []piece
	pieces = t.added.split(piece{s: text, id: -1, first: true}, t.added.raw, pieces)
	for _, p := range pieces {
		if p.id >= 0 {
			out = append(out, p.id)
			continue
		}
		if t.normalizer != nil {
			p.s = t.normalizer.normalize(p.s)
		}
		sub = t.added.split(p, t.added.norm, sub[:0])
		for _, q := range sub {
			out = t.encodePiece(q, out)
		}
	}
	if addSpecial {
		out = append(out, t.post.suffix...)
	}
	return out
}

// encodePiece pre-tokenizes one piece and runs the model on the parts.
func (t *Tokenizer) encodePiece(p piece, out []int32) []int32 {
	if p.id >= 0 {
		return append(out, p.id)
	}
	if t.fastSplit != nil {
		var buf [64][2]int
		ms := t.fastSplit.findAll(p.s, buf[:0])
		prev := 0
		for _, m := range ms {
			if m[0] > prev {
				out = t.model.encodeByteLevel(p.s[prev:m[0]], out)
			}
			out = t.model.encodeByteLevel(p.s[m[0]:m[1]], out)
			prev = m[1]
		}
		if prev < len(p.s) {
			out = t.model.encodeByteLevel(p.s[prev:], out)
		}
		return out
	}
	if t.preTok == nil {
		return t.model.encodeChars(p.s, out)
	}
	for _, q := range t.preTok.pre(p, nil) {
		if q.bl {
			out = t.model.encodeByteLevel(q.s, out)
		} else {
			out = t.model.encodeChars(q.s, out)
		}
	}
	return out
}

// Decode turns ids back into text like transformers' decode: the Rust
// decoder, then clean_up_tokenization_spaces when the config asks for it.
// Unknown ids are skipped.
func (t *Tokenizer) Decode(ids []int32, skipSpecial bool) string {
	toks := make([]string, 0, len(ids))
	for _, id := range ids {
		s, ok := t.IDToToken(id)
		if !ok || (skipSpecial && t.added.special[s]) {
			continue
		}
		toks = append(toks, s)
	}
	var out string
	if t.decoder == nil {
		out = strings.Join(toks, " ")
	} else {
		out = strings.Join(t.decoder.chain(toks), "")
	}
	if t.cfg.cleanup {
		out = cleanUpTokenization(out)
	}
	return out
}

// cleanUpTokenization is transformers' clean_up_tokenization.
func cleanUpTokenization(s string) string {
	for _, r := range [][2]string{{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
		{" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}} {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	return s
}

// TokenToID looks a token up, added tokens first.
func (t *Tokenizer) TokenToID(s string) (int32, bool) {
	if id, ok := t.added.byContent[s]; ok {
		return id, true
	}
	return t.model.tokenToID(s)
}

// IDToToken returns the token string of id, added tokens first.
func (t *Tokenizer) IDToToken(id int32) (string, bool) {
	if s, ok := t.added.byID[id]; ok {
		return s, true
	}
	return t.model.idToTok(id)
}

// VocabSize is the number of distinct tokens including added tokens
// (Rust get_vocab_size(true), Python len(tokenizer)).
func (t *Tokenizer) VocabSize() int { return t.vocabSize }

// IsSpecial reports whether id is a special added token.
func (t *Tokenizer) IsSpecial(id int32) bool {
	s, ok := t.added.byID[id]
	return ok && t.added.special[s]
}
