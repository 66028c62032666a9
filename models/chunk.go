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
// first `keys` slots (a Gather of the row, sliced: one row's keys, freed
// after the layer). The queries see the slots up to their own positions
// (and inside the layer's window), as in a one-pass prefill, through the
// same ops as decode and extend (AttentionCached), so a chunked prompt's
// values are a one-pass prefill's.
//
//	tokens, positions [1, T], row [1], cache L × {[B, K, S, D]}
//	→ hidden [1, T, H], cache' (row's slots [p₀, p₀+T) written)
func (d *decoder) chunk(ctx *context.Context, tokens, positions, row *Node, keys int, cache []KV) Outputs {
	g := tokens.Graph()
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
	read := func(c *Node) *Node { // [B, K, S, D] → [1, K, keys, D]
		rowKV := Gather(c, at) // [1, K, S, D]
		if keys == dims[2] {
			return rowKV
		}
		return Slice(rowKV, AxisRange(), AxisRange(), AxisRange(0, keys), AxisRange())
	}
	next := make([]KV, len(cache))
	hooks := func(i int) kvHook {
		return func(k, v *Node) (*Node, *Node) { // [1, T, K, D]
			next[i] = KV{K: write(cache[i].K, k), V: write(cache[i].V, v)}
			return read(next[i].K), read(next[i].V)
		}
	}
	maskFor := func(w int) nn.Mask { return nn.PositionMask(positions, slots, nil, w) }
	return Outputs{Hidden: d.forward(ctx, tokens, positions, maskFor, hooks, true, 0), KV: next}
}
