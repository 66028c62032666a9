package goeval

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/models/tokenizer"
	"github.com/goeval/goeval/tasks"
)

// Model is an opened checkpoint: the LM plus its tokenizer.
type Model struct {
	*engine.Engine
	Tokenizer *tokenizer.Tokenizer

	mu    sync.Mutex
	views []*Model // open WithAdapter views, closed before the engine
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

// WithAdapter returns a view of m that scores with separate-mode adapter i
// of the engine.Options.Adapters m was opened with (-1: the base model
// without any adapter). The view shares m's weights, tokenizer and chat
// template and compiles its own graphs; Close on the view frees only those.
// Closing m closes its views that are still open first, so a view never
// outlives the weights. Use m and its views from one goroutine at a time.
func (m *Model) WithAdapter(i int) (*Model, error) {
	e, err := m.Engine.WithAdapter(i)
	if err != nil {
		return nil, err
	}
	v := &Model{Engine: e, Tokenizer: m.Tokenizer}
	m.mu.Lock()
	m.views = append(m.views, v)
	m.mu.Unlock()
	return v, nil
}

// Close frees the model: for a view its compiled graphs, for an opened
// model its views' graphs and then the weights. Closing twice is harmless.
func (m *Model) Close() error {
	m.mu.Lock()
	views := m.views
	m.views = nil
	m.mu.Unlock()
	for _, v := range views {
		if err := v.Close(); err != nil {
			return fmt.Errorf("close adapter view: %w", err)
		}
	}
	return m.Engine.Close()
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

// RunExtra returns the model-level keys lm-eval's HF model writes at the top
// of a results file: tokenizer_pad_token, tokenizer_eos_token,
// tokenizer_bos_token ([token, "id"], [null, "None"] when absent),
// eot_token_id and max_length. goeval's tokenizer has no pad-token getter,
// so the pad token is lm-eval's fallback, the EOS token.
func (m *Model) RunExtra() map[string]any {
	tok := func(id int32, ok bool) []any {
		if !ok {
			return []any{nil, "None"}
		}
		s, _ := m.Tokenizer.IDToToken(id)
		return []any{s, strconv.Itoa(int(id))}
	}
	eosID, eosOK := m.Tokenizer.EOS()
	out := map[string]any{"tokenizer_pad_token": tok(eosID, eosOK), "tokenizer_eos_token": tok(eosID, eosOK),
		"tokenizer_bos_token": tok(m.Tokenizer.BOS())}
	if eosOK {
		out["eot_token_id"] = int(eosID)
	}
	maxLen := 2048 // lm-eval's default when neither config nor tokenizer says
	if n := m.Config().MaxPositionEmbeddings; n > 0 {
		maxLen = n
	} else if n := m.Tokenizer.ModelMaxLength(); n > 0 {
		maxLen = n
	}
	out["max_length"] = maxLen
	return out
}
