package gocpu

import (
	"sync"

	"github.com/gomlx/gomlx/pkg/core/dtypes"

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
// node reads it; ok when every use is the right-hand side [n, k] of a
// product that can read it packed.
type packSpec struct {
	used, ok bool
	n, k     int
}

// paramPacking finds, for each parameter, whether all its uses in the
// needed nodes are products reading it as a packed weight [N, K].
func paramPacking(params []*node, nodes []*node, needed []bool, outs []*node) []packSpec {
	specs := make([]packSpec, len(params))
	bad := make([]bool, len(params))
	for _, o := range outs {
		if o.param >= 0 {
			bad[o.param], specs[o.param].used = true, true
		}
	}
	for i, nd := range nodes {
		if !needed[i] {
			continue
		}
		for j, in := range nd.inputs {
			if in.param < 0 {
				continue
			}
			pi := in.param
			specs[pi].used = true
			if j != 1 || nd.dot == nil || !nd.dot.packedWeightOK() || nd.inputs[0] == in {
				bad[pi] = true
				continue
			}
			if specs[pi].ok && (specs[pi].n != nd.dot.n || specs[pi].k != nd.dot.k) {
				bad[pi] = true // an earlier product read it as another shape
			}
			specs[pi].ok, specs[pi].n, specs[pi].k = true, nd.dot.n, nd.dot.k
		}
	}
	for i := range specs {
		specs[i].ok = specs[i].ok && !bad[i] && gemm.InPlaceOK(specs[i].n, specs[i].k)
	}
	return specs
}

// packedWeightOK: the product's right-hand side is a stored weight [N, K]
// read whole, so it can be read packed in place.
func (p *dotPlan) packedWeightOK() bool {
	return p.swap && p.lhsShape.DType == dtypes.Float32
}

// prepareWeights sets the layout of the parameter buffers (vals, by node)
// for one execution: packs the weights it only multiplies (unless marked never to
// be packed, or donated); marks those it reads otherwise never to be
// packed, unpacking them if they are. It takes layoutMu's write lock only
// when something changes.
func (e *Executable) prepareWeights(vals []*Buffer, donated []bool) {
	change := func(i int, buf *Buffer) bool {
		s := e.packing[i]
		switch {
		case s.used && !s.ok:
			return buf.weight != nil
		case s.ok && buf.weight == nil:
			return !buf.noPack.Load() && !donated[i] && buf.shape.DType == dtypes.Float32 && buf.shape.Size() == s.n*s.k
		}
		return false
	}
	for i, prm := range e.params {
		if buf, s := vals[prm.idx], e.packing[i]; s.used && !s.ok && buf.shape.DType == dtypes.Float32 {
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
		if !s.ok {
			buf.unpack(e.b.threads)
			continue
		}
		buf.weight = gemm.PackInPlace(buf.flat.([]float32), s.n, s.k, e.b.threads)
		buf.packed = nil
	}
}

// unpack restores a packed weight's stored layout and marks it never to
// be packed again; the caller holds layoutMu's write lock.
func (buf *Buffer) unpack(threads int) {
	buf.weight.Unpack(threads)
	buf.weight = nil
	buf.noPack.Store(true)
}

// flatCopy copies the buffer's value, in its stored layout, into dst.
func (buf *Buffer) flatCopy(dst any) error {
	layoutMu.RLock()
	defer layoutMu.RUnlock()
	if buf.weight != nil {
		d, ok := dst.([]float32)
		if !ok || len(d) != buf.shape.Size() {
			return copyFlat(dst, buf.flat) // copyFlat names the mismatch
		}
		buf.weight.UnpackTo(d)
		return nil
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
		if buf, ok := x.(*Buffer); ok && buf.weight != nil {
			n++
		}
	}
	return n
}
