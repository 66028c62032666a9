package models

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/models/nn"
)

// hookedDecoder is a decoder whose forward takes a per-window mask builder
// and a per-layer KV hook; phi.go, phi3.go and gemma2.go implement it and
// get Hidden, Prefill and Decode from the functions below (the same scheme
// as llama_cache.go).
type hookedDecoder interface {
	Config() *Config
	CacheDims() (layers, kvHeads, headDim int)
	// forward runs every layer; maskFor(window) gives the [B, T, S] mask and
	// hook(i) may replace layer i's keys and values [B, T, K, D].
	forward(ctx *context.Context, tokens, positions *Node, maskFor func(window int) *Node, hook func(i int) kvHook) *Node
}

// noHook leaves keys and values unchanged.
func noHook(int) kvHook { return nil }

// hiddenWith is Model.Hidden for a hookedDecoder.
func hiddenWith(m hookedDecoder, ctx *context.Context, tokens, positions, keyValid *Node) *Node {
	masks := map[int]*Node{}
	maskFor := func(w int) *Node {
		if masks[w] == nil {
			masks[w] = nn.AttentionMask(positions, positions, keyValid, w)
		}
		return masks[w]
	}
	return m.forward(ctx, tokens, positions, maskFor, noHook)
}

// prefillWith is CachedModel.Prefill for a hookedDecoder.
func prefillWith(m hookedDecoder, ctx *context.Context, tokens *Node) (*Node, []KV) {
	g := tokens.Graph()
	b, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
	positions := Iota(g, shapes.Make(dtypes.Int32, b, t), 1)
	layers, _, _ := m.CacheDims()
	kv := make([]KV, layers)
	hook := func(i int) kvHook {
		return func(k, v *Node) (*Node, *Node) {
			kv[i] = KV{K: k, V: v}
			return k, v
		}
	}
	return hiddenWithHook(m, ctx, tokens, positions, hook), kv
}

// hiddenWithHook is hiddenWith without key padding and with a KV hook.
func hiddenWithHook(m hookedDecoder, ctx *context.Context, tokens, positions *Node, hook func(int) kvHook) *Node {
	masks := map[int]*Node{}
	maskFor := func(w int) *Node {
		if masks[w] == nil {
			masks[w] = nn.AttentionMask(positions, positions, nil, w)
		}
		return masks[w]
	}
	return m.forward(ctx, tokens, positions, maskFor, hook)
}

// decodeWith is CachedModel.Decode for a hookedDecoder: each row's new
// keys and values go to cache slot positions[b]; attention sees slots ≤
// positions[b] (within the window).
func decodeWith(m hookedDecoder, ctx *context.Context, tokens, positions *Node, cache []KV) (*Node, []KV) {
	g := tokens.Graph()
	b := tokens.Shape().Dim(0)
	layers, kvHeads, dim := m.CacheDims()
	if len(cache) != layers {
		panic(fmt.Sprintf("Decode: %d cache layers for a %d-layer model", len(cache), layers))
	}
	s := cache[0].K.Shape().Dim(1)
	tok, pos := Reshape(tokens, b, 1), Reshape(positions, b, 1)
	slots := Iota(g, shapes.Make(dtypes.Int32, b, s), 1) // [B, S]
	write := Reshape(Equal(slots, BroadcastToDims(pos, b, s)), b, s, 1, 1)
	write = BroadcastToDims(write, b, s, kvHeads, dim)
	next := make([]KV, layers)
	hook := func(i int) kvHook {
		return func(k, v *Node) (*Node, *Node) {
			k = Where(write, BroadcastToDims(k, b, s, kvHeads, dim), cache[i].K)
			v = Where(write, BroadcastToDims(v, b, s, kvHeads, dim), cache[i].V)
			next[i] = KV{K: k, V: v}
			return k, v
		}
	}
	masks := map[int]*Node{}
	maskFor := func(w int) *Node {
		if masks[w] == nil {
			masks[w] = nn.AttentionMask(pos, slots, nil, w)
		}
		return masks[w]
	}
	h := m.forward(ctx, tok, pos, maskFor, hook)
	return Reshape(h, b, m.Config().HiddenSize), next
}

// applyHook runs hook (if any) on k and v.
func applyHook(hook kvHook, k, v *Node) (*Node, *Node) {
	if hook == nil {
		return k, v
	}
	return hook(k, v)
}
