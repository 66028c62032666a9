package models

import (
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"
)

// WithAdapter returns m with separate-mode adapter index active in every
// graph it builds (-1: the base model). The weights stay shared: use it to
// serve base, A, B, … from one loaded context (Load with AdapterSeparate).
// Every Model method goes through the view, DecodeLogits included.
func WithAdapter(m Model, index int) Model {
	for {
		w, ok := m.(*adapterModel)
		if !ok {
			break
		}
		m = w.Model
	}
	return &adapterModel{Model: m, index: index}
}

// adapterModel sets the active adapter before delegating.
type adapterModel struct {
	Model
	index int
}

var _ Model = (*adapterModel)(nil)

func (a *adapterModel) set(ctx *context.Context, n *Node) { SetActiveAdapter(ctx, n.Graph(), a.index) }

// Hidden implements Model.
func (a *adapterModel) Hidden(ctx *context.Context, tokens, positions, keyValid *Node) *Node {
	a.set(ctx, tokens)
	return a.Model.Hidden(ctx, tokens, positions, keyValid)
}

// HiddenPacked implements Model.
func (a *adapterModel) HiddenPacked(ctx *context.Context, tokens, positions, node, end *Node) *Node {
	a.set(ctx, tokens)
	return a.Model.HiddenPacked(ctx, tokens, positions, node, end)
}

// HiddenPackedAfter implements Model.
func (a *adapterModel) HiddenPackedAfter(ctx *context.Context, tokens, positions, node, end, prefixPos *Node, prefix []KV) *Node {
	a.set(ctx, tokens)
	return a.Model.HiddenPackedAfter(ctx, tokens, positions, node, end, prefixPos, prefix)
}

// Logits implements Model.
func (a *adapterModel) Logits(ctx *context.Context, hidden *Node) *Node {
	a.set(ctx, hidden)
	return a.Model.Logits(ctx, hidden)
}

// Prefill implements Model.
func (a *adapterModel) Prefill(ctx *context.Context, tokens *Node) (*Node, []KV) {
	a.set(ctx, tokens)
	return a.Model.Prefill(ctx, tokens)
}

// Decode implements Model.
func (a *adapterModel) Decode(ctx *context.Context, tokens, positions *Node, cache []KV) (*Node, []KV) {
	a.set(ctx, tokens)
	return a.Model.Decode(ctx, tokens, positions, cache)
}

// Extend implements Model.
func (a *adapterModel) Extend(ctx *context.Context, tokens, positions *Node, cache []KV) (*Node, []KV) {
	a.set(ctx, tokens)
	return a.Model.Extend(ctx, tokens, positions, cache)
}

// DecodeLogits implements Model.
func (a *adapterModel) DecodeLogits(ctx *context.Context, hidden *Node) *Node {
	a.set(ctx, hidden)
	return a.Model.DecodeLogits(ctx, hidden)
}
