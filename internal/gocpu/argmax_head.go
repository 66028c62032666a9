package gocpu

import (
	"sync"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"

	"github.com/goeval/goeval/internal/gemm"
	"github.com/goeval/goeval/internal/procfs"
)

// Screened greedy heads. A greedy decode graph ends in ArgMax(a · wᵀ)
// over an LM head w [V, H] that is a parameter (f32, or bf16 converted
// where used): the step needs each row's index of the largest logit, not
// the logits. That ArgMinMax becomes one node that finds the same index
// through gemm.RowsI8 — an int8 copy of w made at the node's first run
// and kept on w's buffer (V·H bytes: 263 MB at Llama 3.2's 128256 × 2048),
// read instead of w (half of bf16's bytes, a quarter of f32's), with only
// the few rows whose logit could be the largest computed exactly, in the
// same arithmetic as the product (the f32 chain, or "bf16=dot"'s VDPBF16PS
// pairs for a packed bf16 head). The index is the product's argmax bit for
// bit (the first of equal maxima); screenHead gives up, and the node
// computes the product and its argmax, for non-finite values, more rows
// than screenMaxRows*, a packed 4-bit head, too little memory for the
// copy, or "screen=off".

// screenMaxRows is the most activation rows the screen serves for a head
// held in f32 (4 bytes a weight) and in bf16 (2): each row after the first
// converts the int8 copy again (from cache, a slice at a time), so past
// these the product, which reads the head once, costs as much (1B nf4
// model, 2 cores, Zen 4: f32 head 1.2–1.5× faster decode at 4 and 8 rows,
// even at 16; bf16 head even from 4 rows). The integer screen
// (gemm.HasIntScreen: AVX512_VNNI) serves screenMaxRowsInts of either:
// its 16 rows cost about three times one row (BenchmarkScreen).
const screenMaxRowsF32, screenMaxRowsBF16, screenMaxRowsInts = 8, 2, 64

// ScreenMaxRows is the most activation rows a greedy head held in bf16
// (bf16) or f32 is screened for on this CPU (screenMaxRows*).
func ScreenMaxRows(bf16 bool) int {
	switch {
	case gemm.HasIntScreen():
		return screenMaxRowsInts
	case bf16:
		return screenMaxRowsBF16
	}
	return screenMaxRowsF32
}

// headScreen is a buffer's screening copy, made once (nil rows: the
// weight is not finite, never screen it).
type headScreen struct {
	once sync.Once
	rows *gemm.RowsI8
}

// screenStats counts the rows the backend's screened heads served and the
// head rows they computed exactly (for tests and benchmarks).
var screenStats struct {
	sync.Mutex
	gemm.ScreenStats
}

// ScreenedRows returns how many activation rows screened heads served and
// how many head rows they computed exactly, since the process started.
func ScreenedRows() (rows, candidates int) {
	screenStats.Lock()
	defer screenStats.Unlock()
	return screenStats.Rows, screenStats.Candidates
}

// fuseArgMaxHead returns the fused node for ArgMinMax(x) when it takes the
// maximum over the last axis of x, a product of float32 rows with a
// parameter weight [V, H] read transposed (an LM head), else nil.
func (b *Builder) fuseArgMaxHead(x *node, axis int, isMin bool, shape shapes.Shape) *node {
	p := x.dot
	if !fuseOps || b.backend.noScreen || isMin || p == nil || axis != x.shape.Rank()-1 ||
		p.batch != 1 || !p.transB || p.rhsPerm != nil || p.rhsShape.Rank() != 2 || x.shape.DType != dtypes.Float32 {
		return nil
	}
	w := x.inputs[1]
	if w.param < 0 {
		return nil
	}
	dotRun := x.run
	run := func(rc *runCtx, in []*Buffer) (*Buffer, error) {
		o := rc.alloc(shape, false)
		if p.screenHead(rc, in, o) {
			return o, nil
		}
		logits, err := dotRun(rc, in)
		if err != nil {
			return nil, err
		}
		argRows32(rc, o.flat, logits.flat.([]float32), p.n, false)
		rc.b.pool.put(dtypes.Float32, logits.flat)
		return o, nil
	}
	n := b.newNode(backends.OpTypeArgMinMax, shape, run, x.inputs...)
	n.dot, n.fused = p, "ArgMaxHead" // reads w as the product does (weights.go)
	return n
}

// screenHead sets o to the argmax of each row of the product through the
// weight buffer's screen, or returns false (see above).
func (p *dotPlan) screenHead(x *runCtx, in []*Buffer, o *Buffer) bool {
	w := in[1]
	if p.m > ScreenMaxRows(p.bf16) || w.q4 != nil {
		return false
	}
	arith := gemm.ArithFMA
	if p.bf16 && x.b.bf16Dot && w.weightBF16 != nil {
		arith = gemm.ArithBF16Dot // runBF16's MatMulBF16Dot
	}
	s := w.headScreen(p.n, p.k, x.threads())
	if s == nil {
		return false
	}
	a, rel := normalized[float32](x, in[0], p.lhsShape, p.lhsPerm)
	defer rel()
	ids := make([]int32, p.m)
	var st gemm.ScreenStats
	if !s.ArgMax(ids, a, p.m, w.rowReader(p.k), arith, x.threads(), &st) {
		return false
	}
	switch d := o.flat.(type) {
	case []int32:
		copy(d, ids)
	case []int64:
		for i, id := range ids {
			d[i] = int64(id)
		}
	}
	screenStats.Lock()
	screenStats.Rows += st.Rows
	screenStats.Candidates += st.Candidates
	screenStats.Unlock()
	return true
}

// screenMu guards Buffer.screen's creation.
var screenMu sync.Mutex

// headScreen returns the screening copy of the weight [n, k] this buffer
// holds (n·k bytes), made on first use; nil if the weight is not finite or
// the memory available is less than twice the copy.
func (b *Buffer) headScreen(n, k, threads int) *gemm.RowsI8 {
	s := derived(&screenMu, &b.screen)
	s.once.Do(func() {
		if avail := procfs.KB("/proc/meminfo", "MemAvailable"); avail > 0 && avail < 2*int64(n)*int64(k) {
			return // the copy would crowd the memory left: no screen
		}
		switch { // a packed weight from its panels, without reading its rows out
		case b.weight != nil:
			s.rows = b.weight.ScreenI8(threads)
		case b.weightBF16 != nil:
			s.rows = b.weightBF16.ScreenI8(threads)
		default:
			s.rows = gemm.QuantizeRowsI8(n, k, b.rowReader(k), threads)
		}
	})
	return s.rows
}

// rowReader returns the gemm.Rows of the weight [N, k] this buffer holds,
// in whichever layout it is.
func (b *Buffer) rowReader(k int) gemm.Rows {
	switch {
	case b.weight != nil:
		return b.weight.Rows
	case b.weightBF16 != nil:
		return b.weightBF16.RowsF32
	}
	switch f := b.flat.(type) {
	case []float32:
		return func(j0, j1 int, dst []float32) { copy(dst, f[j0*k:j1*k]) }
	default:
		w := bits16(b.flat)
		return func(j0, j1 int, dst []float32) { widenInto(dst, w[j0*k:j1*k]) }
	}
}
