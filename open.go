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
	o.Tokenizer = tok
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

