package engine

import (
	"fmt"
	"slices"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/models"
)

// Prompts after a shared prefix, in place: on goeval's pure-Go backend,
// which gets the decode cache donated, the extend graph copies the
// resident prefix row's first `skip` slots into each admitted prompt's
// cache row, then runs the prompts' own tokens as chunks continuing those
// rows (models.Inputs.Row with P rows): each layer writes their keys and
// values into the cache in place and attends over the rows' first skip+T
// slots. The whole-cache extend (extendGraph, kept where shapes are fixed
// and on XLA, whose cache is not donated) broadcast the prefix to P rows
// of S slots and held every layer's written P-row cache until its end: a
// second copy of the admitted rows' cache (16 admitted rows of 1,300 slots
// at the 0.5B shape: 0.5 GB), and attended over all S slots. Same bits:
// the queries see the same keys at the same positions (genprefix_test.go,
// genextend_test.go).
//
//	extend in place: tokens, positions [P, T] (positions skip … skip+T−1),
//	       last [P], rows [P] (each prompt's cache row, distinct), keys
//	       [skip+T] (only its shape), prefix 2L × [1, K, S, D], cache 2L ×
//	       [B, K, S, D] → logits [P, V] f32 at last, cache' (the rows'
//	       slots [0, skip+T) written in place)

// extendsInPlace reports whether group grp's prompts after its shared
// prefix run the in-place extend: on goeval's pure-Go backend with the
// prefill shapes not fixed, so that every prefill row is an admitted
// prompt's (prefillP is exact there).
func (e *Engine) extendsInPlace(grp genGroup) bool {
	return grp.fixP == 0 && e.cheapShapes()
}

// extendInPlaceGraph builds the in-place extend graph described above.
func extendInPlaceGraph(m models.Model) func(ctx *mlctx.Context, in []*Node) []*Node {
	return func(ctx *mlctx.Context, in []*Node) []*Node {
		defer building()()
		tokens, positions, last, rows, keys := in[0], in[1], in[2], in[3], in[4]
		flat := in[5:]
		half := len(flat) / 2
		prefix, cache := flat[:half], slices.Clone(flat[half:])
		g := tokens.Graph()
		p, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
		skip := keys.Shape().Dim(0) - t
		zero := Scalar(g, dtypes.Int32, 0)
		for i, c := range cache {
			pre := Slice(prefix[i], AxisRange(), AxisRange(), AxisRange(0, skip), AxisRange()) // [1, K, skip, D]
			for r := range p {
				c = DynamicUpdateSlice(c, pre, []*Node{Reshape(Slice(rows, AxisRange(r, r+1))), zero, zero, zero})
			}
			cache[i] = c
		}
		fw := models.Inputs{Tokens: tokens, Positions: positions, Row: rows, Keys: skip + t, Cache: cacheKV(cache)}
		if m.Config().LongRopeLength() > 0 { // each prompt's whole length picks its factors, not its padding's
			fw.RowLen = AddScalar(last, float64(skip+1)) // [P]
		}
		out := m.Forward(ctx, fw)
		rowIdx := Iota(g, shapes.Make(dtypes.Int32, p), 0)
		h := Gather(out.Hidden, Stack([]*Node{rowIdx, last}, -1)) // [P, H]
		logits := ConvertDType(m.DecodeLogits(ctx, h), dtypes.Float32)
		return withKV([]*Node{logits}, out.KV)
	}
}

// extendInPlaceArgs are the in-place extend's graph, shape name and
// arguments for the admitted rows' prompts after the resident prefix pc of
// skip tokens, with their prefill rows and real tokens.
func (e *Engine) extendInPlaceArgs(gs *genState, c *kvCache, rows []*genRow, admitted []int, skip int, pc *prefixCache) (x *graphExecs, kind string, args []any, p, real int) {
	p, n := len(admitted), 0
	for _, r := range admitted {
		n = max(n, len(rows[r].it.ctx)-skip)
	}
	t := min(e.prefillT(n, c.S), c.S-skip) // the writes must not pass the cache's end
	tok, pos, last, real := promptArgs(rows, admitted, skip, p, t)
	dst := make([]int32, p)
	for i, r := range admitted {
		dst[i] = int32(r)
	}
	args = []any{tensors.FromFlatDataAndDimensions(tok, p, t), tensors.FromFlatDataAndDimensions(pos, p, t),
		tensors.FromFlatDataAndDimensions(last, p), tensors.FromFlatDataAndDimensions(dst, p),
		tensors.FromShape(shapes.Make(dtypes.Bool, skip+t))}
	for _, pt := range pc.row.t {
		args = append(args, pt)
	}
	if gs.extendInPlace == nil {
		gs.extendInPlace = newGraphExecs(e, "extend", extendInPlaceGraph(e.model))
	}
	return gs.extendInPlace, fmt.Sprintf("extend keys=%d", skip+t), args, p, real
}
