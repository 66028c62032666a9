package models

import (
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/ml/context"
)

// WithAdapter returns m with separate-mode adapter index active in every
// graph it builds (-1: the base model). The weights stay shared: use it to
// serve base, A, B, … from one loaded context (LoadAdapterVariables). The
// result is a CachedModel when m is one.
func WithAdapter(m Model, index int) Model {
	for {
		if w, ok := m.(*adapterCachedModel); ok {
			m = w.Model
		} else if w, ok := m.(*adapterModel); ok {
			m = w.Model
		} else {
			break
		}
	}
	am := &adapterModel{Model: m, index: index}
	if cm, ok := m.(CachedModel); ok {
		return &adapterCachedModel{adapterModel: am, cm: cm}
	}
	return am
}

// adapterModel sets the active adapter before delegating.
type adapterModel struct {
	Model
	index int
}

func (a *adapterModel) set(ctx *context.Context, n *Node) { SetActiveAdapter(ctx, n.Graph(), a.index) }

// Hidden implements Model.
func (a *adapterModel) Hidden(ctx *context.Context, tokens, positions, keyValid *Node) *Node {
	a.set(ctx, tokens)
	return a.Model.Hidden(ctx, tokens, positions, keyValid)
}

// Logits implements Model.
func (a *adapterModel) Logits(ctx *context.Context, hidden *Node) *Node {
	a.set(ctx, hidden)
	return a.Model.Logits(ctx, hidden)
}

// adapterCachedModel is adapterModel for a CachedModel.
type adapterCachedModel struct {
	*adapterModel
	cm CachedModel
}

// CacheDims implements CachedModel.
func (a *adapterCachedModel) CacheDims() (layers, kvHeads, headDim int) { return a.cm.CacheDims() }

// Prefill implements CachedModel.
func (a *adapterCachedModel) Prefill(ctx *context.Context, tokens *Node) (*Node, []KV) {
	a.set(ctx, tokens)
	return a.cm.Prefill(ctx, tokens)
}

// Decode implements CachedModel.
func (a *adapterCachedModel) Decode(ctx *context.Context, tokens, positions *Node, cache []KV) (*Node, []KV) {
	a.set(ctx, tokens)
	return a.cm.Decode(ctx, tokens, positions, cache)
}
