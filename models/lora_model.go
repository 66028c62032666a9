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

// Forward implements Model.
func (a *adapterModel) Forward(ctx *context.Context, in Inputs) Outputs {
	if in.Tokens != nil {
		a.set(ctx, in.Tokens)
	}
	return a.Model.Forward(ctx, in)
}

// Logits implements Model.
func (a *adapterModel) Logits(ctx *context.Context, hidden *Node) *Node {
	a.set(ctx, hidden)
	return a.Model.Logits(ctx, hidden)
}

// DecodeLogits implements Model.
func (a *adapterModel) DecodeLogits(ctx *context.Context, hidden *Node) *Node {
	a.set(ctx, hidden)
	return a.Model.DecodeLogits(ctx, hidden)
}
