package goeval

import (
	"fmt"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/models/tokenizer"
	"github.com/goeval/goeval/tasks"
)

// Model is an opened checkpoint: the LM plus its tokenizer.
type Model struct {
	*engine.Engine
	Tokenizer *tokenizer.Tokenizer
}

// OpenModel loads a Hugging Face checkpoint directory (config.json,
// safetensors, tokenizer.json) with its tokenizer for string requests.
func OpenModel(dir string, o engine.Options) (*Model, error) {
	tok, err := tokenizer.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", dir, err)
	}
	o.Tokenizer = engineTokenizer{tok}
	e, err := engine.Open(dir, o)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", dir, err)
	}
	return &Model{Engine: e, Tokenizer: tok}, nil
}

// ChatTemplate returns a tasks.Options.ChatTemplate rendering with the
// model's chat template.
func (m *Model) ChatTemplate() func([]tasks.ChatMessage, bool) (string, error) {
	return func(msgs []tasks.ChatMessage, gen bool) (string, error) {
		tm := make([]tokenizer.Message, len(msgs))
		for i, c := range msgs {
			tm[i] = tokenizer.Message{Role: c.Role, Content: c.Content}
		}
		return m.Tokenizer.ApplyChatTemplate(tm, gen)
	}
}

// engineTokenizer adapts models/tokenizer to engine.Tokenizer.
type engineTokenizer struct{ t *tokenizer.Tokenizer }

func (a engineTokenizer) Encode(s string, special bool) []int32 { return a.t.Encode(s, special) }
func (a engineTokenizer) Decode(ids []int32) string             { return a.t.Decode(ids, true) }
func (a engineTokenizer) BOS() int32 {
	if id, ok := a.t.BOS(); ok {
		return id
	}
	return -1
}
func (a engineTokenizer) EOS() int32 {
	if id, ok := a.t.EOS(); ok {
		return id
	}
	return -1
}
