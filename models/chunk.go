package models

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/models/nn"
)

// chunk is Forward for chunks continuing cache rows (Inputs.Row): each
// layer writes chunk p's keys and values into cache row row[p] at the
// chunk's first position (DynamicUpdateSlice, a chunk at a time: in place
// where the cache is donated, so no layer copies the cache), then attends
// over those rows' first `keys` slots (a Gather of the rows, sliced and put
// back in token order: P rows' keys, freed after the layer). A chunk is its
// row's last keys−T slots' continuation, as packed rows after a cached
// prefix are (nn.AttentionOptions.Past = keys − T): with the chunk at
// positions keys−T … keys−1 each query chunk inside it computes only the
// scores of the keys before its end, through the same ops as a one-pass
// prefill, so a chunked prompt's values are a one-pass prefill's. A chunk
// whose first position is not keys − T (a shorter prompt padded after a
// shared prefix) is still exact (the mask decides), only slower; its
// padding writes slots past its prompt, which nothing reads before decoding
// writes them. rowLen, each whole row's length, is what a LongRoPE model
// picks its factors by (setRopeLen; nil: each chunk's last position + 1).
//
//	tokens, positions [P, T], row [P], rowLen [P] or nil, cache L × {[B, K, S, D]}
//	→ hidden [P, T, H], cache' (row[p]'s slots [p₀, p₀+T) written)
func (d *decoder) chunk(ctx *context.Context, tokens, positions, row, rowLen *Node, keys int, cache []KV) Outputs {
	g := tokens.Graph()
	if rowLen != nil && d.cfg.LongRopeLength() > 0 {
		setRopeLen(ctx, g, rowLen)
	}
	dims := cache[0].K.Shape().Dimensions // [B, K, S, D]
	if keys == 0 {
		keys = dims[2]
	}
	p, t := tokens.Shape().Dim(0), tokens.Shape().Dim(1)
	zero := Scalar(g, dtypes.Int32, 0)
	starts := make([][]*Node, p) // chunk i's write: its cache row, its first position
	for i := range p {
		r := Reshape(Slice(row, AxisRange(i, i+1)))                         // scalar
		p0 := Reshape(Slice(positions, AxisRange(i, i+1), AxisRange(0, 1))) // scalar
		starts[i] = []*Node{r, zero, p0, zero}
	}
	slots := Iota(g, shapes.Make(dtypes.Int32, p, keys), 1) // [P, keys]
	at := Reshape(row, p, 1)                                // Gather index: the rows
	write := func(c, x *Node) *Node {                       // x [P, T, K, D]
		x = headMajor(x) // [P, K, T, D]
		for i := range p {
			xi := x
			if p > 1 {
				xi = Slice(x, AxisRange(i, i+1))
			}
			c = DynamicUpdateSlice(c, xi, starts[i])
		}
		return c
	}
	read := func(c *Node) *Node { // [B, K, S, D] → [P, keys, K, D]
		x := Gather(c, at) // [P, K, S, D]
		if keys < dims[2] {
			x = Slice(x, AxisRange(), AxisRange(), AxisRange(0, keys), AxisRange())
		}
		return TransposeAllDims(x, 0, 2, 1, 3)
	}
	next := make([]KV, len(cache))
	hooks := func(i int) kvHook {
		return func(k, v *Node) (*Node, *Node) { // [P, T, K, D]
			next[i] = KV{K: write(cache[i].K, k), V: write(cache[i].V, v)}
			return read(next[i].K), read(next[i].V)
		}
	}
	maskFor := func(w int) nn.Mask { return nn.PositionMask(positions, slots, nil, w) }
	return Outputs{Hidden: d.forward(ctx, tokens, positions, maskFor, hooks, false, keys-t), KV: next}
}
