package models

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
)

// Model builds the GoMLX graphs of one decoder-only checkpoint: one
// forward pass (Forward) for scoring, prefill, decode over a static-shaped
// KV cache and the rest, and the LM head. Weights are context variables
// named after the checkpoint tensors (see Load). Graph builders panic on
// misuse; callers (package engine) recover at their API boundary.
type Model interface {
	// Config is the checkpoint's config.json.
	Config() *Config
	// Forward runs embeddings, every decoder layer and the final norm over
	// in's tokens, each seeing the keys in describes (forward.go).
	Forward(ctx *context.Context, in Inputs) Outputs
	// Logits applies the LM head (tied to the embeddings when configured).
	// Call it only on the positions that are scored.
	//
	//	hidden [..., H] → [..., V] (compute dtype)
	Logits(ctx *context.Context, hidden *graph.Node) *graph.Node
	// DecodeLogits is Logits for the few rows of a decode step. It computes
	// the same dot products as Logits, possibly in a layout the backend runs
	// faster at small B (see head.go).
	//
	//	hidden [B, H] → [B, V]
	DecodeLogits(ctx *context.Context, hidden *graph.Node) *graph.Node
	// CacheDims returns the number of layers, KV heads and head dim of the
	// cache tensors [B, K, S, D].
	CacheDims() (layers, kvHeads, headDim int)
}

// KV is one layer's key/value cache: rotated keys and values, each
// [B, K, S, D] (head-major: every row and KV head one contiguous [S, D]
// matrix, read in place by batched products), where cache slot s holds the
// token at position s of its row (slots are absolute positions).
type KV struct{ K, V *graph.Node }

// Arch is everything goeval knows about one architecture (config.json
// "architectures"[0]); each architecture's file registers one.
type Arch struct {
	// Defaults fills the architecture's own defaults and derived fields of
	// the config after the common ones (nil: none).
	Defaults func(c *Config) error
	// Validate checks the architecture's config.json keys after the common
	// checks; errors are errs.BadInput naming config.json and the field.
	Validate func(c *Config) error
	// Tensors lists every tensor a checkpoint holds, name → shape (Hugging
	// Face layout: Linear weights are [out, in]).
	Tensors func(c *Config) map[string][]int
	// New builds the graph constructor of a validated config.
	New func(c *Config) (Model, error)
}

var registry = map[string]Arch{}

// Register makes an architecture (config.json "architectures"[0], e.g.
// "LlamaForCausalLM") loadable. It panics on duplicates or missing parts.
func Register(name string, a Arch) {
	if _, dup := registry[name]; dup {
		panic("models: duplicate architecture " + name)
	}
	if a.Validate == nil || a.Tensors == nil || a.New == nil {
		panic("models: architecture " + name + " needs Validate, Tensors and New")
	}
	registry[name] = a
}

// Architectures lists the architecture names goeval reads, sorted: the
// registered ones and the multimodal ones read as their text model.
func Architectures() []string {
	names := make([]string, 0, len(registry)+len(wrappers))
	for n := range registry {
		names = append(names, n)
	}
	for n := range wrappers { // read as their text model (wrapped.go)
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// lookup returns the registration of c's architecture; an unknown one is
// bad input.
func (c *Config) lookup() (Arch, error) {
	a, ok := registry[c.Arch()]
	if !ok {
		return Arch{}, errs.BadInputf("config.json: architecture %q is not supported (supported: %s)",
			c.Arch(), strings.Join(Architectures(), ", "))
	}
	return a, nil
}

// New returns the Model for cfg's architecture; an unknown architecture is
// bad input.
func New(cfg *Config) (Model, error) {
	a, err := cfg.lookup()
	if err != nil {
		return nil, err
	}
	m, err := a.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Arch(), err)
	}
	return m, nil
}

// ExpectedTensors lists every tensor a Hugging Face checkpoint of c's
// architecture holds, name → shape (HF layout: Linear weights are
// [out, in]); nil for an unknown architecture.
func ExpectedTensors(c *Config) map[string][]int {
	a, err := c.lookup()
	if err != nil {
		return nil
	}
	return a.Tensors(c)
}
