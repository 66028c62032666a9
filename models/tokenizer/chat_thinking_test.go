package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestChatTemplateEnableThinking renders Qwen3's template with
// enable_thinking absent, False and True (lm-eval's model argument, passed
// to the template as transformers' apply_chat_template passes a keyword
// argument) and compares with transformers' renders
// (parity/tokenizer/chat_golden_thinking.py).
func TestChatTemplateEnableThinking(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "chat_golden_thinking.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Messages            []Message `json:"messages"`
		AddGenerationPrompt bool      `json:"add_generation_prompt"`
		EnableThinking      *bool     `json:"enable_thinking"`
		Rendered            string    `json:"rendered"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	tok, err := Load(filepath.Join("testdata", "qwen3"))
	if err != nil {
		t.Fatal(err)
	}
	differ := 0 // renders where enable_thinking changes the prompt
	for i, c := range cases {
		var args map[string]any
		if c.EnableThinking != nil {
			args = map[string]any{"enable_thinking": *c.EnableThinking}
			if !*c.EnableThinking && c.AddGenerationPrompt {
				differ++
			}
		}
		got, err := tok.ApplyChatTemplateArgs(c.Messages, c.AddGenerationPrompt, args)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if got != c.Rendered {
			t.Errorf("case %d (enable_thinking %v):\n got %q\nwant %q", i, args, got, c.Rendered)
		}
	}
	if differ == 0 {
		t.Fatal("no golden render has enable_thinking=False with a generation prompt")
	}
}
