package engine

import (
	"math"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/engine/plan"
	"github.com/goeval/goeval/models"
)

// Scoring runs two graphs (llm.c EvalLoader style, with the LM head split
// off so that its memory is bounded):
//
//	hiddenGraph: rows [B, T] → hidden [B, T, H] → gather K slots → h [K, H]
//	headGraph:   h[k:k+Kc] [Kc, H], targets [Kc] → log-prob [Kc] f64, miss [Kc] bool,
//	             top id [Kc] int32, top log-prob [Kc] f64
//
// K (a power of two ≥ the batch's scored positions) reaches B·T — 8 × 2048
// for rolling windows — and [K, V] logits with their float64 copies would
// take K·V·20 bytes (16384 × 151936 × 20 ≈ 50 GB). The engine runs the head
// on Kc = min(K, headRows(V)) slots at a time instead (head.go), so [B, T, V]
// and [K, V] are never formed. Each slot's log-prob is computed by the same
// ops on the same values as in one [K, V] graph: row k of a matmul or a
// row-wise reduction does not depend on the other rows (the batch
// invariance tests pin this bit for bit).

// hiddenGraph builds the graph that runs the model and gathers the hidden
// states of the K scored slots. Several slots may gather the same hidden
// state (a packed prefix's last token scores every continuation's first
// token).
//
//	inputs:  tokens [B, T] int32 (unpacked rows: right-padded, positions 0…T-1;
//	         packed rows: then positions, node, end [B, T] int32, see plan/pack.go;
//	         rows after cached prefixes: then prefixPos [B, Pb] int32, rowPrefix
//	         [B] int32 and G prefixes' K, V per layer, G × 2L × [1, K, Pb, D],
//	         see prefixkv.go)
//	         slotRow, slotPos [K] int32: row and column whose next token a slot scores
//	outputs: h [K, H] in the compute dtype (unused slots hold garbage)
func hiddenGraph(m models.Model, kind plan.Kind) func(ctx *context.Context, in []*Node) *Node {
	return func(ctx *context.Context, in []*Node) *Node {
		defer building()()
		tokens := in[0]
		var hidden *Node // [B, T, H]
		switch kind {
		case plan.After: // then prefixPos [B, Pb], rowPrefix [B], G × 2L prefix tensors
			past := &models.Past{Pos: in[4], KV: rowPrefixes(m, in[5], in[6:len(in)-2])}
			hidden = m.Forward(ctx, models.Inputs{Tokens: tokens, Positions: in[1],
				Packing: &models.Packing{Node: in[2], End: in[3]}, Past: past}).Hidden
			in = in[len(in)-2:]
		case plan.Packed:
			hidden = m.Forward(ctx, models.Inputs{Tokens: tokens, Positions: in[1],
				Packing: &models.Packing{Node: in[2], End: in[3]}}).Hidden
			in = in[4:]
		default: // positions 0…T-1; a row's length: one past its last scored slot
			hidden = m.Forward(ctx, models.Inputs{Tokens: tokens, RowLen: rowLengths(tokens.Shape().Dim(0), in[1], in[2])}).Hidden
			in = in[1:]
		}
		slotRow, slotPos := in[0], in[1]
		return Gather(hidden, Stack([]*Node{slotRow, slotPos}, -1)) // [K, H]
	}
}

// rowLengths is each unpacked row's length: an item's scored slots end at
// its last input token, so one past the row's last slot (unused slots,
// row 0 column 0, give 1, never more than a used row's).
//
//	slotRow, slotPos [K] int32 → [B] int32
func rowLengths(b int, slotRow, slotPos *Node) *Node {
	k := slotRow.Shape().Dim(0)
	rows := Iota(slotRow.Graph(), shapes.Make(dtypes.Int32, b, k), 0)
	mine := Equal(rows, BroadcastToDims(Reshape(slotRow, 1, k), b, k)) // [B, K]
	end := BroadcastToDims(Reshape(AddScalar(slotPos, 1), 1, k), b, k)
	return ReduceMax(Where(mine, end, ZerosLike(end)), -1)
}

// headGraph builds the LM-head graph for Kc slots: each slot's target
// log-prob, whether the greedy (argmax) token misses the target, and the
// greedy token with its log-prob (an OpenAI echo's top_logprobs).
//
//	h [Kc, H], targets [Kc] int32 → log-prob [Kc] f64, miss [Kc] bool,
//	                                top id [Kc] int32, top log-prob [Kc] f64
//
// With earlier (lm-eval's half-precision log-softmax, lpround.go) a fifth
// output: the largest log-prob of the tokens before each target in the
// vocabulary, −Inf for target 0 ([Kc] f64).
func headGraph(m models.Model, earlier bool) func(ctx *context.Context, h, targets *Node) []*Node {
	return func(ctx *context.Context, h, targets *Node) []*Node {
		defer building()()
		logits := ConvertDType(m.Logits(ctx, h), dtypes.Float32) // [Kc, V]
		top := ArgMax(logits, -1, dtypes.Int32)
		lp, topLP := targetLogProbs(logits, targets)
		out := []*Node{lp, NotEqual(top, targets), top, topLP}
		if earlier {
			out = append(out, earlierLogProbs(logits, targets, topLP))
		}
		return out
	}
}

// earlierLogProbs is, for each row, the largest log-prob of the tokens
// before its target: max_{j<t} logit_j − lse, as logit_max − lse is the
// row's top log-prob topLP. The maxima are taken in float32 (exact) and
// only the [K] results widened, so no float64 copy of [K, V] is made.
//
//	logits [K, V] f32, targets [K] int32, topLP [K] f64 → [K] f64
func earlierLogProbs(logits, targets, topLP *Node) *Node {
	k, v := logits.Shape().Dim(0), logits.Shape().Dim(1)
	ids := Iota(logits.Graph(), shapes.Make(dtypes.Int32, k, v), 1)
	before := LessThan(ids, BroadcastToDims(Reshape(targets, k, 1), k, v))
	low := Where(before, logits, BroadcastToDims(Scalar(logits.Graph(), dtypes.Float32, math.Inf(-1)), k, v))
	widen := func(x *Node) *Node { return ConvertDType(ReduceMax(x, -1), dtypes.Float64) }
	return Add(Sub(widen(low), widen(logits)), topLP)
}

// targetLogProbs is log_softmax(logits)[target], in float64, with the
// maximum subtracted before exp: logit[target] − (m + log Σ exp(logit − m)),
// m = max logit. A diverged checkpoint's logits (|l| in the thousands) then
// still give finite log-probs; NaN or ±Inf logits give NaN, never a
// plausible number.
//
// The second result is the largest log-prob of each row (the argmax's).
//
//	logits [K, V] f32, targets [K] int32 → [K] f64, [K] f64
func targetLogProbs(logits, targets *Node) (lp, top *Node) {
	lf := ConvertDType(logits, dtypes.Float64)
	m := ReduceAndKeep(lf, ReduceMax, -1) // [K, 1]
	lse := Add(Log(ReduceSum(Exp(Sub(lf, m)), -1)), Reshape(m, -1))
	picked := Gather(lf, Stack([]*Node{Iota(logits.Graph(), targets.Shape(), 0), targets}, -1)) // [K]
	return Sub(picked, lse), Sub(Reshape(m, -1), lse)
}

// rowPrefixes gathers each row's cached prefix: flat holds G prefixes'
// keys and values (prefix g's layer i at 2L·g + 2i, 2L·g + 2i + 1).
//
//	rowPrefix [B] int32, flat G × 2L × [1, K, Pb, D] → L × {[B, K, Pb, D]}
func rowPrefixes(m models.Model, rowPrefix *Node, flat []*Node) []models.KV {
	l, _, _ := m.CacheDims()
	g, b := len(flat)/(2*l), rowPrefix.Shape().Dim(0)
	at := Reshape(rowPrefix, b, 1)
	pick := func(j int) *Node { // [G, K, Pb, D] → [B, K, Pb, D]
		parts := make([]*Node, g)
		for i := range parts {
			parts[i] = flat[2*l*i+j]
		}
		all := parts[0]
		if g > 1 {
			all = Concatenate(parts, 0)
		}
		return Gather(all, at)
	}
	out := make([]models.KV, l)
	for i := range out {
		out[i] = models.KV{K: pick(2 * i), V: pick(2*i + 1)}
	}
	return out
}
