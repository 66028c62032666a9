package tokenizer

import (
	"path/filepath"
	"sync"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

var (
	fuzzOnce sync.Once
	fuzzToks []*Tokenizer
)

// FuzzEncodeDecode encodes arbitrary bytes with a byte-level (Qwen3) and a
// sentencepiece-style (Llama 2) tokenizer: no panic, ids in range, and a
// byte-level round trip that gives the NFC-normalized text back for valid
// UTF-8.
func FuzzEncodeDecode(f *testing.F) {
	for _, s := range []string{"", "hello world", "<|im_start|>user\n hi<|im_end|>", "  \t\r\n\u00a0", "😀👩‍💻", "\xff\xfe", "<0x41> <s></s>"} {
		f.Add(s)
	}
	fuzzOnce.Do(func() {
		for _, n := range []string{"qwen3", "llama2"} {
			tok, err := Load(filepath.Join("testdata", n))
			if err != nil {
				f.Fatal(err)
			}
			fuzzToks = append(fuzzToks, tok)
		}
	})
	f.Fuzz(func(t *testing.T, s string) {
		for i, tok := range fuzzToks {
			ids := tok.Encode(s, true)
			for _, id := range ids {
				if id < 0 || int(id) >= tok.VocabSize() {
					t.Fatalf("id %d out of range", id)
				}
			}
			dec := tok.Decode(ids, false)
			// Qwen3 normalizes with NFC, so the round trip gives NFC(s).
			if i == 0 && utf8.ValidString(s) && dec != norm.NFC.String(s) {
				t.Fatalf("qwen3 round trip: %q -> %v -> %q", s, ids, dec)
			}
			tok.Decode([]int32{-1, 1 << 30, 0}, true)
		}
	})
}
