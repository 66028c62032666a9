package models

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/models/nn"
)

// blocks are one architecture's parts of the shared decoder: every
// architecture file (llama.go, phi.go, phi3.go, gemma2.go, granite.go)
// implements them, reading its weights through the names it declared
// (names.go), and decoder turns them into a Model.
type blocks interface {
	// embed looks the tokens up: tokens [B, T] → x [B, T, H].
	embed(ctx *context.Context, tokens *Node) *Node
	// layer is decoder layer i: x [B, T, H] → [B, T, H]. It projects and
	// rotates q [B, T, N, D], k, v [B, T, K, D] and calls attend for the
	// attention output [B, T, N·D].
	layer(ctx *context.Context, i int, x, positions *Node, attend attendFunc) *Node
	// norm is the final norm: [B, T, H] → [B, T, H].
	norm(ctx *context.Context, x *Node) *Node
	// logits is the LM head: hidden [..., H] → [..., V].
	logits(ctx *context.Context, hidden *Node) *Node
}

// attendFunc is the attention of one layer, with the KV cache and mask the
// decoder chose: q [B, T, N, D], k, v [B, T, K, D] → [B, T, N·D].
type attendFunc func(q, k, v *Node) *Node

// kvHook receives a layer's new keys and values [B, T, K, D] and returns the
// ones attention uses (a KV cache's, [B, K, S, D], or the same ones).
type kvHook func(k, v *Node) (*Node, *Node)

// decoder is the one decoder-layer loop behind every architecture: it
// implements Model for its blocks, with one forward whose cases (unpacked,
// packed, after cached prefixes, prefill, decode, extend) differ only in
// their masks and KV hooks.
type decoder struct {
	cfg              *Config
	blocks           blocks
	kvHeads, headDim int
	// attn holds each layer's attention options (scale, soft-cap, window).
	attn []nn.AttentionOptions
	// chunkedHead, when not "", is the bias-free, uncapped LM head weight
	// whose decode rows DecodeLogits may compute in vocabulary chunks.
	chunkedHead string
}

// newDecoder is a decoder with the same attention options on every layer.
func newDecoder(cfg *Config, b blocks, o nn.AttentionOptions) *decoder {
	d := &decoder{cfg: cfg, blocks: b, kvHeads: cfg.NumKeyValueHeads, headDim: cfg.HeadDim,
		attn: make([]nn.AttentionOptions, cfg.NumHiddenLayers)}
	for i := range d.attn {
		d.attn[i] = o
	}
	return d
}

// Config implements Model.
func (d *decoder) Config() *Config { return d.cfg }

// CacheDims implements Model.
func (d *decoder) CacheDims() (layers, kvHeads, headDim int) {
	return len(d.attn), d.kvHeads, d.headDim
}

// Logits implements Model.
func (d *decoder) Logits(ctx *context.Context, hidden *Node) *Node {
	return d.blocks.logits(ctx, hidden)
}

// rows is Forward over unpacked rows: each token sees its row's keys up
// to its position (and keyValid's). With returnKV (a prefill) every
// layer's keys and values come back too, in the cache layout.
//
//	tokens [B, T] → embed [B, T, H] → L × layer → norm → [B, T, H] (, kv L × {[B, K, T, D]})
func (d *decoder) rows(ctx *context.Context, tokens, positions, keyValid, rowLen *Node, returnKV bool) Outputs {
	b, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
	if positions == nil {
		positions = Iota(tokens.Graph(), shapes.Make(dtypes.Int32, b, t), 1)
	}
	// LLM.int8's outlier columns skip padding (int8_forward.go).
	setInt8Rows(ctx, tokens, rowLen)
	rotated := positions // the rotary embedding's: a row's padding at its last real position (LongRoPE reads the row's length from it)
	if rowLen != nil && d.cfg.LongRopeLength() > 0 {
		last := AddScalar(MaxScalar(rowLen, 1), -1) // [B]
		rotated = Min(positions, BroadcastToDims(Reshape(last, b, 1), b, t))
	}
	var kv []KV
	hooks := func(int) kvHook { return nil }
	if returnKV {
		kv = make([]KV, len(d.attn))
		hooks = func(i int) kvHook {
			return func(k, v *Node) (*Node, *Node) {
				kv[i] = KV{K: headMajor(k), V: headMajor(v)}
				return k, v
			}
		}
	}
	maskFor := func(w int) nn.Mask { return nn.PositionMask(positions, positions, keyValid, w) }
	return Outputs{Hidden: d.forward(ctx, tokens, rotated, maskFor, hooks, false, 0), KV: kv}
}

// packed is Forward over packed rows: the rows' prefix-tree mask ANDed
// into every layer's causal (and windowed) mask.
func (d *decoder) packed(ctx *context.Context, tokens, positions *Node, p *Packing) *Node {
	maskFor := func(w int) nn.Mask { return nn.PackedPositionMask(positions, p.Node, p.End, w) }
	return d.forward(ctx, tokens, positions, maskFor, func(int) kvHook { return nil }, false, 0)
}

// packedAfter is packed whose rows also attend to a cached prefix each.
// Each layer's keys and values are the row's prefix's, back in token
// order, then the row's own:
//
//	prefix [B, K, P, D] → [B, P, K, D]; k, v [B, T, K, D] → [B, P+T, K, D]
//
// and its mask is the prefix part (causal and windowed by position, so a
// padding slot at a position past every query's is never seen) beside the
// packed rows' own.
func (d *decoder) packedAfter(ctx *context.Context, tokens, positions *Node, p *Packing, past *Past) *Node {
	maskFor := func(w int) nn.Mask {
		own := nn.PackedPositionMask(positions, p.Node, p.End, w) // [B, T, T]
		return nn.PastMask(nn.PositionMask(positions, past.Pos, nil, w), own, past.Pos.Shape().Dim(1))
	}
	hooks := func(i int) kvHook {
		return func(k, v *Node) (*Node, *Node) {
			pk, pv := TransposeAllDims(past.KV[i].K, 0, 2, 1, 3), TransposeAllDims(past.KV[i].V, 0, 2, 1, 3)
			return Concatenate([]*Node{pk, k}, 1), Concatenate([]*Node{pv, v}, 1)
		}
	}
	return d.forward(ctx, tokens, positions, maskFor, hooks, false, past.Pos.Shape().Dim(1))
}

// headMajor is the cache layout of a layer's keys or values:
// [B, T, K, D] → [B, K, T, D].
func headMajor(x *Node) *Node { return TransposeAllDims(x, 0, 2, 1, 3) }

// decode is Forward for one token per row over a cache: each row's keys
// and values go to cache slot positions[b] with DynamicUpdateSlice — in
// place on goeval's pure-Go backend, which gets the cache donated; XLA
// copies the cache once — or, on simplego, which lacks it, through a Where
// over the whole cache.
//
//	tokens [B], positions [B], cache L × {[B, K, S, D]} → hidden [B, H], cache'
func (d *decoder) decode(ctx *context.Context, tokens, positions *Node, cache []KV) Outputs {
	g := tokens.Graph()
	b := tokens.Shape().Dim(0)
	s := cache[0].K.Shape().Dim(2)
	tok, pos := Reshape(tokens, b, 1), Reshape(positions, b, 1)
	slots := Iota(g, shapes.Make(dtypes.Int32, b, s), 1) // [B, S]
	put := d.slotWriter(positions, slots)
	next := make([]KV, len(cache))
	hooks := func(i int) kvHook {
		return func(k, v *Node) (*Node, *Node) { // [B, 1, K, D]
			next[i] = KV{K: put(cache[i].K, k), V: put(cache[i].V, v)}
			return next[i].K, next[i].V
		}
	}
	maskFor := func(w int) nn.Mask { return nn.PositionMask(pos, slots, nil, w) }
	h := d.forward(ctx, tok, pos, maskFor, hooks, true, 0)
	return Outputs{Hidden: Reshape(h, b, d.cfg.HiddenSize), KV: next}
}

// slotWriter returns put(cache, x): the cache [B, K, S, D] with row b's
// x [B, 1, K, D] in slot positions[b].
func (d *decoder) slotWriter(positions, slots *Node) func(cache, x *Node) *Node {
	g := positions.Graph()
	b, s := slots.Shape().Dim(0), slots.Shape().Dim(1)
	if g.Backend().String() == "go" { // simplego: no DynamicUpdateSlice
		write := Reshape(Equal(slots, BroadcastToDims(Reshape(positions, b, 1), b, s)), b, 1, s, 1)
		write = BroadcastToDims(write, b, d.kvHeads, s, d.headDim)
		return func(cache, x *Node) *Node {
			return Where(write, BroadcastToDims(Reshape(x, b, d.kvHeads, 1, d.headDim), b, d.kvHeads, s, d.headDim), cache)
		}
	}
	zero := Scalar(g, dtypes.Int32, 0)
	at := make([][]*Node, b) // row r's start (r, 0, positions[r], 0)
	for r := range at {
		p := Reshape(Slice(positions, AxisRange(r, r+1)))
		at[r] = []*Node{Scalar(g, dtypes.Int32, r), zero, p, zero}
	}
	return func(cache, x *Node) *Node {
		x = Reshape(x, b, d.kvHeads, 1, d.headDim) // [B, 1, K, D] → [B, K, 1, D]: same order
		for r := range at {
			cache = DynamicUpdateSlice(cache, Slice(x, AxisRange(r, r+1)), at[r])
		}
		return cache
	}
}

// extend is decode for T tokens per row at consecutive positions: slot s
// of row b takes the keys and values of the row's token
// t = s − positions[b, 0] when 0 ≤ t < T (a Gather along T and a Where).
// rowLen, each row's whole length, is what a LongRoPE model picks its
// factors by (nil: each row's last position + 1, its padding's).
//
//	tokens, positions [B, T], rowLen [B] or nil, cache L × {[B, K, S, D]} → hidden [B, T, H], cache'
func (d *decoder) extend(ctx *context.Context, tokens, positions, rowLen *Node, cache []KV) Outputs {
	g := tokens.Graph()
	if rowLen != nil && d.cfg.LongRopeLength() > 0 {
		setRopeLen(ctx, g, rowLen)
	}
	b, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
	s := cache[0].K.Shape().Dim(2)
	slots := Iota(g, shapes.Make(dtypes.Int32, b, s), 1)                                     // [B, S]
	off := Sub(slots, BroadcastToDims(Slice(positions, AxisRange(), AxisRange(0, 1)), b, s)) // [B, S]
	valid := LogicalAnd(GreaterOrEqual(off, ZerosLike(off)), LessThan(off, Scalar(g, dtypes.Int32, t)))
	write := BroadcastToDims(Reshape(valid, b, 1, s, 1), b, d.kvHeads, s, d.headDim)
	rows := Iota(g, shapes.Make(dtypes.Int32, b, s), 0)
	at := Stack([]*Node{rows, MinScalar(MaxScalar(off, int32(0)), int32(t-1))}, -1) // [B, S, 2]: (row, token)
	next := make([]KV, len(cache))
	hooks := func(i int) kvHook {
		return func(k, v *Node) (*Node, *Node) { // [B, T, K, D] → [B, K, S, D]
			k = Where(write, headMajor(Gather(k, at)), cache[i].K)
			v = Where(write, headMajor(Gather(v, at)), cache[i].V)
			next[i] = KV{K: k, V: v}
			return k, v
		}
	}
	maskFor := func(w int) nn.Mask { return nn.PositionMask(positions, slots, nil, w) }
	return Outputs{Hidden: d.forward(ctx, tokens, positions, maskFor, hooks, true, 0), KV: next}
}

// forward is the decoder with a per-layer KV hook and masks built by
// maskFor(window) ([B, T, S], S the attended length, a query chunk at a
// time inside each layer's attention: nn.Mask);
// positions are the rotary embedding's (the masks have their own). With
// cached, the hooks return the cache's keys and values [B, K, S, D]
// (nn.AttentionCached), else [B, S, K, D] (nn.Attention) whose first past
// keys are a cached prefix (nn.AttentionOptions.Past).
func (d *decoder) forward(ctx *context.Context, tokens, positions *Node, maskFor func(int) nn.Mask, hook func(int) kvHook, cached bool, past int) *Node {
	b, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
	x := d.blocks.embed(ctx, tokens) // [B, T, H]
	masks := map[int]nn.Mask{}
	for i, o := range d.attn {
		if masks[o.Window] == nil {
			masks[o.Window] = maskFor(o.Window)
		}
		mask, h := masks[o.Window], hook(i)
		attend := func(q, k, v *Node) *Node {
			if h != nil {
				k, v = h(k, v)
			}
			if cached {
				return nn.AttentionCached(q, k, v, mask, o)
			}
			causal := o
			causal.Causal = true // masks from positions in column order (and packed rows' preorder)
			causal.Past = past
			return nn.Attention(q, k, v, mask, causal)
		}
		x = d.blocks.layer(ctx, i, x, positions, attend)
	}
	x = d.blocks.norm(ctx, x)
	x.AssertDims(b, t, d.cfg.HiddenSize)
	return x
}

// embedTokens gathers the rows of the token embedding name.
//
//	tokens [B, T] → [B, T, H]
func embedTokens(ctx *context.Context, name string, tokens *Node) *Node {
	b, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
	return Gather(Param(ctx, tokens.Graph(), name), Reshape(tokens, b, t, 1))
}

// gatedMLP is down(unit(gate(h), up(h))) (Llama's unit is nn.SwiGLU,
// Gemma's nn.GeGLU).
//
//	h [B, T, H] → [B, T, H]
func gatedMLP(ctx *context.Context, h *Node, w gatedW, unit func(gate, up *Node) *Node) *Node {
	gate := project(ctx, h, w.gate)
	up := project(ctx, h, w.up)
	return project(ctx, unit(gate, up), w.down)
}
