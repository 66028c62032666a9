package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

// shrinkTokenizer cuts a real tokenizer.json down to the vocab entries with
// ids below maxID, the merges among them and at most eight added tokens, so
// the fuzzer mutates a realistic structure of a few kilobytes.
func shrinkTokenizer(f *testing.F, dir string, maxID float64) []byte {
	f.Helper()
	b, err := readMaybeGzip(filepath.Join("testdata", dir, "tokenizer.json.gz"))
	if err != nil {
		f.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		f.Fatal(err)
	}
	model := doc["model"].(map[string]any)
	vocab := model["vocab"].(map[string]any)
	for k, v := range vocab {
		if v.(float64) >= maxID {
			delete(vocab, k)
		}
	}
	var merges []any
	for _, m := range model["merges"].([]any) {
		var a, b string
		switch x := m.(type) {
		case string:
			a, b, _ = strings.Cut(x, " ")
		case []any:
			a, b = x[0].(string), x[1].(string)
		}
		if vocab[a] != nil && vocab[b] != nil && vocab[a+b] != nil {
			merges = append(merges, m)
		}
	}
	model["merges"] = merges
	if added, _ := doc["added_tokens"].([]any); len(added) > 8 {
		doc["added_tokens"] = added[:8]
	}
	out, err := json.Marshal(doc)
	if err != nil {
		f.Fatal(err)
	}
	return out
}

// fuzzTexts are encoded by every tokenizer FuzzFromJSON accepts.
var fuzzTexts = []string{"", "Hello, world! 123", " \t\n<s></s>", "héllo 😀 \xff", "<|endoftext|>x"}

// FuzzFromJSON parses arbitrary bytes as tokenizer.json: no panic, no
// allocation out of proportion to the input, and an accepted tokenizer
// encodes into non-negative ids that all decode, with or without the
// post-processor's special tokens.
func FuzzFromJSON(f *testing.F) {
	f.Add(shrinkTokenizer(f, "gpt2", 400))
	f.Add(shrinkTokenizer(f, "llama2", 400))
	f.Add(shrinkTokenizer(f, "qwen3", 400))
	f.Add([]byte(`{"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]},"post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],"pair":[],"special_tokens":{"<s>":{"id":"<s>","ids":[1],"tokens":["<s>"]}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := FromJSON(data)
		if err != nil {
			return
		}
		if n := len(tok.model.idToToken); n > 2*len(data)+1<<16 {
			t.Fatalf("a %d-byte file allocated a %d-entry id table", len(data), n)
		}
		for _, s := range fuzzTexts {
			for _, special := range []bool{false, true} {
				ids := tok.Encode(s, special)
				for _, id := range ids {
					if id < 0 {
						t.Fatalf("Encode(%q, %v) = %v: negative id", s, special, ids)
					}
				}
				if !special {
					for _, id := range ids {
						if _, ok := tok.IDToToken(id); !ok {
							t.Fatalf("Encode(%q) = %v: id %d has no token", s, ids, id)
						}
					}
				}
				tok.Decode(ids, special)
			}
		}
	})
}

// FuzzChatTemplate renders an arbitrary chat template source over a
// conversation with an arbitrary message: no panic, no hang; a template
// either renders or returns an error, and renders the same again from the
// template cache.
func FuzzChatTemplate(f *testing.F) {
	for _, n := range []string{"qwen2.5.jinja", "smollm2.jinja"} {
		b, err := os.ReadFile(filepath.Join("testdata", "templates", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), "What is 2+2?", true)
	}
	for _, n := range []string{"qwen3", "llama3", "gemma3"} {
		b, err := readMaybeGzip(filepath.Join("testdata", n, "tokenizer_config.json.gz"))
		if err != nil {
			f.Fatal(err)
		}
		var tc tokenizerConfigJSON
		if err := json.Unmarshal(b, &tc); err != nil {
			f.Fatal(err)
		}
		src, err := parseChatTemplate(tc.ChatTemplate)
		if err != nil || src == "" {
			f.Fatalf("%s: no chat template (%v)", n, err)
		}
		f.Add(src, "<|im_start|>not a real token", false)
	}
	f.Add(`{% if messages|length > 1 %}{{ raise_exception('one message only') }}{% endif %}{{ messages[0]['content'] }}`, "hi", false)
	f.Add(`{% for m in messages %}{{ m.role|upper }}: {{ m.content|trim }}{% endfor %}`, " x ", true)
	f.Fuzz(func(t *testing.T, src, content string, addGen bool) {
		defer templateCache.Clear() // one entry per input would grow without bound
		msgs := []Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: content}, {Role: "assistant", Content: content}}
		vars := map[string]any{"bos_token": "<s>", "eos_token": "</s>"}
		out, err := RenderChatTemplate(src, msgs, addGen, vars)
		again, err2 := RenderChatTemplate(src, msgs, addGen, vars) // the cached template
		if out != again || (err == nil) != (err2 == nil) {
			t.Fatalf("two renders differ: %q, %v and %q, %v", out, err, again, err2)
		}
	})
}

// TestChatTemplateSandbox checks the limits FuzzChatTemplate relies on:
// templates that crashed the process, hung or read files are errors, and
// the same features within bounds still render.
func TestChatTemplateSandbox(t *testing.T) {
	hostname := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(hostname, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	for src, want := range map[string]string{
		`{% for i in range(3) %}{{ i }}{% endfor %}{{ range(10, 0, -3)|list }}`:                         "012[10, 7, 4, 1]",
		`{% macro f(n) %}{% if n > 0 %}{{ f(n-1) }}{% else %}done{% endif %}{% endmacro %}{{ f(150) }}`: "done",
	} {
		if got, err := RenderChatTemplate(src, nil, false, nil); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", src, got, err, want)
		}
	}
	for _, src := range []string{
		`{% for i in range(100000000) %}{% endfor %}`,        // hung for minutes
		`{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}`, // fatal stack overflow
		`{% include "` + hostname + `" %}`,                   // read any file
		`{% include "self" %}`,
		`{% import "x" as y %}`,
		`{{ "ab" * -1 }}`, // panicked
		`{{ 1 % 0 }}`,     // panicked
	} {
		if got, err := RenderChatTemplate(src, nil, false, nil); err == nil {
			t.Errorf("%s rendered %q, want an error", src, got)
		}
	}
}
