package gocpu

import (
	"unsafe"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"

	"github.com/goeval/goeval/internal/gemm"
)

// Weight-only bfloat16. A model whose weights are stored as bf16 and
// computed on in f32 converts each weight where it is used:
// ConvertDType(w bf16 → f32), then a product (a linear layer, the LM head)
// or a gather (the embedding). Run as built, each conversion would write
// an f32 copy of the weight on every execution — the LM head's alone is
// vocab × hidden × 4 bytes. Instead the backend fuses the conversion into
// its consumer when the graph is built:
//
//   - DotGeneral(x f32, ConvertDType(w bf16 [N, K])) contracting K becomes
//     one node reading w itself (dotPlan.bf16): once packed in place
//     (weights.go, gemm.PackInPlaceBF16) the bf16 kernels widen it in
//     registers, each output the same FMA chain as the f32 product on the
//     widened weight (the widening is exact), so the same bits;
//   - Gather(ConvertDType(w bf16 [V, H]), ids) of whole rows becomes one
//     node widening the rows it reads (packed or not).
//
// The ConvertDType node stays in the graph and does not run unless
// something else reads it (Executable.needed); then it converts, and w is
// never packed (it must keep its stored layout for that reader).

// bf16Source returns w when n is ConvertDType(w) from a bf16 parameter w
// to float32, else nil.
func bf16Source(n *node) *node {
	if !fuseOps || n.op != backends.OpTypeConvertDType || n.shape.DType != dtypes.Float32 {
		return nil
	}
	w := n.inputs[0]
	if w.shape.DType != dtypes.BFloat16 || w.param < 0 {
		return nil
	}
	return w
}

// fuseDotBF16 returns the fused node for the product p of lhs and in[1]
// when in[1] is a converted bf16 weight [N, K] read whole, else nil.
func (b *Builder) fuseDotBF16(p *dotPlan, lhs, rhs *node) *node {
	w := bf16Source(rhs)
	if w == nil || p.batch != 1 || p.rhsPerm != nil || !p.transB || lhs.shape.DType != dtypes.Float32 {
		return nil
	}
	p.bf16, p.swap = true, true
	n := b.newNode(backends.OpTypeDotGeneral, p.out, p.runBF16, lhs, w)
	n.dot, n.fused = p, "DotBF16"
	return n
}

// runBF16 is the product with a bf16 weight [N, K]: packed in place
// (weights.go) it runs on gemm's bf16 kernels (VDPBF16PS with "bf16=dot",
// whose numbers differ; the stored-layout path below does not follow it);
// otherwise (never packed:
// N not a multiple of the panel width, K odd, or another reader needs the
// stored layout) on the f32 kernels, a few weight rows widened at a time.
func (p *dotPlan) runBF16(x *runCtx, in []*Buffer) (*Buffer, error) {
	a, relA := normalized[float32](x, in[0], p.lhsShape, p.lhsPerm)
	defer relA()
	o := x.alloc(p.out, false)
	c := o.flat.([]float32)
	if w := in[1].weightBF16; w != nil {
		if x.b.bf16Dot {
			gemm.MatMulBF16Dot(c, p.n, a, p.k, p.m, w, x.threads())
		} else {
			gemm.MatMulBF16(c, p.n, a, p.k, p.m, w, x.threads())
		}
		return o, nil
	}
	p.runBF16Stored(x, c, a, bits16(in[1].flat))
	return o, nil
}

// bf16Rows is how many weight rows runBF16Stored widens at once.
const bf16Rows = 256

// runBF16Stored sets c [M, N] = a [M, K] · wᵀ for the bf16 weight w
// [N, K] in its stored layout: bf16Rows rows of w at a time are widened
// into pooled f32 scratch, packed and multiplied into their columns of c.
// Each element is the f32 kernel's chain on the widened weight, so the
// bits equal those of the packed bf16 path. No f32 copy of the whole
// weight is made.
func (p *dotPlan) runBF16Stored(x *runCtx, c, a []float32, w []uint16) {
	rows := min(bf16Rows, p.n)
	wide := x.b.pool.get(dtypes.Float32, rows*p.k, false).([]float32)
	defer x.b.pool.put(dtypes.Float32, wide)
	scratch := x.b.pool.get(dtypes.Float32, gemm.PackedSize(p.k, rows), false).([]float32)
	defer x.b.pool.put(dtypes.Float32, scratch)
	for j0 := 0; j0 < p.n; j0 += rows {
		n := min(rows, p.n-j0)
		widenBF16(x, wide[:n*p.k], w[j0*p.k:(j0+n)*p.k])
		pb := gemm.PackBIntoThreads(scratch, wide, p.k, n, p.k, true, x.threads())
		gemm.MatMul(c[j0:], p.n, a, p.k, p.m, pb, x.threads())
	}
}

// widenBF16 sets dst[i] to src[i] widened to f32, in parallel chunks.
func widenBF16(x *runCtx, dst []float32, src []uint16) {
	parallel(x, len(dst), func(lo, hi int) { widenInto(dst[lo:hi], src[lo:hi]) })
}

// widenInto sets dst[i] to src[i] widened to f32.
func widenInto(dst []float32, src []uint16) {
	for i, v := range src {
		dst[i] = gemm.WidenBF16(v)
	}
}

// bits16 views a []bfloat16.BFloat16 as its bit patterns.
func bits16(flat any) []uint16 {
	f := flat.([]bfloat16.BFloat16)
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&f[0])), len(f))
}

// fuseGatherBF16 returns the fused node for the gather p of in[0] when
// in[0] is a converted bf16 weight [V, H] and p gathers whole rows into
// the output's last axis (an embedding lookup), else nil.
func (b *Builder) fuseGatherBF16(p *gatherPlan, operand, indices *node, offsetOutAxes, collapsed []int) *node {
	w := bf16Source(operand)
	if w == nil || !p.rowGather(offsetOutAxes, collapsed) {
		return nil
	}
	n := b.newNode(backends.OpTypeGather, p.out, p.runBF16Rows, w, indices)
	n.fused = "GatherBF16"
	return n
}

// rowGather reports whether p copies whole rows of a rank-2 operand, one
// per index, into consecutive rows of the output's last axis.
func (p *gatherPlan) rowGather(offsetOutAxes, collapsed []int) bool {
	r := p.out.Rank()
	return p.operand.Rank() == 2 && p.ivLen == 1 && len(p.startMap) == 1 && p.startMap[0] == 0 &&
		len(collapsed) == 1 && collapsed[0] == 0 && p.sliceSizes[0] == 1 && p.sliceSizes[1] == p.operand.Dimensions[1] &&
		len(offsetOutAxes) == 1 && offsetOutAxes[0] == r-1 && p.out.Size() == p.batchCount*p.sliceSizes[1]
}

// runBF16Rows gathers rows of the bf16 weight in[0] widened to f32, from
// its packed layout when it is packed in place (a tied LM head).
func (p *gatherPlan) runBF16Rows(x *runCtx, in []*Buffer) (*Buffer, error) {
	o := x.alloc(p.out, false)
	dst := o.flat.([]float32)
	idx := intsOf(in[1].flat)
	v, h := p.operand.Dimensions[0], p.operand.Dimensions[1]
	packed := in[0].weightBF16
	w := bits16(in[0].flat)
	for pos := range p.batchCount {
		row := min(max(p.indexAt(idx, pos, 0), 0), v-1)
		out := dst[pos*h : (pos+1)*h]
		if packed != nil {
			packed.WidenRowTo(out, row)
			continue
		}
		for i, u := range w[row*h : (row+1)*h] {
			out[i] = gemm.WidenBF16(u)
		}
	}
	return o, nil
}
