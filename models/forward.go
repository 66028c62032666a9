package models

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/ml/context"
)

// Inputs are one forward pass's inputs: B rows of T tokens, their
// positions and what each token sees. A model has L layers with K KV heads
// of D dims (CacheDims) and hidden size H. What the tokens see is one of:
//
//   - by default, its own row causally (unpacked rows, right-padded), up
//     to KeyValid;
//   - with Packing, the nodes of a prefix tree packed in its row (and with
//     Past, a cached prefix before them too);
//   - with Cache, the KV cache its row's tokens are written into.
//
// Every case builds the decoder's same ops on the same values, so a token
// gets the same bits whichever way its keys are laid out (engine tests).
// A combination outside these panics.
type Inputs struct {
	// Tokens are the token ids, [B, T] int32; with Cache also [B], one
	// token per row (a decode step).
	Tokens *graph.Node
	// Positions are the tokens' positions (rotary embeddings, causality,
	// sliding windows), int32 of Tokens' shape. nil means 0…T-1 in every
	// row; Packing, Past and Cache need them.
	Positions *graph.Node
	// KeyValid marks real (non-padding) keys, [B, T] bool (unpacked rows
	// only). nil means every key is real, which is exact for right padding
	// since causality already hides the padding from every real query.
	KeyValid *graph.Node
	// Packing makes the rows packed rows (engine/plan): a row holds nodes
	// of a prefix tree in preorder, and a token sees only the tokens of
	// its own node and of that node's ancestors (nn.PackedMask: node_k ≤
	// node_q < end_k), at position k ≤ position q (inside the layer's
	// sliding window). Positions are the tokens' own (a node continues from
	// its parent's end), so each token sees exactly the keys, at exactly
	// the positions, that it sees in its own unpacked row.
	Packing *Packing
	// Past, with Packing, is the cached prefixes the packed rows continue
	// (a few-shot block computed once, engine/prefixkv.go): every token of
	// row b also sees row b's prefix keys and values at positions
	// Past.Pos[b], causally and inside the layer's window. The rows'
	// positions continue from the prefix's end.
	Past *Past
	// Cache is a KV cache, L × {[B, K, S, D]}, where slot s of a row holds
	// its token at position s. Row b's tokens write their keys and values
	// into the slots of their positions and attend to every slot up to
	// their own position (inside the layer's window), so the slots before
	// a row's first position must already hold its prefix; slots above a
	// row's position are never read, so stale values there are harmless.
	// One token per row (Tokens [B], a decode step) writes its slot in
	// place where the backend can (DynamicUpdateSlice); T tokens per row
	// (an extend after a shared prompt prefix) must be at consecutive
	// positions, and those past S write nothing. Outputs.KV is the written
	// cache. Not with KeyValid, Packing, Past or ReturnKV.
	Cache []KV
	// ReturnKV asks for every layer's keys and values in Outputs.KV, in
	// the cache layout (a prefill). Unpacked rows only.
	ReturnKV bool
	// Row, with Cache and Tokens [P, T], makes each row of tokens a chunk
	// continuing a cache row: row p's tokens continue cache row Row[p]
	// (Row [P] int32, distinct rows) — one chunk of a long prompt (a
	// chunked prefill, P = 1), or prompts after a shared prefix already
	// copied into their rows. Their keys and values go into that row's
	// slots at their positions, which must be consecutive and within S (in
	// place on goeval's pure-Go backend, which gets the cache donated; not
	// on simplego, which lacks DynamicUpdateSlice), and they attend to the
	// row's first Keys slots (Keys ≥ each chunk's last position + 1; 0:
	// all S). So a prompt prefilled chunk after chunk holds one chunk's
	// activations, not the whole prompt's, each chunk computes only the
	// scores of the keys before its end, and no row's cache is copied.
	// Outputs.KV is the written cache.
	Row  *graph.Node
	Keys int
	// RowLen is each row's number of real tokens, [B] int32 (unpacked
	// rows only; the rest of a row is padding). A model whose rotary
	// embedding depends on a sequence's length (LongRoPE, rope_long.go)
	// reads it; nil means each row's last position + 1. With Row it is
	// the length of the whole row each chunk belongs to ([P]: a long
	// prompt's, a scored row's, a prompt's with its shared prefix), so a
	// chunk's rotary embedding is the one-pass row's; with Cache and
	// Tokens [B, T] (prompts after a shared prefix) each prompt's whole
	// length, prefix included.
	RowLen *graph.Node
}

// Packing is packed rows' prefix-tree layout (see Inputs.Packing).
type Packing struct {
	// Node is each token's node number in its row (1, 2, … in preorder;
	// padding 0) and End one past the number of the node's last
	// descendant in the row (padding 1), each [B, T] int32.
	Node, End *graph.Node
}

// Past is the cached prefixes packed rows continue (see Inputs.Past).
type Past struct {
	// Pos is the positions of row b's prefix slots, [B, P] int32; a padding
	// slot gets a position past every token's, so no token sees it (a row
	// without a prefix has only such slots).
	Pos *graph.Node
	// KV is the prefixes' keys and values in the cache layout (a prefill's
	// Outputs.KV, gathered by row), L × {[B, K, P, D]}.
	KV []KV
}

// Outputs are a forward pass's results.
type Outputs struct {
	// Hidden is every token's final hidden state: [B, T, H], or [B, H] for
	// one token per row (Tokens [B]).
	Hidden *graph.Node
	// KV is, with Cache, the cache with the tokens' keys and values written
	// (L × {[B, K, S, D]}); with ReturnKV, every layer's keys and values
	// (L × {[B, K, T, D]}); else nil.
	KV []KV
}

// Forward implements Model: it checks in and builds the decoder for its
// case (decoder.go).
func (d *decoder) Forward(ctx *context.Context, in Inputs) Outputs {
	d.check(in)
	switch {
	case in.Row != nil:
		return d.chunk(ctx, in.Tokens, in.Positions, in.Row, in.RowLen, in.Keys, in.Cache)
	case in.Cache != nil && in.Tokens.Rank() == 1:
		return d.decode(ctx, in.Tokens, in.Positions, in.Cache)
	case in.Cache != nil:
		return d.extend(ctx, in.Tokens, in.Positions, in.RowLen, in.Cache)
	case in.Past != nil:
		return Outputs{Hidden: d.packedAfter(ctx, in.Tokens, in.Positions, in.Packing, in.Past)}
	case in.Packing != nil:
		return Outputs{Hidden: d.packed(ctx, in.Tokens, in.Positions, in.Packing)}
	}
	return d.rows(ctx, in.Tokens, in.Positions, in.KeyValid, in.RowLen, in.ReturnKV)
}

// check panics on inputs that make no sense together or have the wrong
// shapes.
func (d *decoder) check(in Inputs) {
	if in.Tokens == nil {
		forwardPanic("Tokens is nil")
	}
	dims, cached := in.Tokens.Shape().Dimensions, in.Cache != nil
	if len(dims) != 2 && !(cached && len(dims) == 1) {
		forwardPanic("Tokens %s must be [B, T] (or [B] with Cache)", in.Tokens.Shape())
	}
	needPos := cached || in.Packing != nil || in.Past != nil
	switch {
	case in.Positions == nil && needPos:
		forwardPanic("Packing, Past and Cache need Positions")
	case in.KeyValid != nil && (cached || in.Packing != nil):
		forwardPanic("KeyValid is for unpacked rows, not with Packing or Cache")
	case in.Past != nil && in.Packing == nil:
		forwardPanic("Past needs Packing (rows after cached prefixes are packed)")
	case cached && (in.Packing != nil || in.ReturnKV):
		forwardPanic("Cache goes with neither Packing, Past nor ReturnKV (the written cache is Outputs.KV)")
	case in.ReturnKV && in.Packing != nil:
		forwardPanic("ReturnKV is for unpacked rows")
	case in.RowLen != nil && (cached && len(dims) == 1 || in.Packing != nil):
		forwardPanic("RowLen is for unpacked rows, a chunk (Row) or prompts after a cache, not with Packing or a decode step")
	case in.Row != nil && (!cached || len(dims) != 2):
		forwardPanic("Row needs Cache and Tokens [P, T], got %s", in.Tokens.Shape())
	case in.Row != nil && (in.Row.Rank() != 1 || in.Row.Shape().Dim(0) != dims[0]):
		forwardPanic("Row %s must be [P] with P = %d", in.Row.Shape(), dims[0])
	case in.Keys != 0 && (in.Row == nil || in.Keys < dims[1] || in.Keys > in.Cache[0].K.Shape().Dim(2)):
		forwardPanic("Keys %d needs Row and T ≤ Keys ≤ S", in.Keys)
	case in.RowLen != nil && (in.RowLen.Rank() != 1 || in.RowLen.Shape().Dim(0) != dims[0]):
		forwardPanic("RowLen %s must be [B] with B = %d", in.RowLen.Shape(), dims[0])
	}
	sameDims(in.Positions, "Positions", dims...)
	sameDims(in.KeyValid, "KeyValid", dims...)
	if p := in.Packing; p != nil {
		if p.Node == nil || p.End == nil {
			forwardPanic("Packing needs Node and End")
		}
		sameDims(p.Node, "Packing.Node", dims...)
		sameDims(p.End, "Packing.End", dims...)
	}
	if p := in.Past; p != nil && (p.Pos == nil || p.Pos.Rank() != 2 || p.Pos.Shape().Dim(0) != dims[0]) {
		forwardPanic("Past.Pos must be [B, P] with B = %d", dims[0])
	}
	if p := in.Past; p != nil && len(p.KV) != len(d.attn) {
		forwardPanic("%d Past layers for a %d-layer model", len(p.KV), len(d.attn))
	}
	if cached && len(in.Cache) != len(d.attn) {
		forwardPanic("%d cache layers for a %d-layer model", len(in.Cache), len(d.attn))
	}
}

// sameDims panics unless x is nil or has exactly dims.
func sameDims(x *graph.Node, name string, dims ...int) {
	if x == nil {
		return
	}
	got := x.Shape().Dimensions
	if len(got) != len(dims) {
		forwardPanic("%s %s must have Tokens' dims %v", name, x.Shape(), dims)
	}
	for i := range dims {
		if got[i] != dims[i] {
			forwardPanic("%s %s must have Tokens' dims %v", name, x.Shape(), dims)
		}
	}
}

// forwardPanic panics with a message naming Forward.
func forwardPanic(format string, args ...any) {
	panic(fmt.Errorf("models: Forward: "+format, args...))
}
