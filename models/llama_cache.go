package models

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/models/nn"
)

// KV is one layer's key/value cache: rotated keys and values, each
// [B, S, K, D], where cache slot s holds the token at position s of its
// row (slots are absolute positions).
type KV struct{ K, V *Node }

// CachedModel is a Model with an incremental forward over a static-shaped
// KV cache, for generation. Prefill starts fresh rows; Decode adds one token
// per row. Both are exact re-arrangements of Hidden: the same ops on the
// same values, so logits equal the full-sequence ones.
type CachedModel interface {
	Model
	// CacheDims returns the number of layers, KV heads and head dim of the
	// cache tensors [B, S, K, D].
	CacheDims() (layers, kvHeads, headDim int)
	// Prefill runs right-padded prompts from position 0 (Hidden with
	// positions 0..T-1) and returns every layer's keys and values too.
	//
	//	tokens [B, T] int32 → hidden [B, T, H], kv L × {[B, T, K, D]}
	Prefill(ctx *context.Context, tokens *Node) (hidden *Node, kv []KV)
	// Decode runs one token per row at its own position: it writes the
	// token's keys and values into cache slot positions[b] of row b and
	// attends to slots ≤ positions[b] (within the sliding window). Slots
	// above a row's position are never read, so stale values there are
	// harmless.
	//
	//	tokens [B] int32, positions [B] int32, cache L × {[B, S, K, D]} → hidden [B, H], cache'
	Decode(ctx *context.Context, tokens, positions *Node, cache []KV) (hidden *Node, next []KV)
}

// kvHook receives a layer's new keys and values [B, T, K, D] and returns the
// ones attention uses.
type kvHook func(k, v *Node) (*Node, *Node)

var _ CachedModel = (*Llama)(nil)

// CacheDims implements CachedModel.
func (m *Llama) CacheDims() (layers, kvHeads, headDim int) {
	return m.cfg.NumHiddenLayers, m.kvHeads, m.dim
}

// Prefill implements CachedModel.
func (m *Llama) Prefill(ctx *context.Context, tokens *Node) (*Node, []KV) {
	g := tokens.Graph()
	b, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
	positions := Iota(g, shapes.Make(dtypes.Int32, b, t), 1)
	kv := make([]KV, m.cfg.NumHiddenLayers)
	hooks := func(i int) kvHook {
		return func(k, v *Node) (*Node, *Node) {
			kv[i] = KV{K: k, V: v}
			return k, v
		}
	}
	masks := func(w int) *Node { return nn.AttentionMask(positions, positions, nil, w) }
	return m.cachedForward(ctx, tokens, positions, masks, hooks), kv
}

// Decode implements CachedModel.
func (m *Llama) Decode(ctx *context.Context, tokens, positions *Node, cache []KV) (*Node, []KV) {
	g := tokens.Graph()
	b := tokens.Shape().Dim(0)
	if len(cache) != m.cfg.NumHiddenLayers {
		panic(fmt.Sprintf("Decode: %d cache layers for a %d-layer model", len(cache), m.cfg.NumHiddenLayers))
	}
	s := cache[0].K.Shape().Dim(1)
	tok := Reshape(tokens, b, 1)
	pos := Reshape(positions, b, 1)
	slots := Iota(g, shapes.Make(dtypes.Int32, b, s), 1) // [B, S]
	// write [B, S, K, D]: true at each row's slot positions[b].
	write := Reshape(Equal(slots, BroadcastToDims(pos, b, s)), b, s, 1, 1)
	write = BroadcastToDims(write, b, s, m.kvHeads, m.dim)
	next := make([]KV, len(cache))
	hooks := func(i int) kvHook {
		return func(k, v *Node) (*Node, *Node) {
			k = Where(write, BroadcastToDims(k, b, s, m.kvHeads, m.dim), cache[i].K)
			v = Where(write, BroadcastToDims(v, b, s, m.kvHeads, m.dim), cache[i].V)
			next[i] = KV{K: k, V: v}
			return k, v
		}
	}
	masks := func(w int) *Node { return nn.AttentionMask(pos, slots, nil, w) }
	h := m.cachedForward(ctx, tok, pos, masks, hooks)
	return Reshape(h, b, m.cfg.HiddenSize), next
}

// cachedForward is the decoder with a per-layer KV hook and masks built by
// maskFor(window) ([B, T, S], S the attended length).
func (m *Llama) cachedForward(ctx *context.Context, tokens, positions *Node, maskFor func(int) *Node, hook func(int) kvHook) *Node {
	g := tokens.Graph()
	b, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
	embed := Param(ctx, g, "model.embed_tokens.weight") // [V, H]
	x := Gather(embed, Reshape(tokens, b, t, 1))        // [B, T, H]
	masks := map[int]*Node{}
	for i := range m.cfg.NumHiddenLayers {
		w := m.window[i]
		if masks[w] == nil {
			masks[w] = maskFor(w)
		}
		x = m.layer(ctx, i, x, positions, masks[w], hook(i))
	}
	x = nn.RMSNorm(x, Param(ctx, g, "model.norm.weight"), m.cfg.RMSNormEps)
	x.AssertDims(b, t, m.cfg.HiddenSize)
	return x
}

// maxSmallCrosses is simplego's limit (16 blocks of 32×32 f32) below which
// a DotGeneral takes its direct "small" path; above it the "large" path
// pads the rows to 32 and re-blocks the whole weight matrix on every call.
const maxSmallCrosses = 16 * 32 * 32

// DecodeLogits is Logits for a few decode rows, computed as a batched
// matmul over vocabulary chunks so that each chunk stays on simplego's
// direct path: with B < 32 rows the plain [B, H] × [V, H]ᵀ would take the
// padded large path (at B = 1, 32× the arithmetic plus a copy of the whole
// LM head per token). The values are the same dot products; only the
// backend's kernel choice changes. It falls back to Logits when an adapter
// targets the head or V has no suitable divisor.
//
//	hidden [B, H] → [B, V]
func (m *Llama) DecodeLogits(ctx *context.Context, hidden *Node) *Node {
	g := hidden.Graph()
	name := "lm_head.weight"
	if m.cfg.TieWordEmbeddings {
		name = "model.embed_tokens.weight"
	}
	b, h := hidden.Shape().Dim(0), hidden.Shape().Dim(1)
	v := m.cfg.VocabSize
	c := vocabChunks(b, v)
	if b >= 32 || c <= 1 || adapterVar(ctx, g, name, "A") != nil {
		return m.Logits(ctx, hidden)
	}
	w := Reshape(Param(ctx, g, name), c, v/c, h)                    // [C, V/C, H]
	x := BroadcastToDims(Reshape(hidden, 1, b, h), c, b, h)         // [C, B, H]
	out := DotGeneral(x, []int{2}, []int{0}, w, []int{2}, []int{0}) // [C, B, V/C]
	return Reshape(TransposeAllDims(out, 1, 0, 2), b, v)
}

// vocabChunks is the smallest divisor c of v with b·v/c ≤ maxSmallCrosses
// (at most 4096 chunks), or 0.
func vocabChunks(b, v int) int {
	for c := 1; c <= 4096 && c <= v; c++ {
		if v%c == 0 && b*(v/c) <= maxSmallCrosses {
			return c
		}
	}
	return 0
}
