package gocpu

import (
	"sync"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"

	"github.com/goeval/goeval/internal/gemm"
)

// Weights packed in place. A checkpoint's linear weight [N, K] is the
// transposed right-hand side of its product. Packing it for the
// micro-kernel per product costs as much as reading it (for a pass of 64
// rows, more than the product itself), and a packed copy would double the
// weights' memory. So the first execution whose every use of a parameter
// is such a product packs that parameter's buffer in its own storage
// (gemm.PackInPlace): its flat then holds the packed layout, and Buffer.
// weight describes it. The products read it as packed B for any number of
// rows.
//
// Anything else that reads the buffer gets the weight as stored: an
// execution that uses it otherwise (an embedding gathered, and so a tied
// LM head) marks it never to be packed, and unpacks it first if it was;
// BufferData unpacks it (the caller may read or write it);
// BufferToFlatData and BufferCopyToDevice copy it out unpacked. A layout
// changes only under layoutMu's write lock, which waits for running
// executions (each holds the read lock while it runs). The mark is set
// before the layout is checked, so an execution that packs a weight either
// sees it (and does not) or packs first and is undone: a product checks
// Buffer.weight when it runs and reads the weight either way.
var layoutMu sync.RWMutex

// packSpec says how an executable uses one parameter: used when a needed
// node reads it; bad when one needs its stored layout; ok when every use
// is the right-hand side [n, k] of a product that can read it packed, or
// reads either layout (a bf16 row gather), and one is such a product.
type packSpec struct {
	used, bad, ok bool
	// prod: every use is such a product, whatever its shape (a packed
	// 4-bit weight is read as one at any shape, q4.go).
	prod bool
	bf16 bool // the products read it as a bf16 weight
	n, k int
}

// paramPacking finds, for each parameter, whether all its uses in the
// needed nodes are products reading it as a packed weight [N, K].
func paramPacking(params []*node, nodes []*node, needed []bool, outs []*node) []packSpec {
	specs := make([]packSpec, len(params))
	for _, o := range outs {
		if o.param >= 0 {
			specs[o.param].bad, specs[o.param].used = true, true
		}
	}
	for i, nd := range nodes {
		if !needed[i] {
			continue
		}
		for j, in := range nd.inputs {
			if in.param >= 0 {
				specs[in.param].use(nd, j)
			}
		}
	}
	for i := range specs {
		s := &specs[i]
		okShape := gemm.InPlaceOK(s.n, s.k)
		if s.bf16 {
			okShape = gemm.InPlaceOKBF16(s.n, s.k)
		}
		s.prod = s.ok && !s.bad && !s.bf16
		s.ok = s.ok && !s.bad && okShape
	}
	return specs
}

// use records that node nd reads the parameter as its input j.
func (s *packSpec) use(nd *node, j int) {
	s.used = true
	if j == 0 && nd.fused == "GatherBF16" || j == 1 && (nd.fused == "DotInt8" || nd.fused == "DotInt8F32") || j == 2 && nd.fused == "DotColumns" {
		return // reads either layout
	}
	if j != 1 || nd.dot == nil || !nd.dot.packedWeightOK() || nd.inputs[0] == nd.inputs[1] {
		s.bad = true
		return
	}
	if s.ok && (s.n != nd.dot.n || s.k != nd.dot.k || s.bf16 != nd.dot.bf16) {
		s.bad = true // an earlier product read it as another shape
	}
	s.ok, s.bf16, s.n, s.k = true, nd.dot.bf16, nd.dot.n, nd.dot.k
}

// packedWeightOK: the product's right-hand side is a stored weight [N, K]
// read whole (f32, or bf16 converted where used), so it can be read packed
// in place.
func (p *dotPlan) packedWeightOK() bool {
	return p.swap && p.lhsShape.DType == dtypes.Float32
}

// packableDType: buffers of these dtypes are packed in place.
func packableDType(dt dtypes.DType) bool { return dt == dtypes.Float32 || dt == dtypes.BFloat16 }

// prepareWeights sets the layout of the parameter buffers (vals, by node)
// for one execution: packs the weights it only multiplies (unless marked never to
// be packed, or donated); marks those it reads otherwise never to be
// packed, unpacking them if they are. It takes layoutMu's write lock only
// when something changes.
func (e *Executable) prepareWeights(vals []*Buffer, donated []bool) {
	change := func(i int, buf *Buffer) bool {
		s := e.packing[i]
		switch {
		case s.bad:
			return buf.isPacked()
		case buf.q4 != nil:
			return s.used && !s.prod // read otherwise than by a product
		case s.ok && !buf.isPacked():
			want := dtypes.Float32
			if s.bf16 {
				want = dtypes.BFloat16
			}
			return !buf.noPack.Load() && !donated[i] && buf.shape.DType == want && buf.shape.Size() == s.n*s.k
		}
		return false
	}
	for i, prm := range e.params {
		if buf, s := vals[prm.idx], e.packing[i]; s.bad && packableDType(buf.shape.DType) {
			buf.noPack.Store(true)
		}
	}
	layoutMu.RLock()
	changed := false
	for i, prm := range e.params {
		changed = changed || change(i, vals[prm.idx])
	}
	layoutMu.RUnlock()
	if !changed {
		return
	}
	layoutMu.Lock()
	defer layoutMu.Unlock()
	for i, prm := range e.params {
		buf := vals[prm.idx]
		if !change(i, buf) { // checked again: another execution may have changed it
			continue
		}
		s := e.packing[i]
		switch {
		case s.bad || buf.q4 != nil: // the codes dequantized for good
			buf.unpack(e.b.threads)
		case s.bf16:
			buf.weightBF16 = gemm.PackInPlaceBF16(bits16(buf.flat), s.n, s.k, e.b.threads)
		default:
			buf.weight = gemm.PackInPlace(buf.flat.([]float32), s.n, s.k, e.b.threads)
		}
		buf.packed = nil
	}
}

// isPacked reports whether the buffer holds a weight packed in place (or
// as 4-bit codes).
func (buf *Buffer) isPacked() bool {
	return buf.weight != nil || buf.weightBF16 != nil || buf.q4 != nil
}

// unpack restores a packed weight's stored layout and marks it never to
// be packed again; the caller holds layoutMu's write lock.
func (buf *Buffer) unpack(threads int) {
	if buf.weight != nil {
		buf.weight.Unpack(threads)
	}
	if buf.weightBF16 != nil {
		buf.weightBF16.Unpack(threads)
	}
	if buf.q4 != nil {
		buf.dequantizeQ4()
	}
	buf.weight, buf.weightBF16 = nil, nil
	buf.noPack.Store(true)
}

// flatCopy copies the buffer's value, in its stored layout, into dst.
func (buf *Buffer) flatCopy(dst any) error {
	layoutMu.RLock()
	defer layoutMu.RUnlock()
	switch d := dst.(type) {
	case []float32:
		if buf.weight != nil && len(d) == buf.shape.Size() {
			buf.weight.UnpackTo(d)
			return nil
		}
		if buf.q4 != nil && len(d) == buf.shape.Size() {
			buf.q4.Dequantize(d)
			return nil
		}
	case []bfloat16.BFloat16:
		if buf.weightBF16 != nil && len(d) == buf.shape.Size() {
			buf.weightBF16.UnpackTo(bits16(d))
			return nil
		}
	}
	if buf.isPacked() {
		return copyFlat(dst, nil) // a mismatch: copyFlat names it
	}
	return copyFlat(dst, buf.flat)
}

// PackedWeights counts the buffers among bufs whose weights are packed in
// place (for tests and diagnostics).
func PackedWeights(bufs ...any) int {
	layoutMu.RLock()
	defer layoutMu.RUnlock()
	n := 0
	for _, x := range bufs {
		if buf, ok := x.(*Buffer); ok && buf.isPacked() {
			n++
		}
	}
	return n
}
