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
	if !addGenerationPrompt {
		return e.tok.ContinueChatTemplate(tm)
	}
	return e.tok.ApplyChatTemplate(tm, true)
}

// Info implements lm.Describer with the facts lm-eval's HF model reports:
// BOS and EOS from the tokenizer; EOT is the EOS token; Pad is the token
// lm-eval's configure_pad_token settles on (padToken); MaxLength is
// Options.MaxLength (lm-eval's max_length model argument), else config.json's
// max_position_embeddings, else the tokenizer's model_max_length, else 2048.
func (e *Engine) Info() lm.Info {
	info := lm.Info{MaxLength: defaultMaxLength}
	if n := e.opts.MaxLength; n > 0 {
		info.MaxLength = n
	} else if n := e.cfg.MaxPositionEmbeddings; n > 0 {
		info.MaxLength = n
	} else if e.tok != nil && e.tok.ModelMaxLength() > 0 {
		info.MaxLength = e.tok.ModelMaxLength()
	}
	if e.tok == nil {
		return info
	}
	info.BOS = tokenInfo(e.tok, e.tok.BOS)
	info.EOS = tokenInfo(e.tok, e.tok.EOS)
	info.Pad, info.EOT = padToken(e.tok), info.EOS
	return info
}

// tokenInfo is the token get returns, nil when there is none.
func tokenInfo(tok *tokenizer.Tokenizer, get func() (int32, bool)) *lm.Token {
	id, ok := get()
	if !ok {
		return nil
	}
	s, _ := tok.IDToToken(id)
	return &lm.Token{Text: s, ID: id}
}

// padToken is the pad token lm-eval's configure_pad_token chooses: the
// tokenizer's pad_token, else its unk_token, else its eos_token, else a new
// "<|pad|>" token appended to the vocabulary. (Padding never changes
// goeval's scores; the choice is what the results file records.)
func padToken(tok *tokenizer.Tokenizer) *lm.Token {
	for _, get := range []func() (int32, bool){tok.Pad, tok.Unk, tok.EOS} {
		if t := tokenInfo(tok, get); t != nil {
			return t
		}
	}
	return &lm.Token{Text: "<|pad|>", ID: int32(tok.VocabSize())}
}
