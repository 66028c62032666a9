package models

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/errs"
)

// Model builds the GoMLX graphs of one decoder-only checkpoint: the full
// forward for scoring and an incremental forward over a static-shaped KV
// cache for generation. Weights are context variables named after the
// checkpoint tensors (see Load). Graph builders panic on misuse; callers
// (package engine) recover at their API boundary.
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
	// HiddenPacked is Hidden over packed rows (engine/pack.go): a row holds
	// nodes of a prefix tree in preorder, and a token sees only the tokens
	// of its own node and of that node's ancestors (nn.PackedMask: node_k ≤
	// node_q < end_k), at position k ≤ position q (inside the layer's
	// sliding window). Positions are the tokens' own (a node continues from
	// its parent's end), so each token sees exactly the keys, at exactly the
	// positions, that it sees in its own unpacked row.
	//
	//	tokens, positions, node, end [B, T] int32 → [B, T, H]
	HiddenPacked(ctx *context.Context, tokens, positions, node, end *graph.Node) *graph.Node
	// HiddenPackedAfter is HiddenPacked for rows that each continue a
	// cached prefix (a few-shot block computed once, engine/prefixkv.go):
	// every token of row b also sees row b's prefix keys and values
	// (Prefill's, in the cache layout) at positions prefixPos[b],
	// causally and inside the layer's window. A padding slot gets a
	// position past every token's, so no token sees it (a row without a
	// prefix has only such slots). The rows' positions continue from the
	// prefix's end.
	//
	//	tokens, positions, node, end [B, T] int32, prefixPos [B, P] int32,
	//	prefix L × {[B, K, P, D]} → [B, T, H]
	HiddenPackedAfter(ctx *context.Context, tokens, positions, node, end, prefixPos *graph.Node, prefix []KV) *graph.Node
	// Logits applies the LM head (tied to the embeddings when configured).
	// Call it only on the positions that are scored.
	//
	//	hidden [..., H] → [..., V] (compute dtype)
	Logits(ctx *context.Context, hidden *graph.Node) *graph.Node
	// CacheDims returns the number of layers, KV heads and head dim of the
	// cache tensors [B, K, S, D].
	CacheDims() (layers, kvHeads, headDim int)
	// Prefill runs right-padded prompts from position 0 (Hidden with
	// positions 0..T-1) and returns every layer's keys and values too, in
	// the cache layout.
	//
	//	tokens [B, T] int32 → hidden [B, T, H], kv L × {[B, K, T, D]}
	Prefill(ctx *context.Context, tokens *graph.Node) (hidden *graph.Node, kv []KV)
	// Decode runs one token per row at its own position: it writes the
	// token's keys and values into cache slot positions[b] of row b and
	// attends to slots ≤ positions[b] (within the sliding window). Slots
	// above a row's position are never read, so stale values there are
	// harmless. Prefill and Decode are exact re-arrangements of Hidden:
	// the same ops on the same values.
	//
	//	tokens [B] int32, positions [B] int32, cache L × {[B, K, S, D]} → hidden [B, H], cache'
	Decode(ctx *context.Context, tokens, positions *graph.Node, cache []KV) (hidden *graph.Node, next []KV)
	// Extend is Decode for T tokens per row: row b's tokens, at the
	// consecutive positions[b, :], write their keys and values to the
	// cache slots of those positions and attend to every slot up to their
	// own position (inside the layer's window), so the slots before the
	// row's first position must already hold its prefix (a shared prompt
	// prefix computed once). Tokens whose position is past S write
	// nothing.
	//
	//	tokens, positions [B, T] int32, cache 2L × [B, K, S, D] → hidden [B, T, H], cache'
	Extend(ctx *context.Context, tokens, positions *graph.Node, cache []KV) (hidden *graph.Node, next []KV)
	// DecodeLogits is Logits for the few rows of a decode step. It computes
	// the same dot products as Logits, possibly in a layout the backend runs
	// faster at small B (see decoder.go).
	//
	//	hidden [B, H] → [B, V]
	DecodeLogits(ctx *context.Context, hidden *graph.Node) *graph.Node
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

// Architectures lists the registered architecture names, sorted.
func Architectures() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
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
