package engine

import (
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmtok"
	"github.com/goeval/goeval/models/tokenizer"
)

// defaultMaxLength is lm-eval's max_length when neither config.json nor the
// tokenizer gives one.
const defaultMaxLength = 2048

// Tokenizer is the checkpoint's tokenizer (nil when the engine serves
// token-id requests only, or Options.Tokenizer is another implementation).
func (e *Engine) Tokenizer() *tokenizer.Tokenizer { return e.tok }

// ChatTemplate implements lm.ChatTemplater: the tokenizer's chat template
// ("" without a tokenizer or a template).
func (e *Engine) ChatTemplate() string { return lmtok.Chat{Tok: e.tok}.ChatTemplate() }

// ApplyChatTemplate implements lm.ChatTemplater with the tokenizer's chat
// template (tokenizer_config.json's chat_template) and
// Options.ChatTemplateArgs.
func (e *Engine) ApplyChatTemplate(msgs []lm.ChatMessage, addGenerationPrompt bool) (string, error) {
	return lmtok.Chat{Tok: e.tok, Args: e.opts.ChatTemplateArgs}.ApplyChatTemplate(msgs, addGenerationPrompt)
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
	info.BOS = lmtok.Token(e.tok, e.tok.BOS)
	info.EOS = lmtok.Token(e.tok, e.tok.EOS)
	info.Pad, info.EOT = padToken(e.tok), info.EOS
	return info
}

// padToken is the pad token lm-eval's configure_pad_token chooses: the
// tokenizer's pad_token, else its unk_token, else its eos_token, else a new
// "<|pad|>" token appended to the vocabulary. (Padding never changes
// goeval's scores; the choice is what the results file records.)
func padToken(tok *tokenizer.Tokenizer) *lm.Token {
	for _, get := range []func() (int32, bool){tok.Pad, tok.Unk, tok.EOS} {
		if t := lmtok.Token(tok, get); t != nil {
			return t
		}
	}
	return &lm.Token{Text: "<|pad|>", ID: int32(tok.VocabSize())}
}
