package models

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/models/nn"
)

// chunk is Forward for one chunk of a long prompt (Inputs.Row): each
// layer writes the chunk's keys and values into cache row `row` at the
// chunk's first position (DynamicUpdateSlice: in place where the cache is
// donated, so no layer copies the cache), then attends over that row's
// first `keys` slots (a Gather of the row, sliced and put back in token
// order: one row's keys, freed after the layer). The chunk is the row's
// last keys−T slots' continuation, as packed rows after a cached prefix
// are (nn.AttentionOptions.Past = keys − T): with the chunk at positions
// keys−T … keys−1 each query chunk inside it computes only the scores of
// the keys before its end, through the same ops as a one-pass prefill, so
// a chunked prompt's values are a one-pass prefill's. A chunk whose first
// position is not keys − T is still exact (the mask decides), only slower.
// rowLen, the whole row's length, is what a LongRoPE model picks its
// factors by (setRopeLen; nil: the chunk's last position + 1).
//
//	tokens, positions [1, T], row [1], rowLen [1] or nil, cache L × {[B, K, S, D]}
//	→ hidden [1, T, H], cache' (row's slots [p₀, p₀+T) written)
func (d *decoder) chunk(ctx *context.Context, tokens, positions, row, rowLen *Node, keys int, cache []KV) Outputs {
	g := tokens.Graph()
	if rowLen != nil && d.cfg.LongRopeLength() > 0 {
		setRopeLen(ctx, g, rowLen)
	}
	dims := cache[0].K.Shape().Dimensions // [B, K, S, D]
	if keys == 0 {
		keys = dims[2]
	}
	zero := Scalar(g, dtypes.Int32, 0)
	r := Reshape(row)                                             // scalar
	p0 := Reshape(Slice(positions, AxisRange(), AxisRange(0, 1))) // scalar: the chunk's first position
	slots := Iota(g, shapes.Make(dtypes.Int32, 1, keys), 1)       // [1, keys]
	at := Reshape(row, 1, 1)                                      // Gather index: row r
	write := func(c, x *Node) *Node { return DynamicUpdateSlice(c, headMajor(x), []*Node{r, zero, p0, zero}) }
	read := func(c *Node) *Node { // [B, K, S, D] → [1, keys, K, D]
		x := Gather(c, at) // [1, K, S, D]
		if keys < dims[2] {
			x = Slice(x, AxisRange(), AxisRange(), AxisRange(0, keys), AxisRange())
		}
		return TransposeAllDims(x, 0, 2, 1, 3)
	}
	next := make([]KV, len(cache))
	hooks := func(i int) kvHook {
		return func(k, v *Node) (*Node, *Node) { // [1, T, K, D]
			next[i] = KV{K: write(cache[i].K, k), V: write(cache[i].V, v)}
			return read(next[i].K), read(next[i].V)
		}
	}
	maskFor := func(w int) nn.Mask { return nn.PositionMask(positions, slots, nil, w) }
	t := tokens.Shape().Dim(1)
	return Outputs{Hidden: d.forward(ctx, tokens, positions, maskFor, hooks, false, keys-t), KV: next}
}
