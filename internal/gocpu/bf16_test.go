package gocpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/goeval/goeval/internal/gemm"
)

// randBF16Weight is a bf16 weight of n values and its f32 widening.
func randBF16Weight(rng *rand.Rand, n int) ([]bfloat16.BFloat16, []float32) {
	w, wide := make([]bfloat16.BFloat16, n), make([]float32, n)
	for i, v := range randFlat(rng, n) {
		w[i] = bfloat16.BFloat16(math.Float32bits(v) >> 16)
		wide[i] = w[i].Float32()
	}
	return w, wide
}

// bf16Buffer puts a copy of the bf16 weight w [n, k] in a buffer of b.
func bf16Buffer(t *testing.T, b *Backend, w []bfloat16.BFloat16, n, k int) (*Buffer, *tensors.Tensor) {
	t.Helper()
	buf, err := b.BufferFromFlatData(0, slices.Clone(w), shapes.Make(dtypes.BFloat16, n, k))
	if err != nil {
		t.Fatal(err)
	}
	x, err := tensors.FromBuffer(b, buf)
	if err != nil {
		t.Fatal(err)
	}
	return buf.(*Buffer), x
}

// tiedGraph is a decoder's use of a tied embedding: rows gathered from w
// [n, k] by ids, and hidden states x [m, k] multiplied by wᵀ (the LM
// head), w converted to f32 where used (a no-op for an f32 w).
func tiedGraph(x, w, ids *Node) (*Node, *Node) {
	wf := func() *Node { return ConvertDType(w, dtypes.Float32) }
	return Gather(wf(), ids), Einsum("mk,nk->mn", x, wf())
}

// TestBF16WeightMatchesF32: a bf16 weight converted where used, gathered
// and multiplied (tied embedding and LM head), gives the bits of the f32
// graph on the widened weight for any number of rows and threads: packed
// in place (shapes whose rows are a multiple of the panel width and K
// even) or read stored (other shapes), fused or not; and the gather never
// stops the weight from being packed.
func TestBF16WeightMatchesF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, threads := range []int{1, 2} {
		b, err := New(fmt.Sprintf("threads=%d", threads))
		if err != nil {
			t.Fatal(err)
		}
		exec, err := NewExec(b, tiedGraph)
		if err != nil {
			t.Fatal(err)
		}
		exec.SetMaxCache(-1)
		for _, s := range []struct {
			n, k   int
			packed bool
		}{{64, 68, true}, {320, 896, true}, {37, 40, false}, {64, 33, false}, {300, 130, false}} {
			w, wide := randBF16Weight(rng, s.n*s.k)
			buf, wt := bf16Buffer(t, b, w, s.n, s.k)
			wf := tensors.FromFlatDataAndDimensions(wide, s.n, s.k)
			for _, m := range []int{1, 3, 16, 70} {
				name := fmt.Sprintf("threads%d/n%d_k%d/m%d", threads, s.n, s.k, m)
				x := tensors.FromFlatDataAndDimensions(randFlat(rng, m*s.k), m, s.k)
				ids := tensors.FromFlatDataAndDimensions([]int32{0, int32(s.n - 1), 5, 5, int32(s.n / 2), 99999}, 2, 3, 1)
				got, err := exec.Exec(x, wt, ids)
				if err != nil {
					t.Fatal(err)
				}
				want, err := exec.Exec(x, wf, ids)
				if err != nil {
					t.Fatal(err)
				}
				for i, what := range []string{"gather", "product"} {
					if g, w := tensors.MustCopyFlatData[float32](got[i]), tensors.MustCopyFlatData[float32](want[i]); !slices.Equal(g, w) {
						t.Fatalf("%s: bf16 %s differs from f32 on the widened weight", name, what)
					}
				}
				if packed := PackedWeights(buf) == 1; packed != s.packed {
					t.Fatalf("%s: packed in place %v, want %v", name, packed, s.packed)
				}
			}
			stored := make([]bfloat16.BFloat16, s.n*s.k)
			if err := b.BufferToFlatData(buf, stored); err != nil || !slices.Equal(stored, w) {
				t.Fatalf("BufferToFlatData of a bf16 weight: err %v, equal %v", err, slices.Equal(stored, w))
			}
		}
	}
}

// TestBF16FusedNodes: the conversion of a bf16 weight is fused into its
// product and gather (the ConvertDType does not run: no f32 copy of the
// weight), and with fusion off the graph gives the same bits; a graph
// that reads the converted weight otherwise unpacks it for good.
func TestBF16FusedNodes(t *testing.T) {
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	const n, k = 96, 64
	rng := rand.New(rand.NewPCG(13, 14))
	w, wide := randBF16Weight(rng, n*k)
	x := tensors.FromFlatDataAndDimensions(randFlat(rng, 5*k), 5, k)
	ids := tensors.FromFlatDataAndDimensions([]int32{3, 1}, 2, 1)
	// run executes the tied graph and returns its outputs and the ops that
	// ran (their op-statistics names).
	run := func() ([]*tensors.Tensor, []string) {
		t.Helper()
		_, wt := bf16Buffer(t, b, w, n, k)
		e, err := NewExec(b, tiedGraph)
		if err != nil {
			t.Fatal(err)
		}
		SetOpStats(true)
		defer SetOpStats(false)
		out, err := e.Exec(x, wt, ids)
		if err != nil {
			t.Fatal(err)
		}
		var ops []string
		for _, s := range OpStats() {
			ops = append(ops, strings.Fields(s.Key)[0])
		}
		return out, ops
	}
	fused, ops := run()
	if slices.Contains(ops, "ConvertDType") || !slices.Contains(ops, "DotBF16") || !slices.Contains(ops, "GatherBF16") {
		t.Errorf("fused graph ran %v: want DotBF16 and GatherBF16, no ConvertDType", ops)
	}
	fuseOps = false
	unfused, ops := run()
	fuseOps = true
	if !slices.Contains(ops, "ConvertDType") {
		t.Errorf("unfused graph ran %v: want ConvertDType", ops)
	}
	for i := range fused {
		if !slices.Equal(tensors.MustCopyFlatData[float32](fused[i]), tensors.MustCopyFlatData[float32](unfused[i])) {
			t.Fatalf("output %d: fused and unfused graphs differ", i)
		}
	}
	want := tensors.MustCopyFlatData[float32](fused[0])
	if !slices.Equal(want[:k], wide[3*k:4*k]) || !slices.Equal(want[k:], wide[k:2*k]) {
		t.Fatal("gathered rows are not the widened weight rows")
	}

	buf, wt := bf16Buffer(t, b, w, n, k)
	product, err := NewExec(b, func(x, w *Node) *Node { return Einsum("mk,nk->mn", x, ConvertDType(w, dtypes.Float32)) })
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewExec(b, func(x, w *Node) (*Node, *Node) {
		wf := ConvertDType(w, dtypes.Float32)
		return Einsum("mk,nk->mn", x, wf), Add(wf, wf)
	})
	if err != nil {
		t.Fatal(err)
	}
	p1, err := product.Exec(x, wt)
	if err != nil || PackedWeights(buf) != 1 {
		t.Fatalf("product: err %v, packed %d", err, PackedWeights(buf))
	}
	p2, err := other.Exec(x, wt)
	if err != nil || PackedWeights(buf) != 0 {
		t.Fatalf("a graph reading the converted weight: err %v, still packed %v", err, PackedWeights(buf) != 0)
	}
	if !slices.Equal(tensors.MustCopyFlatData[float32](p1[0]), tensors.MustCopyFlatData[float32](p2[0])) {
		t.Fatal("the product differs once the weight is unpacked")
	}
	sum := tensors.MustCopyFlatData[float32](p2[1])
	for i, v := range wide {
		if sum[i] != v+v {
			t.Fatalf("Add of the converted weight: element %d = %g, want %g", i, sum[i], v+v)
		}
	}
}

// TestBF16DotOption: "bf16=dot" is accepted only where VDPBF16PS is, and
// then its products stay within bf16's rounding of the activations of the
// widening kernels' (the dot path's own exactness is gemm's test).
func TestBF16DotOption(t *testing.T) {
	if _, err := New("bf16=nope"); err == nil {
		t.Error("bf16=nope accepted")
	}
	b, err := New("bf16=dot")
	if !gemm.HasBF16Dot() {
		if err == nil {
			t.Error("bf16=dot accepted without AVX512_BF16")
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := New("")
	const n, k, m = 64, 256, 5
	rng := rand.New(rand.NewPCG(17, 18))
	w, _ := randBF16Weight(rng, n*k)
	xs := randFlat(rng, m*k)
	var outs [2][]float32
	for i, be := range []*Backend{ref, b} {
		e, err := NewExec(be, func(x, w *Node) *Node { return Einsum("mk,nk->mn", x, ConvertDType(w, dtypes.Float32)) })
		if err != nil {
			t.Fatal(err)
		}
		_, wt := bf16Buffer(t, be, w, n, k)
		out, err := e.Exec(tensors.FromFlatDataAndDimensions(xs, m, k), wt)
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = tensors.MustCopyFlatData[float32](out[0])
	}
	differ := false
	for i := range outs[0] {
		d := math.Abs(float64(outs[0][i] - outs[1][i]))
		differ = differ || d > 0
		if d > 0.1*math.Max(1, math.Abs(float64(outs[0][i]))) {
			t.Fatalf("element %d: dot %g, widen %g", i, outs[1][i], outs[0][i])
		}
	}
	if !differ {
		t.Error("bf16=dot gave the widening kernels' bits: the option did not take effect")
	}
}
