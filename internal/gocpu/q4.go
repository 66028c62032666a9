package gocpu

import (
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/pkg/errors"

	"github.com/goeval/goeval/internal/gemm"
)

// Packed 4-bit weights. A 4-bit checkpoint's linear weight [N, K] can be
// held as its codes (gemm.PackedQ4: an eighth of float32's bytes) in a
// buffer of the graph's shape, float32 [N, K]: the graph stays the dense
// one, and the products that read the weight as their right-hand side
// [N, K] (the ones a weight packed in place serves, weights.go) read the
// codes through gemm.MatMulQ4, whose row results do not depend on the
// rows computed with them: decode's few rows and prefill's many alike
// where the CPU has 4-bit kernels (gemm.HasQ4Kernel); without them, more
// than q4Rows rows dequantize a few weight rows at a time into packed
// panels (gemm.PackQ4Into) and run the f32 kernels on them, which gives
// the same bits as MatMulQ4's portable path (the chains of the product
// on the dequantized weight). Anything else that reads the buffer (BufferData, an execution
// that uses it otherwise) gets it dequantized once into float32 storage,
// which replaces the codes for good; BufferToFlatData and
// BufferCopyToDevice copy it out dequantized.

// q4Rows is the most rows a product reads a packed 4-bit weight with
// gemm.MatMulQ4 where the CPU has no 4-bit kernels; more rows dequantize
// tiles.
const q4Rows = 8

// BufferFromPackedQ4 returns a float32 [q.N, q.K] buffer (a Hugging Face
// linear weight [out, in]) that holds q as it is (not copied: q must not
// change afterwards).
func (b *Backend) BufferFromPackedQ4(q *gemm.PackedQ4) (backends.Buffer, error) {
	if b.finalized {
		return nil, errors.New("gocpu: backend is finalized")
	}
	if err := q.Validate(); err != nil {
		return nil, errors.Wrap(err, "gocpu: BufferFromPackedQ4")
	}
	return &Buffer{shape: shapes.Make(dtypes.Float32, q.N, q.K), q4: q}, nil
}

// PackedQ4Weights counts the buffers among bufs that hold a packed 4-bit
// weight (for tests and diagnostics).
func PackedQ4Weights(bufs ...any) int {
	layoutMu.RLock()
	defer layoutMu.RUnlock()
	n := 0
	for _, x := range bufs {
		if buf, ok := x.(*Buffer); ok && buf.q4 != nil {
			n++
		}
	}
	return n
}

// dequantizeQ4 replaces a packed 4-bit weight by its float32 values; the
// caller holds layoutMu's write lock.
func (buf *Buffer) dequantizeQ4() {
	flat := make([]float32, buf.q4.N*buf.q4.K)
	buf.q4.Dequantize(flat)
	buf.flat, buf.q4 = flat, nil
}

// runQ4 sets c [M, N] = a [M, K] · wᵀ for the packed 4-bit weight w,
// each row's result independent of M; with "bf16=dot", a weight held in
// bfloat16 runs on gemm.MatMulQ4Dot.
func (p *dotPlan) runQ4(x *runCtx, c, a []float32, w *gemm.PackedQ4) {
	if x.b.bf16Dot && gemm.HasQ4Dot(w) {
		gemm.MatMulQ4Dot(c, p.n, a, p.k, p.m, w, x.threads())
		return
	}
	if p.m <= q4Rows || gemm.HasQ4Kernel(w) {
		gemm.MatMulQ4(c, p.n, a, p.k, p.m, w, x.threads())
		return
	}
	rows := q4TileRows(w.K)
	tiles := (w.N + rows - 1) / rows
	parallelItems(x, tiles, func(i int) {
		n0, n1 := i*rows, min((i+1)*rows, w.N)
		scratch := x.b.pool.get(dtypes.Float32, gemm.PackedSize(w.K, rows), false).([]float32)
		pb := gemm.PackQ4Into(scratch, w, n0, n1)
		gemm.MatMul(c[n0:], p.n, a, p.k, p.m, pb, 1)
		x.b.pool.put(dtypes.Float32, scratch)
	})
}

// q4TileRows is how many weight rows a many-row product dequantizes at
// once: about 1 MiB of float32, a multiple of 64.
func q4TileRows(k int) int { return max(64, (1<<18)/k/64*64) }
