package engine

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/models"
)

// scoreGraph builds the log-likelihood graph (llm.c EvalLoader style). The
// scored positions of all rows are packed into K slots (K = a power of two
// ≥ the batch's total continuation length), so only K hidden states go
// through the LM head: [B, T, V] logits are never formed.
//
//	inputs:  tokens [B, T] int32 (right-padded)
//	         slotRow, slotPos [K] int32: row and position whose next token a slot scores
//	         targets [K] int32, mask [K] bool (false on unused slots)
//	outputs: logprob sum [B] f64, greedy misses [B] int32, scored count [B]
//	         int32; with withTokens also per-slot logprobs [K] f64.
//
// Per-row sums run over the K slots in order with exact zeros for other
// rows' slots, so a row's sum does not depend on its neighbours.
func scoreGraph(m models.Model, withTokens bool) func(ctx *context.Context, in []*Node) []*Node {
	return func(ctx *context.Context, in []*Node) []*Node {
		tokens, slotRow, slotPos, targets, mask := in[0], in[1], in[2], in[3], in[4]
		g := tokens.Graph()
		b, t, k := tokens.Shape().Dim(0), tokens.Shape().Dim(1), slotRow.Shape().Dim(0)
		positions := Iota(g, shapes.Make(dtypes.Int32, b, t), 1)
		hidden := m.Hidden(ctx, tokens, positions, nil)           // [B, T, H]
		h := Gather(hidden, Stack([]*Node{slotRow, slotPos}, -1)) // [K, H]
		logits := ConvertDType(m.Logits(ctx, h), dtypes.Float32)  // [K, V]
		miss := LogicalAnd(mask, NotEqual(ArgMax(logits, -1, dtypes.Int32), targets))
		lp := targetLogProbs(logits, targets) // [K] f64
		lp = Where(mask, lp, ZerosLike(lp))
		// owner [B, K]: slot k belongs to row b (and is used).
		owner := LogicalAnd(
			Equal(Iota(g, shapes.Make(dtypes.Int32, b, k), 0), BroadcastToDims(Reshape(slotRow, 1, k), b, k)),
			BroadcastToDims(Reshape(mask, 1, k), b, k))
		perRow := func(x *Node) *Node {
			x = BroadcastToDims(Reshape(x, 1, k), b, k)
			return ReduceSum(Where(owner, x, ZerosLike(x)), -1)
		}
		out := []*Node{
			perRow(lp),
			perRow(ConvertDType(miss, dtypes.Int32)),
			perRow(OnesLike(slotRow)),
		}
		if withTokens {
			out = append(out, lp)
		}
		return out
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
