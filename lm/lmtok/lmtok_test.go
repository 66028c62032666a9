package lmtok

import (
	"strings"
	"testing"

	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/models/tokenizer"
)

// TestChatWithoutTemplate: a tokenizer without a chat template (or none at
// all) has none, and rendering says so instead of rendering plain text.
func TestChatWithoutTemplate(t *testing.T) {
	for _, c := range []Chat{{}, {Tok: &tokenizer.Tokenizer{}}} {
		if c.ChatTemplate() != "" {
			t.Errorf("%+v: ChatTemplate() = %q, want none", c, c.ChatTemplate())
		}
		_, err := c.ApplyChatTemplate([]lm.ChatMessage{{Role: "user", Content: "hi"}}, true)
		if err == nil || !strings.Contains(err.Error(), "no chat template") {
			t.Errorf("%+v: ApplyChatTemplate error %v, want one saying there is no chat template", c, err)
		}
	}
}
