package engine

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/models"
)

// Chunked prefill: on goeval's pure-Go backend a prompt longer than one
// prefill's token budget (prefillBudget, 2048) is prefilled a chunk of
// that many tokens at a time, straight into its decode-cache row
// (models.Inputs.Row: each layer writes the chunk's keys and values in
// place and attends causally over the row's slots up to the chunk's end).
// A one-pass prefill held every layer's [T, intermediate] activations and
// every layer's keys and values until the graph's end (intoCache runs
// last: 2 × the row's cache); a chunk holds one chunk's activations and
// writes the cache as it goes, so a prompt's memory is the cache plus
// O(chunk). Same bits: the chunk's queries see the same keys through the
// same ops as in a one-pass prefill (genchunk_test.go: logits and cache).
// Every chunk of a LongRoPE model takes the rotary factors of the whole
// prompt's length, as its one-pass prefill does (n [1]: models.Inputs.RowLen
// with Row), so a chunk before the switch of a prompt past it takes the
// long ones (genchunk_longrope_test.go).
//
//	chunk: tokens, positions [1, T] (positions p0 … p0+T−1), last [1] (the
//	       prompt's last token in the chunk, or any), row [1], n [1] (the
//	       prompt's length), keys [p0+T] (only its shape: the slots
//	       attended), cache 2L × [B, K, S, D]
//	       → logits [1, V] f32 at last, cache' (row's slots written in place)

// prefillChunkTokens, when > 0, replaces the chunk size (tests).
var prefillChunkTokens = 0

// chunkTokens is the chunk size of a chunked prefill.
func (e *Engine) chunkTokens() int {
	if prefillChunkTokens > 0 {
		return prefillChunkTokens
	}
	return e.prefillBudget()
}

// chunkable reports whether group grp's long prompts prefill in chunks:
// on goeval's pure-Go backend (whose cache writes are in place), with
// prefill shapes not fixed, and without LLM.int8 outlier columns
// (wholeRows: they depend on the whole row).
func (e *Engine) chunkable(grp genGroup) bool {
	return grp.fixP == 0 && e.backend.String() == gocpu.Name && !e.wholeRows
}

// chunkedRow reports whether the admitted rows are one prompt longer than
// a chunk of a chunkable group, and which row (admit admits such a prompt
// alone).
func (e *Engine) chunkedRow(rows []*genRow, admitted []int, grp genGroup) (int, bool) {
	if len(admitted) != 1 || !e.chunkable(grp) {
		return 0, false
	}
	r := admitted[0]
	return r, len(rows[r].it.ctx) > e.chunkTokens()
}

// chunkGraph builds the chunk graph described at the top of this file.
func chunkGraph(m models.Model) func(ctx *mlctx.Context, in []*Node) []*Node {
	return func(ctx *mlctx.Context, in []*Node) []*Node {
		defer building()()
		tokens, positions, last, row, n, keys := in[0], in[1], in[2], in[3], in[4], in[5]
		cache := cacheKV(in[6:])
		out := m.Forward(ctx, models.Inputs{Tokens: tokens, Positions: positions, Row: row, RowLen: n, Keys: keys.Shape().Dim(0), Cache: cache})
		h := Gather(out.Hidden, Concatenate([]*Node{ZerosLike(last), last}, 0)) // [1, T, H] → [H]
		h = Reshape(h, 1, h.Shape().Dim(0))                                     // [1, H]
		res := []*Node{ConvertDType(m.DecodeLogits(ctx, h), dtypes.Float32)}    // [1, V]
		return withKV(res, out.KV)
	}
}

// chunkDims are the length and attended slots of the chunk starting at p0
// of a prompt of n tokens in a cache of s slots, with chunks of size: the
// last chunk rounded up to 16 tokens within s (the cache writes must not
// pass its end), and the slots up to the chunk's end (models.Inputs.Row:
// the chunk is then causal after p0 cached keys).
func chunkDims(p0, n, size, s int) (t, keys int) {
	t = min(size, n-p0)
	t = min((t+15)/16*16, s-p0)
	return t, p0 + t
}

// prefillChunks prefills row r's prompt in chunks into cache c and picks
// its first token.
func (e *Engine) prefillChunks(gs *genState, c *kvCache, rows []*genRow, r int) error {
	logits, err := e.runChunks(gs, c, r, rows[r].it.ctx)
	if err != nil {
		return err
	}
	e.push(gs, rows, r, logits)
	return nil
}

// runChunks runs the chunk graphs of prompt into row r of cache c and
// returns the logits [V] after its last token.
func (e *Engine) runChunks(gs *genState, c *kvCache, r int, prompt []int32) ([]float32, error) {
	if gs.chunk == nil {
		gs.chunk = oneShot(newGraphExecs(e, "chunk", chunkGraph(e.model)))
	}
	n, size := len(prompt), e.chunkTokens()
	var logits []float32
	for p0 := 0; p0 < n; p0 += size {
		t, keys := chunkDims(p0, n, size, c.S)
		tok, pos := make([]int32, t), make([]int32, t)
		copy(tok, prompt[p0:min(p0+t, n)])
		for i := range pos {
			pos[i] = int32(p0 + i)
		}
		last := min(n, p0+t) - 1 - p0
		args := []any{tensors.FromFlatDataAndDimensions(tok, 1, t), tensors.FromFlatDataAndDimensions(pos, 1, t),
			tensors.FromFlatDataAndDimensions([]int32{int32(last)}, 1),
			tensors.FromFlatDataAndDimensions([]int32{int32(r)}, 1), tensors.FromFlatDataAndDimensions([]int32{int32(n)}, 1),
			tensors.FromShape(shapes.Make(dtypes.Bool, keys))}
		out, d, err := e.runGen(gs.chunk, fmt.Sprintf("chunk keys=%d", keys), c, args)
		if err != nil {
			return nil, err
		}
		logits = out
		gs.stats.Prefills++
		gs.stats.PrefillTime += d
	}
	gs.stats.PrefillTokens += n
	return logits, nil
}
