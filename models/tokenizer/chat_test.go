package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type chatCase struct {
	Template            string    `json:"template"`
	Tokenizer           string    `json:"tokenizer"`
	Messages            []Message `json:"messages"`
	AddGenerationPrompt bool      `json:"add_generation_prompt"`
	Rendered            string    `json:"rendered"`
}

// TestChatTemplates renders every golden conversation (transformers'
// jinja2 renders, cross-checked with @lenml/tokenizers) and compares.
func TestChatTemplates(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "chat_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []chatCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	toks := map[string]*Tokenizer{}
	same := map[string]int{}
	for i, c := range cases {
		tok := toks[c.Tokenizer]
		if tok == nil {
			if tok, err = Load(filepath.Join("testdata", c.Tokenizer)); err != nil {
				t.Fatal(err)
			}
			toks[c.Tokenizer] = tok
		}
		got, err := renderCase(tok, c)
		if err != nil {
			t.Errorf("case %d (%s): %v", i, c.Template, err)
			continue
		}
		if got != c.Rendered {
			t.Errorf("case %d (%s):\n got %q\nwant %q", i, c.Template, got, c.Rendered)
			continue
		}
		same[c.Template]++
	}
	for _, name := range []string{"qwen3", "llama3", "gemma3", "qwen2.5", "smollm2"} {
		if same[name] < 20 {
			t.Errorf("%s: %d identical renders, want >= 20", name, same[name])
		}
	}
	t.Logf("identical renders: %v", same)
}

// renderCase uses testdata/templates/<template>.jinja when it exists, else
// the tokenizer's own chat_template.
func renderCase(tok *Tokenizer, c chatCase) (string, error) {
	src, err := os.ReadFile(filepath.Join("testdata", "templates", c.Template+".jinja"))
	if os.IsNotExist(err) {
		return tok.ApplyChatTemplate(c.Messages, c.AddGenerationPrompt)
	}
	if err != nil {
		return "", err
	}
	vars := map[string]any{"eos_token": tok.cfg.eos}
	return RenderChatTemplate(string(src), c.Messages, c.AddGenerationPrompt, vars)
}

func TestChatTemplateRaise(t *testing.T) {
	_, err := RenderChatTemplate(`{{ raise_exception("roles must alternate") }}`, nil, false, nil)
	if err == nil || !strings.Contains(err.Error(), "roles must alternate") {
		t.Fatalf("err = %v, want the raised message", err)
	}
	var tok Tokenizer
	if _, err := tok.ApplyChatTemplate(nil, true); err == nil {
		t.Fatal("no template: want an error")
	}
}
