package engine

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/goeval/goeval/engine/plan"
)

// A scoring call's passes are planned by package plan (deduplication,
// packed rows over a prefix tree, cached prefixes, shapes); the engine
// turns each pass's layout into tensors here and runs its graphs
// (loglikelihood.go, score.go, head.go).

// pass is one forward pass's inputs: a plan's layout and, for rows after
// cached prefixes, the prefixes' keys and values (prefixkv.go).
type pass struct {
	*plan.Layout
	// prefixKV is G × 2L × [1, K, Pb, D]: prefix g's K and V per layer,
	// the prefixes that Layout.RowPrefix numbers (nil without any).
	prefixKV []*tensors.Tensor
}

// args are the scoring graph's inputs for pass p (hiddenGraph).
func (p *pass) args() []any {
	args := []any{tensors.FromFlatDataAndDimensions(p.Tokens, p.B, p.T)}
	if p.Kind != plan.Unpacked {
		for _, x := range [][]int32{p.Positions, p.Node, p.End} {
			args = append(args, tensors.FromFlatDataAndDimensions(x, p.B, p.T))
		}
	}
	if p.Kind == plan.After {
		args = append(args, tensors.FromFlatDataAndDimensions(p.PrefixPos, p.B, len(p.PrefixPos)/p.B),
			tensors.FromFlatDataAndDimensions(p.RowPrefix, p.B))
		for _, t := range p.prefixKV {
			args = append(args, t)
		}
	}
	for _, x := range [][]int32{p.SlotRow, p.SlotPos} {
		args = append(args, tensors.FromFlatDataAndDimensions(x, p.K))
	}
	return args
}

// key names a scoring pass's shape (Engine.seen, logs).
func (p *pass) key() string {
	key := fmt.Sprintf("scoring B=%d T=%d K=%d", p.B, p.T, p.K)
	switch p.Kind {
	case plan.Packed:
		key += " packed"
	case plan.After:
		key += fmt.Sprintf(" packed after P=%d KV=%d", len(p.PrefixPos)/p.B, len(p.prefixKV))
	}
	return key
}
