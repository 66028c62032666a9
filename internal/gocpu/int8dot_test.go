package gocpu

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// int8DotGraph is LLM.int8's integer product (models/nn.Int8Input with
// Integer): codes [S, R, K] and a weight [N, K] converted to int32,
// multiplied, the sums converted back to float32.
func int8DotGraph(in []*Node) *Node {
	return ConvertDType(DotGeneral(ConvertDType(in[0], dtypes.Int32), []int{2}, nil, ConvertDType(in[1], dtypes.Int32), []int{1}, nil), dtypes.Float32)
}

// TestInt8DotFused: the fused integer product (DotInt8F32: DotInt8 with
// the sums converted to float32 in it) gives the int32
// DotGeneral's sums, bit for bit, for int8 codes at both ends of the range
// and for values that are no codes (a fraction, 300: converted by
// truncation, as the separate ops do) — and runs where the CPU has
// AVX512_VNNI.
func TestInt8DotFused(t *testing.T) {
	if !HasInt8Dot() {
		t.Skip("no AVX512_VNNI: the integer product runs unfused (the int32 loop the unfused path is)")
	}
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finalize()
	rng := rand.New(rand.NewPCG(3, 9))
	for _, sh := range [][4]int{{1, 1, 16, 64}, {2, 9, 33, 100}, {1, 40, 70, 2048}} {
		sq, r, n, k := sh[0], sh[1], sh[2], sh[3]
		c := opCase{inputs: []shapes.Shape{s(sq, r, k), s(n, k)}, fn: int8DotGraph}
		flats := [][]float32{make([]float32, sq*r*k), make([]float32, n*k)}
		for _, f := range flats {
			for i := range f {
				f[i] = float32(rng.IntN(256) - 128)
			}
			f[0], f[len(f)-1] = -128, 127
		}
		sameBitsFused(t, b, c, flats, "DotInt8F32")
		flats[0][1], flats[1][2] = 2.5, 300 // no codes: the int32 product as written
		sameBitsFused(t, b, c, flats, "DotInt8F32")
	}
}

// TestInt8CopyFollowsBufferData: once a caller is handed a weight's
// storage (BufferData) and changes it, the next integer product sees the
// new values, not the int8 copy made at the first product.
func TestInt8CopyFollowsBufferData(t *testing.T) {
	if !HasInt8Dot() {
		t.Skip("no AVX512_VNNI: no int8 copy is made")
	}
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finalize()
	const m, n, k = 3, 16, 64
	rng := rand.New(rand.NewPCG(4, 1))
	codes := func(size int) []float32 {
		f := make([]float32, size)
		for i := range f {
			f[i] = float32(rng.IntN(256) - 128)
		}
		return f
	}
	x, w := codes(m*k), codes(n*k)
	e, err := NewExec(b, func(x, w *Node) *Node { return int8DotGraph([]*Node{x, w}) })
	if err != nil {
		t.Fatal(err)
	}
	buf, wt := weightBuffer(t, b, w, n, k)
	product := func() []float32 {
		out, err := e.Exec(tensors.FromFlatDataAndDimensions(slices.Clone(x), 1, m, k), wt)
		if err != nil {
			t.Fatal(err)
		}
		return tensors.MustCopyFlatData[float32](out[0])
	}
	want := func() []float32 {
		out := make([]float32, m*n)
		for r := range m {
			for j := range n {
				var s int32
				for kk := range k {
					s += int32(x[r*k+kk]) * int32(w[j*k+kk])
				}
				out[r*n+j] = float32(s)
			}
		}
		return out
	}
	if got := product(); !slices.Equal(got, want()) {
		t.Fatalf("first product differs from the integer sums")
	}
	flat, err := b.BufferData(buf)
	if err != nil {
		t.Fatal(err)
	}
	stored := flat.([]float32)
	for i := range stored {
		stored[i] = -stored[i] / 2
		w[i] = stored[i]
	}
	if got := product(); !slices.Equal(got, want()) {
		t.Errorf("after the weight's storage changed, the product still used the old int8 copy")
	}
}
