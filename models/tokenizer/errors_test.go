package tokenizer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
)

// TestMalformed checks that broken tokenizer.json files give one-line
// bad-input errors naming the file and the problem.
func TestMalformed(t *testing.T) {
	bpe := func(extra string) string {
		return `{"added_tokens": [], "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]` + extra + `}}`
	}
	cases := []struct{ name, json, want string }{
		{"bad json", `{"model": `, "invalid JSON"},
		{"no model", `{"added_tokens": []}`, `missing "model"`},
		{"unknown model", `{"model": {"type": "Frobnicate"}}`, `unsupported model type "Frobnicate"`},
		{"unknown merge token", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a zz"]}}`, "not in the vocab"},
		{"merged token missing", `{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a b"]}}`, `merged token "ab"`},
		{"bad merge string", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["ab"]}}`, "two tokens"},
		{"invalid regex", bpe(`}, "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(unclosed"}, "behavior": "Isolated"`), "invalid regex"},
		{"unknown pre_tokenizer", bpe(`}, "pre_tokenizer": {"type": "Nope"`), `unsupported pre_tokenizer type "Nope"`},
		{"unknown normalizer", bpe(`}, "normalizer": {"type": "Nope"`), `unsupported normalizer type "Nope"`},
		{"unknown decoder", bpe(`}, "decoder": {"type": "Nope"`), `unsupported decoder type "Nope"`},
		{"bad behavior", bpe(`}, "pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "Sideways"`), "unknown split behavior"},
		{"template token missing", bpe(`}, "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>"}}], "special_tokens": {}`), `special token "<s>"`},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".json")
			if err := os.WriteFile(name, []byte(c.json), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(name)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			msg := err.Error()
			if !errs.IsBadInput(err) || !strings.Contains(msg, name) || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
				t.Fatalf("error %q: want a one-line bad-input error naming %s and containing %q", msg, name, c.want)
			}
		})
	}
	if _, err := Load(filepath.Join(dir, "missing")); err == nil || !errs.IsBadInput(err) {
		t.Fatalf("missing path: err = %v, want bad input", err)
	}
}

// TestBadConfig checks tokenizer_config.json errors name that file.
func TestBadConfig(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(`{"bos_token": `), 0o644)
	_, err := Load(dir)
	if err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), "tokenizer_config.json") {
		t.Fatalf("err = %v, want bad input naming tokenizer_config.json", err)
	}
}
