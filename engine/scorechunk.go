package engine

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/engine/plan"
	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/models"
)

// Chunked scoring: on goeval's pure-Go backend a scoring pass of one row
// longer than a chunk (chunkTokens, 2048: a long document's loglikelihood
// or rolling window) runs that row a chunk at a time through a one-row KV
// cache of its length, as a long prompt's chunked prefill does
// (genchunk.go), instead of in one pass whose every layer's [T, ·]
// activations grow with the row. Each chunk's graph gathers the hidden
// states of the scored slots inside it, and the LM head (head.go) scores
// them as the one pass's head would: the same hidden-state bits (the
// chunk's queries see the same keys through the same ops) and row-wise
// head ops, so log-probs, is_greedy and token counts are the one pass's,
// bit for bit (scorechunk_test.go). A LongRoPE model's chunks take the
// rotary factors of the whole row's length, as the one pass does (n [1]:
// models.Inputs.RowLen with Row; rowLengths).
//
//	chunk: tokens, positions [1, T] (positions p0 … p0+T−1), row [1] (0),
//	       n [1] (the row's length), keys [p0+T] (only its shape), slotPos
//	       [Kc] (the scored slots' columns in the chunk), cache 2L × [1, K, S, D]
//	       → h [Kc, H] in the compute dtype, cache' (slots written in place)

// chunkedScoreLen is the length of pass p's row when it is scored a chunk
// at a time (ok): one unpacked row longer than a chunk on goeval's
// pure-Go backend, without LLM.int8 outlier columns (wholeRows: they
// depend on the whole row). The row's length is one past its last scored
// slot, as the one pass's (rowLengths).
func (e *Engine) chunkedScoreLen(p *pass) (n int, ok bool) {
	if p.Kind != plan.Unpacked || p.B != 1 || len(p.SlotItem) == 0 ||
		e.backend.String() != gocpu.Name || e.wholeRows {
		return 0, false
	}
	for _, s := range p.SlotPos[:len(p.SlotItem)] {
		n = max(n, int(s)+1)
	}
	return n, n > e.chunkTokens()
}

// scoreChunkGraph builds the chunk graph described at the top of this file.
func scoreChunkGraph(m models.Model) func(ctx *mlctx.Context, in []*Node) []*Node {
	return func(ctx *mlctx.Context, in []*Node) []*Node {
		defer building()()
		tokens, positions, row, n, keys, slotPos := in[0], in[1], in[2], in[3], in[4], in[5]
		cache := cacheKV(in[6:])
		out := m.Forward(ctx, models.Inputs{Tokens: tokens, Positions: positions, Row: row, RowLen: n, Keys: keys.Shape().Dim(0), Cache: cache})
		at := Stack([]*Node{ZerosLike(slotPos), slotPos}, -1) // [Kc, 2]
		res := []*Node{Gather(out.Hidden, at)}                // [1, T, H] → [Kc, H]
		return withKV(res, out.KV)
	}
}

// runPassChunked scores pass p's one row of n tokens a chunk at a time
// (chunkedScoreLen) into results.
func (e *Engine) runPassChunked(p *pass, n int, tokens bool, results []Score) error {
	if err := injectOOM("scoring", p.B, p.B*p.T); err != nil {
		return fmt.Errorf("run chunked scoring T=%d: %w", n, err)
	}
	if e.execs.chunk == nil {
		e.execs.chunk = oneShot(newGraphExecs(e, "scoring chunk", scoreChunkGraph(e.model)))
	}
	size, s := e.chunkTokens(), (n+15)/16*16
	c, err := e.newCache(1, s)
	if err != nil {
		return err
	}
	defer c.close()
	from := 0 // the first used slot not scored yet (slots ascend: one item)
	for p0 := 0; p0 < n; p0 += size {
		t, keys := chunkDims(p0, n, size, s)
		to := from
		for to < len(p.SlotItem) && int(p.SlotPos[to]) < p0+t {
			to++
		}
		h, err := e.runScoreChunk(p, c, n, p0, t, keys, from, to)
		if err != nil {
			return err
		}
		if to > from {
			err = e.runHead(h, chunkSlots(p, from, to), tokens, results)
		}
		_ = h.FinalizeAll()
		if err != nil {
			return err
		}
		from = to
	}
	e.stats.Tokens += p.Real
	e.stats.TokensComputed += p.Real
	e.stats.PaddedTokens += p.B * p.T
	e.stats.LastB, e.stats.LastT, e.stats.LastK = p.B, p.T, p.K
	return nil
}

// runScoreChunk runs the chunk of t tokens at p0 of pass p's row (n long) into
// cache c and returns the hidden states [max(1, to−from), H] of used slots
// [from, to) (a chunk without any gathers its first column, unused).
func (e *Engine) runScoreChunk(p *pass, c *kvCache, n, p0, t, keys, from, to int) (*tensors.Tensor, error) {
	tok, pos := make([]int32, t), make([]int32, t)
	copy(tok, p.Tokens[p0:min(p0+t, p.T)])
	for i := range pos {
		pos[i] = int32(p0 + i)
	}
	slots := make([]int32, max(1, to-from))
	for k := from; k < to; k++ {
		slots[k-from] = p.SlotPos[k] - int32(p0)
	}
	args := []any{tensors.FromFlatDataAndDimensions(tok, 1, t), tensors.FromFlatDataAndDimensions(pos, 1, t),
		tensors.FromFlatDataAndDimensions([]int32{0}, 1), tensors.FromFlatDataAndDimensions([]int32{int32(n)}, 1),
		tensors.FromShape(shapes.Make(dtypes.Bool, keys)),
		tensors.FromFlatDataAndDimensions(slots, len(slots))}
	h, d, err := e.runOnCache(e.execs.chunk, fmt.Sprintf("scoring chunk keys=%d K=%d", keys, len(slots)), c, args)
	if err != nil {
		return nil, err
	}
	e.stats.ExecTime += d
	e.stats.Batches++
	return h, nil
}

// chunkSlots is the view of pass p's used slots [from, to) as a pass of
// their own, for the LM head (runHead, collect).
func chunkSlots(p *pass, from, to int) *pass {
	l := &plan.Layout{B: p.B, T: p.T, K: to - from, Kind: p.Kind,
		SlotRow: p.SlotRow[from:to], SlotPos: p.SlotPos[from:to], Targets: p.Targets[from:to], SlotItem: p.SlotItem[from:to]}
	return &pass{Layout: l}
}
