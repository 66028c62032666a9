package gocpu

import (
	"slices"
	"sync"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/pkg/errors"

	"github.com/goeval/goeval/internal/gemm"
)

func init() { register(backends.OpTypeDotGeneral, backends.OpTypeDot) }

// dotPlan is a DotGeneral normalised to batch × [M, K] · [K, N]: the
// operands are used in place when their axes are already in that order
// (the right-hand side also as [N, K]), else copied into it.
type dotPlan struct {
	out            shapes.Shape
	batch, m, k, n int
	// lhsPerm/rhsPerm: operand axes in normalised order; nil when the
	// operand is already laid out so.
	lhsPerm, rhsPerm []int
	lhsShape         shapes.Shape
	rhsShape         shapes.Shape
	transB           bool // rhs is [batch, N, K]
	// cacheRHS: the rhs is a parameter or constant (a weight) laid out
	// [K, N]: its packed form is kept on its buffer.
	cacheRHS bool
	// rhsBatchOff/rhsLD: a batched rhs read in place (the KV cache in
	// attention): item i's [K, N] (or [N, K] when transB) matrix starts at
	// rhsBatchOff[i] with rows rhsLD apart. nil: rhs is normalised.
	rhsBatchOff []int
	rhsLD       int
	// bf16: the rhs is a bf16 weight [N, K] converted where used (bf16.go;
	// swap is set too): the node reads the bf16 parameter itself.
	bf16 bool
	// swap: the rhs is a weight laid out [N, K] (a checkpoint's linear
	// weight, or a tied embedding as LM head). Once packed in place
	// (weights.go) it is read packed; until then, or where it cannot be,
	// it is computed as cᵀ = w·aᵀ with the weight as gemm's left operand,
	// read in place, for few rows, and packed per call for many.
	swap bool
}

// DotGeneral implements backends.Builder.
func (b *Builder) DotGeneral(lhs backends.Op, lhsContract, lhsBatch []int, rhs backends.Op, rhsContract, rhsBatch []int) (backends.Op, error) {
	in, err := b.nodes2("DotGeneral", lhs, rhs)
	if err != nil {
		return nil, err
	}
	ls, rs := in[0].shape, in[1].shape
	if ls.DType != rs.DType {
		return nil, errors.Errorf("gocpu: DotGeneral of %s and %s: dtypes differ", ls, rs)
	}
	if len(lhsContract) != len(rhsContract) || len(lhsBatch) != len(rhsBatch) {
		return nil, errors.Errorf("gocpu: DotGeneral: contracting/batch axes of %s and %s do not pair up", ls, rs)
	}
	p := &dotPlan{lhsShape: ls, rhsShape: rs, batch: 1, m: 1, k: 1, n: 1}
	var outDims []int
	for i, ax := range lhsBatch {
		d := ls.Dimensions[ax]
		if rs.Dimensions[rhsBatch[i]] != d {
			return nil, errors.Errorf("gocpu: DotGeneral: batch axes of %s and %s differ", ls, rs)
		}
		p.batch *= d
		outDims = append(outDims, d)
	}
	for i, ax := range lhsContract {
		if rs.Dimensions[rhsContract[i]] != ls.Dimensions[ax] {
			return nil, errors.Errorf("gocpu: DotGeneral: contracting axes of %s and %s differ", ls, rs)
		}
		p.k *= ls.Dimensions[ax]
	}
	lhsCross := crossAxes(ls.Rank(), lhsContract, lhsBatch)
	rhsCross := crossAxes(rs.Rank(), rhsContract, rhsBatch)
	for _, ax := range lhsCross {
		p.m *= ls.Dimensions[ax]
		outDims = append(outDims, ls.Dimensions[ax])
	}
	for _, ax := range rhsCross {
		p.n *= rs.Dimensions[ax]
		outDims = append(outDims, rs.Dimensions[ax])
	}
	p.out = shapes.Make(ls.DType, outDims...)
	p.lhsPerm = permOrNil(concat(lhsBatch, lhsCross, lhsContract))
	if tp := concat(rhsBatch, rhsCross, rhsContract); permOrNil(tp) == nil {
		p.transB = true
	} else {
		p.rhsPerm = permOrNil(concat(rhsBatch, rhsContract, rhsCross))
	}
	if p.rhsPerm != nil && p.batch > 1 && ls.DType == dtypes.Float32 { // runGeneric normalises
		p.planStridedRHS(rs, rhsBatch, rhsContract, rhsCross)
	}
	if n := b.fuseDotColumns(p, in[0], in[1]); n != nil {
		return n, nil
	}
	if n := b.fuseDotBF16(p, in[0], in[1]); n != nil {
		return n, nil
	}
	if n := b.fuseDotInt8(p, in[0], in[1]); n != nil {
		return n, nil
	}
	stored := p.batch == 1 && p.rhsPerm == nil && isStored(in[1])
	p.swap = stored && p.transB
	p.cacheRHS = stored && !p.transB
	run := p.run
	if ls.DType != dtypes.Float32 {
		run = p.runGeneric
	}
	n := b.newNode(backends.OpTypeDotGeneral, p.out, run, in[0], in[1])
	n.dot = p
	return n, nil
}

// planStridedRHS lets a batched rhs with one contracting and one cross
// axis, one of them its last (contiguous) axis, be read in place: each
// batch item is a strided matrix, so no transposed copy is made.
func (p *dotPlan) planStridedRHS(rs shapes.Shape, batch, contract, cross []int) {
	last := rs.Rank() - 1
	if len(contract) != 1 || len(cross) != 1 || (contract[0] != last && cross[0] != last) {
		return
	}
	st := strides(rs.Dimensions)
	p.transB = contract[0] == last
	if p.transB {
		p.rhsLD = st[cross[0]]
	} else {
		p.rhsLD = st[contract[0]]
	}
	p.rhsBatchOff = make([]int, p.batch)
	for i := range p.batch {
		off, rem := 0, i
		for j := len(batch) - 1; j >= 0; j-- {
			d := rs.Dimensions[batch[j]]
			off += (rem % d) * st[batch[j]]
			rem /= d
		}
		p.rhsBatchOff[i] = off
	}
	p.rhsPerm = nil
}

// Dot implements backends.Builder: lhs's last axis contracted with rhs's
// first (rank 1 or 2 operands).
func (b *Builder) Dot(lhs, rhs backends.Op) (backends.Op, error) {
	in, err := b.nodes2("Dot", lhs, rhs)
	if err != nil {
		return nil, err
	}
	lr, rr := in[0].shape.Rank(), in[1].shape.Rank()
	if lr < 1 || lr > 2 || rr < 1 || rr > 2 {
		return nil, errors.Errorf("gocpu: Dot of %s and %s: want rank 1 or 2 operands", in[0].shape, in[1].shape)
	}
	return b.DotGeneral(lhs, []int{lr - 1}, nil, rhs, []int{0}, nil)
}

// isStored: n's value is a parameter or constant, through reshapes.
func isStored(n *node) bool {
	for n.alias {
		n = n.inputs[0]
	}
	return n.param >= 0 || n.value != nil
}

func crossAxes(rank int, contract, batch []int) []int {
	var out []int
	for ax := range rank {
		if !slices.Contains(contract, ax) && !slices.Contains(batch, ax) {
			out = append(out, ax)
		}
	}
	return out
}

func concat(parts ...[]int) []int {
	var out []int
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// permOrNil returns nil for the identity permutation, else perm.
func permOrNil(perm []int) []int {
	for i, p := range perm {
		if i != p {
			return perm
		}
	}
	return nil
}

// normalized returns buf's flat data in perm's axis order (a copy from
// the pool, to be released by the caller) or as is when perm is nil.
func normalized[T any](x *runCtx, buf *Buffer, s shapes.Shape, perm []int) (flat []T, release func()) {
	if perm == nil {
		return buf.flat.([]T), func() {}
	}
	st := strides(s.Dimensions)
	dims, src := make([]int, len(perm)), make([]int, len(perm))
	for i, ax := range perm {
		dims[i], src[i] = s.Dimensions[ax], st[ax]
	}
	tmp := x.b.pool.get(s.DType, s.Size(), false)
	stridedCopy(tmp, dims, buf.flat, 0, src)
	return tmp.([]T), func() { x.b.pool.put(s.DType, tmp) }
}

// run is the float32 product on internal/gemm.
func (p *dotPlan) run(x *runCtx, in []*Buffer) (*Buffer, error) {
	a, relA := normalized[float32](x, in[0], p.lhsShape, p.lhsPerm)
	defer relA()
	if w := in[1].q4; w != nil { // a packed 4-bit weight (q4.go)
		o := x.alloc(p.out, false)
		p.runQ4(x, o.flat.([]float32), a, w)
		return o, nil
	}
	bf, relB := normalized[float32](x, in[1], p.rhsShape, p.rhsPerm)
	defer relB()
	o := x.alloc(p.out, false)
	c := o.flat.([]float32)
	ldb := p.n
	if p.transB {
		ldb = p.k
	}
	switch {
	case in[1].weight != nil: // packed in place (weights.go)
		gemm.MatMul(c, p.n, a, p.k, p.m, in[1].weight, x.threads())
	case p.swap && (p.m < packRowsMin || p.n*p.k > packMaxFloats):
		p.runSwapped(x, c, a, bf)
	case p.cacheRHS:
		gemm.MatMul(c, p.n, a, p.k, p.m, in[1].packedFor(bf, p.k, p.n, ldb, p.transB), x.threads())
	case p.batch == 1:
		// An activation, or a weight times many rows: packed per call into
		// pooled scratch (for a weight this costs what reading it in place
		// as the left operand would, and saves the transpose).
		scratch := x.b.pool.get(dtypes.Float32, gemm.PackedSize(p.k, p.n), false).([]float32)
		defer x.b.pool.put(dtypes.Float32, scratch)
		gemm.MatMul(c, p.n, a, p.k, p.m, gemm.PackBIntoThreads(scratch, bf, p.k, p.n, ldb, p.transB, x.threads()), x.threads())
	case !p.transB && p.m <= inPlaceRowsMax && gemm.CanMatMulInPlaceB(p.n):
		// Few rows times a [K, N] rhs per item (decode attention's
		// probabilities times the value cache): B read in place.
		mk, mn := p.m*p.k, p.m*p.n
		parallelItems(x, p.batch, func(i int) {
			item, ld := p.rhsItem(bf, i, ldb)
			gemm.MatMulInPlaceB(c[i*mn:(i+1)*mn], p.n, a[i*mk:(i+1)*mk], p.k, p.m, item, ld, p.k, p.n)
		})
	case p.m >= fewColsRowsMin && gemm.CanMatMulFewCols(p.k, p.n):
		p.runFewCols(x, c, a, bf, ldb)
	default:
		mk, mn := p.m*p.k, p.m*p.n
		size := gemm.PackedSize(p.k, p.n)
		parallelItems(x, p.batch, func(i int) {
			scratch := x.b.pool.get(dtypes.Float32, size, false).([]float32)
			item, ld := p.rhsItem(bf, i, ldb)
			pb := gemm.PackBInto(scratch, item, p.k, p.n, ld, p.transB)
			gemm.MatMul(c[i*mn:(i+1)*mn], p.n, a[i*mk:(i+1)*mk], p.k, p.m, pb, 1)
			x.b.pool.put(dtypes.Float32, scratch)
		})
	}
	return o, nil
}

// rhsItem is batch item i's rhs in bf and its row stride: the item's
// normalised matrix (row stride ldb), or where the rhs is read in place,
// its strided matrix in the buffer (rhsBatchOff, rhsLD).
func (p *dotPlan) rhsItem(bf []float32, i, ldb int) ([]float32, int) {
	if p.rhsBatchOff != nil {
		return bf[p.rhsBatchOff[i]:], p.rhsLD
	}
	return bf[i*p.k*p.n : (i+1)*p.k*p.n], ldb
}

// inPlaceRowsMax is the most rows a batched product runs per item with
// its rhs read in place (gemm.MatMulInPlaceB, which reads B once per four
// rows) rather than packed per item: a grouped-query attention's heads per
// key-value head at decode.
const inPlaceRowsMax = 8

// fewColsRowsMin is the fewest rows a batched product with few columns
// runs per item through gemm.MatMulFewCols (decode attention's scores: a
// key cache's rows times a query group), whose kernel takes rows in
// blocks of 16.
const fewColsRowsMin = 16

// runFewCols is the batched product through gemm.MatMulFewCols, each
// item's rhs as [N, K] rows: in place where it is laid out so, else its
// [K, N] transposed into scratch (N·K values, a query group).
func (p *dotPlan) runFewCols(x *runCtx, c, a, bf []float32, ldb int) {
	mk, kn, mn := p.m*p.k, p.k*p.n, p.m*p.n
	parallelItems(x, p.batch, func(i int) {
		item, ld := p.rhsItem(bf, i, ldb)
		if !p.transB {
			t := x.b.pool.get(dtypes.Float32, kn, false).([]float32)
			defer x.b.pool.put(dtypes.Float32, t)
			for kk := range p.k {
				for j := range p.n {
					t[j*p.k+kk] = item[kk*ld+j]
				}
			}
			item, ld = t, p.k
		}
		gemm.MatMulFewCols(c[i*mn:(i+1)*mn], p.n, a[i*mk:(i+1)*mk], p.k, p.m, item, ld, p.k, p.n)
	})
}

// packRowsMin is the number of rows from which a weight [N, K] is packed
// per call as the right-hand side instead of read in place as the left
// operand of the transposed product: with many rows the packing is cheap
// next to the product and the transpose of the result is saved.
const packRowsMin = 64

// packMaxFloats bounds a weight packed per call (64 MiB): a larger one (an
// LM head over a big vocabulary) is read in place.
const packMaxFloats = 16 << 20

// runSwapped sets c [M, N] = a [M, K] · wᵀ for w [N, K] as the transpose
// of w·aᵀ: the same fused multiply-add chain per element (FMA's product
// is commutative), so the bits equal the direct product's.
func (p *dotPlan) runSwapped(x *runCtx, c, a, w []float32) {
	scratch := x.b.pool.get(dtypes.Float32, gemm.PackedSize(p.k, p.m), false).([]float32)
	defer x.b.pool.put(dtypes.Float32, scratch)
	at := gemm.PackBInto(scratch, a, p.k, p.m, p.k, true) // aᵀ as a [K, M] right-hand side
	ct := x.b.pool.get(dtypes.Float32, p.n*p.m, false).([]float32)
	defer x.b.pool.put(dtypes.Float32, ct)
	gemm.MatMul(ct, p.m, w, p.k, p.n, at, x.threads())
	transpose2D(x, c, ct, p.n, p.m)
}

// transpose2D sets dst [cols, rows] to the transpose of src [rows, cols],
// in tiles.
func transpose2D(x *runCtx, dst, src []float32, rows, cols int) {
	const tile = 32
	tiles := (rows + tile - 1) / tile
	work := func(lo, hi int) {
		for t := lo; t < hi; t++ {
			r0, r1 := t*tile, min((t+1)*tile, rows)
			for c0 := 0; c0 < cols; c0 += tile {
				c1 := min(c0+tile, cols)
				for r := r0; r < r1; r++ {
					row := src[r*cols : r*cols+cols]
					for cc := c0; cc < c1; cc++ {
						dst[cc*rows+r] = row[cc]
					}
				}
			}
		}
	}
	if rows*cols < minChunk {
		work(0, tiles)
		return
	}
	parallelRange(x, tiles, work)
}

// packCache holds a weight's packed layouts.
type packCache struct {
	m map[[3]int]*gemm.PackedB
}

// packMu guards every buffer's packCache (packing happens once per weight).
var packMu sync.Mutex

// packedFor returns the packed form of this buffer's data as a [k, n]
// right-hand side, packing it on first use.
func (buf *Buffer) packedFor(flat []float32, k, n, ldb int, transB bool) *gemm.PackedB {
	packMu.Lock()
	defer packMu.Unlock()
	if buf.packed == nil {
		buf.packed = &packCache{m: map[[3]int]*gemm.PackedB{}}
	}
	pc := buf.packed
	key := [3]int{k, n, 0}
	if transB {
		key[2] = 1
	}
	if pb := pc.m[key]; pb != nil {
		return pb
	}
	pb := gemm.PackB(flat, k, n, ldb, transB)
	pc.m[key] = pb
	return pb
}
