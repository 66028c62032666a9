package gocpu

import (
	"math"
	"slices"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/goeval/goeval/internal/gemm"
)

// LLM.int8's outlier columns (models/nn.Int8Input.Linear): the product
//
//	DotGeneral(Where(BroadcastToDims(cols, S, R, K), x, ZerosLike(x)), ConvertDType(w, Float32))
//
// of activations x [S, R, K] kept only in each sequence's outlier columns
// (cols [S, 1, K] bool; a handful of the K) and a bf16 weight [N, K]
// becomes one node that multiplies just those columns: per sequence the
// columns' activations [R, c] and the weight's columns [N, c], gathered,
// through the same f32 kernels. Every output is the kernels' fused
// multiply-add chain over k, whose terms outside the columns are exact
// zeros (x = +0, weights finite) that leave it as it was, so the bits are
// the whole product's (TestDotColumnsFused) for a fraction of its work:
// transformers multiplies only those columns too.

// fuseDotColumns returns the fused node for the product p of lhs and rhs
// when they are the product above, else nil.
func (b *Builder) fuseDotColumns(p *dotPlan, lhs, rhs *node) *node {
	w := bf16Source(rhs)
	if w == nil || p.batch != 1 || p.lhsPerm != nil || p.rhsPerm != nil || !p.transB ||
		lhs.op != backends.OpTypeWhere || lhs.shape.Rank() != 3 || lhs.shape.DType != dtypes.Float32 {
		return nil
	}
	cond, x, zero := lhs.inputs[0], lhs.inputs[1], lhs.inputs[2]
	if cond.op != backends.OpTypeBroadcastInDim || !slices.Equal(cond.aux, []int{0, 1, 2}) || !isZeros(zero) {
		return nil
	}
	mask, dims := cond.inputs[0], lhs.shape.Dimensions
	if md := mask.shape.Dimensions; mask.shape.DType != dtypes.Bool || len(md) != 3 || md[0] != dims[0] || md[1] != 1 || md[2] != dims[2] {
		return nil
	}
	n := b.newNode(backends.OpTypeDotGeneral, p.out, p.runColumns(dims[0], dims[1]), mask, x, w)
	n.fused = "DotColumns"
	return n
}

// isZeros reports whether n is a scalar +0 broadcast (ZerosLike).
func isZeros(n *node) bool {
	if n.op != backends.OpTypeBroadcastInDim || len(n.aux) != 0 || n.inputs[0].value == nil {
		return false
	}
	v, ok := n.inputs[0].value.flat.([]float32)
	return ok && len(v) == 1 && math.Float32bits(v[0]) == 0
}

// runColumns is the fused product for s sequences of r rows: out [S·R, N].
func (p *dotPlan) runColumns(s, r int) runFunc {
	return func(x *runCtx, in []*Buffer) (*Buffer, error) {
		mask, xs := in[0].flat.([]bool), in[1].flat.([]float32)
		o := x.alloc(p.out, false)
		out := o.flat.([]float32)
		for q := range s {
			var cols []int
			for k, on := range mask[q*p.k : (q+1)*p.k] {
				if on {
					cols = append(cols, k)
				}
			}
			c := out[q*r*p.n : (q+1)*r*p.n]
			if len(cols) == 0 {
				clear(c) // every term +0: the chain's +0
				continue
			}
			a := make([]float32, r*len(cols))
			for i := range r {
				row := xs[(q*r+i)*p.k:]
				for j, k := range cols {
					a[i*len(cols)+j] = row[k]
				}
			}
			wc := in[2].columnsF32(p.n, p.k, cols)
			gemm.MatMul(c, p.n, a, len(cols), r, gemm.PackB(wc, len(cols), p.n, len(cols), true), x.threads())
		}
		return o, nil
	}
}

// columnsF32 returns columns cols of the bf16 weight [n, k] this buffer
// holds, widened, as [n, len(cols)]: read in place where it is stored row
// by row, else through its packed layout's rows.
func (b *Buffer) columnsF32(n, k int, cols []int) []float32 {
	out := make([]float32, n*len(cols))
	if b.weightBF16 == nil {
		w := bits16(b.flat)
		for j := range n {
			for i, c := range cols {
				out[j*len(cols)+i] = gemm.WidenBF16(w[j*k+c])
			}
		}
		return out
	}
	rows, row := b.rowReader(k), make([]float32, k)
	for j := range n {
		rows(j, j+1, row)
		for i, c := range cols {
			out[j*len(cols)+i] = row[c]
		}
	}
	return out
}
