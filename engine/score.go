package engine

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/models"
)

// scoreGraph builds the log-likelihood graph (llm.c EvalLoader style):
//
//	inputs:  tokens [B, T] int32 (right-padded), gatherPos [B, K] int32 (the
//	         positions whose next token is scored, right-aligned in K),
//	         targets [B, K] int32, mask [B, K] bool (false on unused slots)
//	outputs: logprob sum [B] f64, greedy misses [B] int32, scored count [B]
//	         int32, and with withTokens also per-slot logprobs [B, K] f64.
//
// Only the K gathered hidden states go through the LM head, so [B, T, V]
// logits are never formed. Log-softmax runs in float64 on the f32 logits.
func scoreGraph(m models.Model, withTokens bool) func(ctx *context.Context, in []*Node) []*Node {
	return func(ctx *context.Context, in []*Node) []*Node {
		tokens, gatherPos, targets, mask := in[0], in[1], in[2], in[3]
		g := tokens.Graph()
		b, t, k := tokens.Shape().Dim(0), tokens.Shape().Dim(1), gatherPos.Shape().Dim(1)
		positions := Iota(g, shapes.Make(dtypes.Int32, b, t), 1)
		hidden := m.Hidden(ctx, tokens, positions, nil) // [B, T, H]
		rowIdx := Iota(g, shapes.Make(dtypes.Int32, b, k), 0)
		h := Gather(hidden, Stack([]*Node{rowIdx, gatherPos}, -1)) // [B, K, H]
		logits := ConvertDType(m.Logits(ctx, h), dtypes.Float32)   // [B, K, V]
		miss := LogicalAnd(mask, NotEqual(ArgMax(logits, -1, dtypes.Int32), targets))
		lp := targetLogProbs(logits, targets) // [B, K] f64
		lp = Where(mask, lp, ZerosLike(lp))
		out := []*Node{
			ReduceSum(lp, -1),
			ReduceSum(ConvertDType(miss, dtypes.Int32), -1),
			ReduceSum(ConvertDType(mask, dtypes.Int32), -1),
		}
		if withTokens {
			out = append(out, lp)
		}
		return out
	}
}

// targetLogProbs is log_softmax(logits)[target] computed in float64:
// logit[target] − max − log Σ exp(logit − max).
//
//	logits [B, K, V] f32, targets [B, K] int32 → [B, K] f64
func targetLogProbs(logits, targets *Node) *Node {
	g := logits.Graph()
	b, k := logits.Shape().Dim(0), logits.Shape().Dim(1)
	lf := ConvertDType(logits, dtypes.Float64)
	maxL := ReduceAndKeep(lf, ReduceMax, -1) // [B, K, 1]
	sumExp := ReduceSum(Exp(Sub(lf, maxL)), -1)
	rowIdx := Iota(g, shapes.Make(dtypes.Int32, b, k), 0)
	slotIdx := Iota(g, shapes.Make(dtypes.Int32, b, k), 1)
	picked := Gather(lf, Stack([]*Node{rowIdx, slotIdx, targets}, -1)) // [B, K]
	return Sub(Sub(picked, Reshape(maxL, b, k)), Log(sumExp))
}
