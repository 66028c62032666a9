package engine

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/models"
)

// scoreGraph builds the log-likelihood graph (llm.c EvalLoader style). The
// scored positions of all rows are gathered into K slots (K = a power of
// two ≥ the batch's total continuation length), so only K hidden states go
// through the LM head: [B, T, V] logits are never formed. Several slots may
// gather the same hidden state (a packed prefix's last token scores every
// continuation's first token).
//
//	inputs:  tokens [B, T] int32 (unpacked rows: right-padded, positions 0…T-1;
//	         packed rows: then positions, segment, branch [B, T] int32, see pack.go)
//	         slotRow, slotPos [K] int32: row and column whose next token a slot scores
//	         targets [K] int32
//	outputs: per-slot log-prob [K] f64 and greedy miss [K] bool (unused
//	         slots hold garbage; the host sums each item's slots in order)
func scoreGraph(m models.Model, packed bool) func(ctx *context.Context, in []*Node) []*Node {
	return func(ctx *context.Context, in []*Node) []*Node {
		tokens := in[0]
		var hidden *Node // [B, T, H]
		if packed {
			hidden = m.HiddenPacked(ctx, tokens, in[1], in[2], in[3])
			in = in[4:]
		} else {
			b, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
			hidden = m.Hidden(ctx, tokens, Iota(tokens.Graph(), shapes.Make(dtypes.Int32, b, t), 1), nil)
			in = in[1:]
		}
		slotRow, slotPos, targets := in[0], in[1], in[2]
		h := Gather(hidden, Stack([]*Node{slotRow, slotPos}, -1)) // [K, H]
		logits := ConvertDType(m.Logits(ctx, h), dtypes.Float32)  // [K, V]
		miss := NotEqual(ArgMax(logits, -1, dtypes.Int32), targets)
		return []*Node{targetLogProbs(logits, targets), miss}
	}
}

// targetLogProbs is log_softmax(logits)[target], in float64, with the
// maximum subtracted before exp: logit[target] − (m + log Σ exp(logit − m)),
// m = max logit. A diverged checkpoint's logits (|l| in the thousands) then
// still give finite log-probs; NaN or ±Inf logits give NaN, never a
// plausible number.
//
//	logits [K, V] f32, targets [K] int32 → [K] f64
func targetLogProbs(logits, targets *Node) *Node {
	lf := ConvertDType(logits, dtypes.Float64)
	m := ReduceAndKeep(lf, ReduceMax, -1) // [K, 1]
	lse := Add(Log(ReduceSum(Exp(Sub(lf, m)), -1)), Reshape(m, -1))
	picked := Gather(lf, Stack([]*Node{Iota(logits.Graph(), targets.Shape(), 0), targets}, -1)) // [K]
	return Sub(picked, lse)
}
