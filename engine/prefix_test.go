package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/models/tokenizer"
	"github.com/goeval/goeval/synth"
)

// synthTokenizer writes the synthetic tokenizer with tokenizer_config.json's
// special tokens replaced by special (null values remove a token) and
// loads it.
func synthTokenizer(t *testing.T, special map[string]any) *tokenizer.Tokenizer {
	t.Helper()
	dir := t.TempDir()
	if _, err := synth.Tokenizer(dir, 300); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "tokenizer_config.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	for k, v := range special {
		cfg[k] = v
	}
	if b, err = json.Marshal(cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestPrefixAndPadToken checks lm-eval's HFLM rules: prefix_token_id is the
// override, else the tokenizer's BOS, else the tokenizer's EOS, never
// config.json's bos_token_id while the tokenizer names a token; the pad
// token is pad_token, else unk_token, else eos_token, else a new <|pad|>.
func TestPrefixAndPadToken(t *testing.T) {
	// The synthetic vocabulary of 300: <|endoftext|> 297, <|im_start|> 298, <|im_end|> 299.
	cfg := &models.Config{BOSTokenID: 297, EOSTokenIDs: []int{299}}
	seven := int32(7)
	cases := []struct {
		name     string
		special  map[string]any
		override *int32
		prefix   int32
		pad      string
		padID    int32
	}{
		{"qwen chat: no bos, eos im_end, pad endoftext", map[string]any{"eos_token": "<|im_end|>"}, nil, 299, "<|endoftext|>", 297},
		{"bos wins", map[string]any{"bos_token": "<|im_start|>", "eos_token": "<|im_end|>"}, nil, 298, "<|endoftext|>", 297},
		{"override wins", map[string]any{"bos_token": "<|im_start|>"}, &seven, 7, "<|endoftext|>", 297},
		{"pad from unk", map[string]any{"pad_token": nil, "unk_token": "<|im_start|>", "eos_token": "<|im_end|>"}, nil, 299, "<|im_start|>", 298},
		{"pad from eos", map[string]any{"pad_token": nil, "eos_token": "<|im_end|>"}, nil, 299, "<|im_end|>", 299},
		{"new pad, prefix from config", map[string]any{"pad_token": nil, "eos_token": nil}, nil, 297, "<|pad|>", 300},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := synthTokenizer(t, c.special)
			if got := prefixToken(c.override, tok, cfg); got != c.prefix {
				t.Errorf("prefix token %d, want %d", got, c.prefix)
			}
			if p := padToken(tok); p.Text != c.pad || p.ID != c.padID {
				t.Errorf("pad token %q %d, want %q %d", p.Text, p.ID, c.pad, c.padID)
			}
		})
	}
	if got := prefixToken(nil, nil, &models.Config{BOSTokenID: -1, EOSTokenIDs: []int{5}}); got != 5 {
		t.Errorf("no tokenizer, no config bos: prefix %d, want config eos 5", got)
	}
}
