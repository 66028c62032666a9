package gocpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/goeval/goeval/internal/gemm"
)

// randPackedQ4 is a random [n, k] 4-bit weight in blocks of 64 with the
// NF4-like table (i − 7)/8, and offsets if off.
func randPackedQ4(rng *rand.Rand, n, k int, off bool) *gemm.PackedQ4 {
	q := &gemm.PackedQ4{K: k, N: n, Block: 64, Codes: make([]byte, n*k/2), Scale: make([]float32, n*k/64)}
	for i := range q.Table {
		q.Table[i] = float32(i-7) / 8
	}
	for i := range q.Codes {
		q.Codes[i] = byte(rng.IntN(256))
	}
	for i := range q.Scale {
		q.Scale[i] = rng.Float32()
	}
	if off {
		q.Offset = randFlat(rng, len(q.Scale))
	}
	return q
}

// TestPackedQ4Weight: a packed 4-bit weight that a graph only multiplies
// stays packed, and its products have gemm.MatMulQ4's bits for any number
// of rows (so a row's result does not depend on its batch): where the CPU
// has 4-bit kernels, within f32 rounding of the same graph on the
// dequantized float32 weight, else (many rows on dequantized tiles)
// exactly its bits; BufferToFlatData reads it dequantized and leaves it
// packed; a graph that reads it otherwise dequantizes it for good, as
// BufferData does.
func TestPackedQ4Weight(t *testing.T) {
	b, err := New("threads=2")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(40, 2))
	product, other := weightExecs(t, b)
	for _, sh := range []struct {
		n, k int
		off  bool
	}{{96, 128, false}, {2112, 256, true}} { // the second in three tiles (q4TileRows)
		q := randPackedQ4(rng, sh.n, sh.k, sh.off)
		deq := make([]float32, sh.n*sh.k)
		q.Dequantize(deq)
		name := fmt.Sprintf("%dx%d_off%v", sh.n, sh.k, sh.off)
		buf, w := q4Buffer(t, b, q)
		_, ref := weightBuffer(t, b, deq, sh.n, sh.k)
		for _, m := range []int{70, 9, 1, 5, 8} {
			rows := randFlat(rng, m*sh.k)
			want := execRows(t, product, rows, sh.k, ref)
			got := execRows(t, product, rows, sh.k, w)
			if PackedQ4Weights(buf) != 1 {
				t.Fatalf("%s m%d: the weight only multiplied was dequantized", name, m)
			}
			direct := make([]float32, m*sh.n)
			gemm.MatMulQ4(direct, sh.n, rows, sh.k, m, q, 1)
			if !slices.Equal(got, direct) {
				t.Errorf("%s m%d: products differ from gemm.MatMulQ4's", name, m)
			}
			if !gemm.HasQ4Kernel(q) && !slices.Equal(got, want) {
				t.Errorf("%s m%d: products differ from the dequantized weight's (no 4-bit kernel here)", name, m)
			}
			if msg := closeQ4(got, want, rows, deq, m, sh.n, sh.k); msg != "" {
				t.Errorf("%s m%d: %s", name, m, msg)
			}
		}
		stored := make([]float32, sh.n*sh.k)
		if err := b.BufferToFlatData(buf, stored); err != nil || !slices.Equal(stored, deq) || PackedQ4Weights(buf) != 1 {
			t.Fatalf("%s: BufferToFlatData: err %v, dequantized values %v, still packed %v", name, err, slices.Equal(stored, deq), PackedQ4Weights(buf) == 1)
		}
		rows := randFlat(rng, 3*sh.k)
		want := execRows(t, other, rows, sh.k, ref)
		if got := execRows(t, other, rows, sh.k, w); !slices.Equal(got, want) || PackedQ4Weights(buf) != 0 {
			t.Fatalf("%s: a graph that adds the weight: equal %v, dequantized %v", name, slices.Equal(got, want), PackedQ4Weights(buf) == 0)
		}
		buf2, _ := q4Buffer(t, b, q)
		flat, err := b.BufferData(buf2)
		if err != nil || PackedQ4Weights(buf2) != 0 || !slices.Equal(flat.([]float32), deq) {
			t.Fatalf("%s: BufferData: err %v", name, err)
		}
	}
}

func q4Buffer(t *testing.T, b *Backend, q *gemm.PackedQ4) (*Buffer, *tensors.Tensor) {
	t.Helper()
	buf, err := b.BufferFromPackedQ4(q)
	if err != nil {
		t.Fatal(err)
	}
	x, err := tensors.FromBuffer(b, buf)
	if err != nil {
		t.Fatal(err)
	}
	return buf.(*Buffer), x
}

// execRows runs e on rows [m, k] and w, returning its first output.
func execRows(t *testing.T, e *Exec, rows []float32, k int, w *tensors.Tensor) []float32 {
	t.Helper()
	out, err := e.Exec(tensors.FromFlatDataAndDimensions(slices.Clone(rows), len(rows)/k, k), w)
	if err != nil {
		t.Fatal(err)
	}
	return tensors.MustCopyFlatData[float32](out[0])
}

// closeQ4 reports the first of got [m, n] farther from want than 1e-5 of
// the row's magnitude sum Σ|x·w|, or "".
func closeQ4(got, want, x, w []float32, m, n, k int) string {
	for r := range m {
		for j := range n {
			var mag float64
			for kk := range k {
				mag += math.Abs(float64(x[r*k+kk]) * float64(w[j*k+kk]))
			}
			if d := math.Abs(float64(got[r*n+j]) - float64(want[r*n+j])); !(d <= 1e-5*mag) {
				return fmt.Sprintf("C[%d,%d] = %g, want %g (magnitude %g)", r, j, got[r*n+j], want[r*n+j], mag)
			}
		}
	}
	return ""
}

// TestQ4DotOption: with "bf16=dot", a packed 4-bit weight held in
// bfloat16 multiplies through gemm.MatMulQ4Dot for any number of rows
// (decode's few and scoring's many alike), so a row's result is the same
// alone or among 69 others; a weight held in float32 keeps the f32 path.
func TestQ4DotOption(t *testing.T) {
	b, err := New("bf16=dot,threads=2")
	if !gemm.HasBF16Dot() {
		t.Skip("no AVX512_BF16 here: bf16=dot is refused (TestBF16DotOption)")
	}
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(41, 3))
	const n, k = 200, 256
	product, _ := weightExecs(t, b)
	q := randPackedQ4(rng, n, k, true)
	q.RoundBF16 = true
	if !gemm.HasQ4Dot(q) {
		t.Fatal("HasQ4Dot false for a bf16-held weight in blocks of 64 on a CPU with AVX512_BF16")
	}
	_, w := q4Buffer(t, b, q)
	rows := randFlat(rng, 70*k)
	for _, m := range []int{1, 5, 70} {
		got := execRows(t, product, rows[:m*k], k, w)
		want := make([]float32, m*n)
		gemm.MatMulQ4Dot(want, n, rows, k, m, q, 1)
		if !slices.Equal(got, want) {
			t.Fatalf("m%d: products differ from gemm.MatMulQ4Dot's", m)
		}
		if m == 70 {
			alone := make([]float32, n)
			gemm.MatMulQ4Dot(alone, n, rows[69*k:], k, 1, q, 1)
			if !slices.Equal(alone, got[69*n:]) {
				t.Fatal("row 69 differs alone and among 70 rows")
			}
		}
	}
	f := randPackedQ4(rng, n, k, false)
	_, wf := q4Buffer(t, b, f)
	got := execRows(t, product, rows[:k], k, wf)
	want := make([]float32, n)
	gemm.MatMulQ4(want, n, rows, k, 1, f, 1)
	if !slices.Equal(got, want) {
		t.Fatal("a float32-held weight did not keep gemm.MatMulQ4's products under bf16=dot")
	}
}
