package synth

// The synthetic tokenizer is a small, deterministic byte-level BPE tokenizer
// in the Hugging Face tokenizer.json format (the GPT-2 / Qwen layout:
// ByteLevel pre-tokenizer and decoder, BPE model with merges, ChatML special
// tokens). goeval uses it for the demo and tests, where no real tokenizer
// can be downloaded; any Hugging Face tokenizers implementation loads it.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
)

// Special tokens, appended after the BPE vocabulary in this order.
var Specials = []string{"<|endoftext|>", "<|im_start|>", "<|im_end|>"}

// chatTemplate is a ChatML template like Qwen2.5's, without tools.
const chatTemplate = `{% for message in messages %}{% if loop.first and message['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}{% endif %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}`

// Tokenizer writes tokenizer.json and tokenizer_config.json into dir with a
// vocabulary of vocabSize tokens: 256 byte tokens, vocabSize-256-len(Specials)
// learned merges, then the special tokens. It returns the special token ids.
// Like Qwen's base tokenizers it has no bos_token, and <|endoftext|> is its
// eos_token and pad_token.
func Tokenizer(dir string, vocabSize int) (map[string]int, error) {
	return TokenizerEOS(dir, vocabSize, Specials[0])
}

// TokenizerEOS is Tokenizer with eos as eos_token (one of Specials);
// "<|im_end|>" gives the layout of Qwen's chat tokenizers (no bos_token, eos
// <|im_end|>, pad <|endoftext|>), whose config.json's bos_token_id is
// neither.
func TokenizerEOS(dir string, vocabSize int, eos string) (map[string]int, error) {
	if !slices.Contains(Specials, eos) {
		return nil, fmt.Errorf("synthetic tokenizer: eos token %q is not one of %q", eos, Specials)
	}
	nMerges := vocabSize - 256 - len(Specials)
	if nMerges < 0 {
		return nil, fmt.Errorf("synthetic tokenizer: vocab size %d is below the minimum %d", vocabSize, 256+len(Specials))
	}
	vocab, merges := trainBPE(nMerges)
	specials := map[string]int{}
	var added []map[string]any
	for _, s := range Specials {
		id := len(vocab)
		vocab[s] = id
		specials[s] = id
		added = append(added, map[string]any{"id": id, "content": s, "single_word": false,
			"lstrip": false, "rstrip": false, "normalized": false, "special": true})
	}
	byteLevel := func(prefix bool) map[string]any {
		return map[string]any{"type": "ByteLevel", "add_prefix_space": prefix, "trim_offsets": true, "use_regex": true}
	}
	tok := map[string]any{
		"version": "1.0", "truncation": nil, "padding": nil, "added_tokens": added,
		"normalizer": map[string]any{"type": "NFC"}, "pre_tokenizer": qwen2PreTokenizer(),
		"post_processor": byteLevel(false), "decoder": byteLevel(false),
		"model": map[string]any{"type": "BPE", "dropout": nil, "unk_token": nil,
			"continuing_subword_prefix": "", "end_of_word_suffix": "", "fuse_unk": false,
			"byte_fallback": false, "ignore_merges": false, "vocab": vocab, "merges": merges},
	}
	cfg := map[string]any{
		"add_bos_token": false, "add_prefix_space": false, "bos_token": nil,
		"eos_token": eos, "pad_token": "<|endoftext|>", "unk_token": nil,
		"model_max_length": 2048, "clean_up_tokenization_spaces": false,
		"tokenizer_class": "Qwen2Tokenizer", "chat_template": chatTemplate,
		"additional_special_tokens": []string{"<|im_start|>", "<|im_end|>"},
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := writeTokenizerJSON(filepath.Join(dir, "tokenizer.json"), tok); err != nil {
		return nil, err
	}
	return specials, writeTokenizerJSON(filepath.Join(dir, "tokenizer_config.json"), cfg)
}

// qwenSplit is the pre-tokenizer regex of Qwen2/2.5/3's tokenizer.json.
const qwenSplit = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// qwen2PreTokenizer is Qwen2's pre-tokenizer (a regex Split, then ByteLevel
// without its own regex). transformers builds a Qwen2Tokenizer for qwen2
// checkpoints with exactly this pre-tokenizer whatever tokenizer.json says,
// so using it keeps goeval, the Rust tokenizers and transformers in step.
func qwen2PreTokenizer() map[string]any {
	return map[string]any{"type": "Sequence", "pretokenizers": []any{
		map[string]any{"type": "Split", "pattern": map[string]any{"Regex": qwenSplit},
			"behavior": "Isolated", "invert": false},
		map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
	}}
}

func writeTokenizerJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// wordRE approximates the Qwen2 pre-tokenizer; it only decides which byte
// pairs are counted while training, so it need not be exact.
var wordRE = regexp.MustCompile(`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\pL\pN]?\pL+|\pN| ?[^\s\pL\pN]+[\r\n]*|\s+`)

// train learns nMerges BPE merges from tokenizerCorpus. Ties in pair frequency break
// by the lexical order of the pair, so the result is deterministic.
func trainBPE(nMerges int) (map[string]int, []string) {
	b2u := bytesToUnicode()
	vocab := map[string]int{}
	for b := 0; b < 256; b++ {
		vocab[string(b2u[b])] = b
	}
	counts := map[string]int{}
	for _, w := range wordRE.FindAllString(tokenizerCorpus, -1) {
		counts[w]++
	}
	type word struct {
		syms []string
		n    int
	}
	var words []word
	keys := make([]string, 0, len(counts))
	for w := range counts {
		keys = append(keys, w)
	}
	sort.Strings(keys)
	for _, w := range keys {
		var syms []string
		for _, c := range []byte(w) {
			syms = append(syms, string(b2u[c]))
		}
		words = append(words, word{syms, counts[w]})
	}
	var merges []string
	for len(vocab) < 256+nMerges {
		pairs := map[[2]string]int{}
		for _, w := range words {
			for i := 0; i+1 < len(w.syms); i++ {
				pairs[[2]string{w.syms[i], w.syms[i+1]}] += w.n
			}
		}
		best, bestN := [2]string{}, 0
		for p, n := range pairs {
			if n > bestN || (n == bestN && p[0]+" "+p[1] < best[0]+" "+best[1]) {
				best, bestN = p, n
			}
		}
		if bestN == 0 {
			break // tokenizerCorpus exhausted: fewer merges than asked
		}
		merged := best[0] + best[1]
		merges = append(merges, best[0]+" "+best[1])
		if _, seen := vocab[merged]; !seen { // the same string can arise from two splits
			vocab[merged] = len(vocab)
		}
		for i := range words {
			words[i].syms = applyMerge(words[i].syms, best, merged)
		}
	}
	return vocab, merges
}

func applyMerge(syms []string, p [2]string, merged string) []string {
	out := syms[:0:0]
	for i := 0; i < len(syms); i++ {
		if i+1 < len(syms) && syms[i] == p[0] && syms[i+1] == p[1] {
			out = append(out, merged)
			i++
			continue
		}
		out = append(out, syms[i])
	}
	return out
}

// bytesToUnicode is GPT-2's reversible byte → printable rune table.
func bytesToUnicode() [256]rune {
	var t [256]rune
	n := 0
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			t[b] = rune(b)
		} else {
			t[b] = rune(256 + n)
			n++
		}
	}
	return t
}
