// Package lmtok is the one adapter from a Hugging Face tokenizer
// (models/tokenizer) to the lm contract: its chat template as an
// lm.ChatTemplater and its tokens as lm.Token values. The engine and the
// clients of models behind an API both use it, so a checkpoint's template
// renders the same prompts whichever runs the model.
package lmtok

import (
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/models/tokenizer"
)

// Chat is a tokenizer's chat template (tokenizer_config.json's
// chat_template) as an lm.ChatTemplater. A nil tokenizer, or one without a
// template, has none: ChatTemplate is "" and rendering fails. Args are more
// template variables (lm-eval's chat_template_args and enable_thinking),
// passed as transformers passes apply_chat_template's keyword arguments.
type Chat struct {
	Tok  *tokenizer.Tokenizer
	Args map[string]any
}

var _ lm.ChatTemplater = Chat{}

// ChatTemplate implements lm.ChatTemplater.
func (c Chat) ChatTemplate() string {
	if c.Tok == nil {
		return ""
	}
	return c.Tok.ChatTemplate()
}

// ApplyChatTemplate implements lm.ChatTemplater: with addGenerationPrompt
// the assistant header follows the messages; without it the final message
// is continued (transformers' continue_final_message).
func (c Chat) ApplyChatTemplate(msgs []lm.ChatMessage, addGenerationPrompt bool) (string, error) {
	if c.ChatTemplate() == "" {
		return "", errs.BadInputf("the tokenizer has no chat template (tokenizer_config.json chat_template)")
	}
	tm := make([]tokenizer.Message, len(msgs))
	for i, m := range msgs {
		tm[i] = tokenizer.Message{Role: m.Role, Content: m.Content}
	}
	if !addGenerationPrompt {
		return c.Tok.ContinueChatTemplateArgs(tm, c.Args)
	}
	return c.Tok.ApplyChatTemplateArgs(tm, true, c.Args)
}

// Token is the token get returns (tok.BOS, tok.EOS, tok.Pad, …) as lm
// describes it, nil when the tokenizer has no such token.
func Token(tok *tokenizer.Tokenizer, get func() (int32, bool)) *lm.Token {
	id, ok := get()
	if !ok {
		return nil
	}
	s, _ := tok.IDToToken(id)
	return &lm.Token{Text: s, ID: id}
}
