package models

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
)

// Model builds the GoMLX graph of one decoder-only architecture. Weights are
// context variables named after the checkpoint tensors (see LoadWeights).
// Graph builders panic on misuse; callers (package engine) recover at their
// API boundary.
type Model interface {
	// Config is the checkpoint's config.json.
	Config() *Config
	// Hidden runs embeddings and every decoder layer and applies the final
	// norm. keyValid marks real (non-padding) keys; nil means "all keys are
	// real", which is exact for right padding since causality already hides
	// the padding from every real query.
	//
	//	tokens [B, T] int32, positions [B, T] int32, keyValid [B, T] bool|nil → [B, T, H]
	Hidden(ctx *context.Context, tokens, positions, keyValid *graph.Node) *graph.Node
	// Logits applies the LM head (tied to the embeddings when configured).
	// Call it only on the positions that are scored.
	//
	//	hidden [..., H] → [..., V] (compute dtype)
	Logits(ctx *context.Context, hidden *graph.Node) *graph.Node
}

// Constructor builds a Model for a validated config.
type Constructor func(cfg *Config) (Model, error)

var registry = map[string]Constructor{}

// Register makes an architecture (config.json "architectures"[0], e.g.
// "LlamaForCausalLM") available to New. It panics on duplicates.
func Register(arch string, fn Constructor) {
	if _, dup := registry[arch]; dup {
		panic("models: duplicate architecture " + arch)
	}
	registry[arch] = fn
}

// Architectures lists the registered architecture names, sorted.
func Architectures() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New returns the Model for cfg's architecture; an unknown architecture is
// bad input.
func New(cfg *Config) (Model, error) {
	arch := cfg.Arch()
	fn, ok := registry[arch]
	if !ok {
		return nil, errs.BadInputf("config.json: architecture %q is not supported (supported: %s)",
			arch, strings.Join(Architectures(), ", "))
	}
	m, err := fn(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arch, err)
	}
	return m, nil
}
