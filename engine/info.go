package engine

import (
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/models/tokenizer"
)

// defaultMaxLength is lm-eval's max_length when neither config.json nor the
// tokenizer gives one.
const defaultMaxLength = 2048

// Tokenizer is the checkpoint's tokenizer (nil when the engine serves
// token-id requests only, or Options.Tokenizer is another implementation).
func (e *Engine) Tokenizer() *tokenizer.Tokenizer { return e.tok }

// ApplyChatTemplate implements lm.ChatTemplater with the tokenizer's chat
// template (tokenizer_config.json's chat_template).
func (e *Engine) ApplyChatTemplate(msgs []lm.ChatMessage, addGenerationPrompt bool) (string, error) {
	if e.tok == nil {
		return "", errs.BadInputf("no tokenizer is loaded, so there is no chat template")
	}
	tm := make([]tokenizer.Message, len(msgs))
	for i, c := range msgs {
		tm[i] = tokenizer.Message{Role: c.Role, Content: c.Content}
	}
	return e.tok.ApplyChatTemplate(tm, addGenerationPrompt)
}

// Info implements lm.Describer with the facts lm-eval's HF model reports:
// BOS and EOS from the tokenizer; Pad and EOT are the EOS token (goeval's
// tokenizer has no pad-token getter, and lm-eval falls back to EOS);
// MaxLength is config.json's max_position_embeddings, else the tokenizer's
// model_max_length, else 2048.
func (e *Engine) Info() lm.Info {
	info := lm.Info{MaxLength: defaultMaxLength}
	if n := e.cfg.MaxPositionEmbeddings; n > 0 {
		info.MaxLength = n
	} else if e.tok != nil && e.tok.ModelMaxLength() > 0 {
		info.MaxLength = e.tok.ModelMaxLength()
	}
	if e.tok == nil {
		return info
	}
	token := func(id int32, ok bool) *lm.Token {
		if !ok {
			return nil
		}
		s, _ := e.tok.IDToToken(id)
		return &lm.Token{Text: s, ID: id}
	}
	info.BOS = token(e.tok.BOS())
	info.EOS = token(e.tok.EOS())
	info.Pad, info.EOT = info.EOS, info.EOS
	return info
}
