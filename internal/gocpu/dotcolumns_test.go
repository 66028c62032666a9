package gocpu

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// outlierProduct is models/nn's outlier-columns product: x [S, R, K] kept
// where cols [S, 1, K] (> 0) is set, times the bf16 weight w [N, K].
func outlierProduct(in []*Node) *Node {
	x, cols, w := in[0], in[1], in[2]
	keep := BroadcastToDims(GreaterThan(cols, ZerosLike(cols)), x.Shape().Dimensions...)
	return DotGeneral(Where(keep, x, ZerosLike(x)), []int{2}, nil, ConvertDType(w, dtypes.Float32), []int{1}, nil)
}

// TestDotColumnsFused: the outlier columns' product multiplied over its
// columns alone (DotColumns) gives the whole product's bits — sequences
// with several columns, one, none, infinite activations and −0 among
// them, a weight of int8 codes with zeros — for row counts that take the
// direct and the packed kernels, and the weight read in place and packed.
func TestDotColumnsFused(t *testing.T) {
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finalize()
	rng := rand.New(rand.NewPCG(8, 1))
	for _, sh := range [][4]int{{2, 1, 40, 64}, {3, 9, 33, 300}, {2, 70, 130, 1024}} {
		s, r, n, k := sh[0], sh[1], sh[2], sh[3]
		x, cols := make([]float32, s*r*k), make([]float32, s*k)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 3)
		}
		x[1], x[2] = float32(math.Inf(1)), float32(math.Copysign(0, -1))
		cols[1], cols[2], cols[k-1] = 1, 1, 1 // sequence 0: three columns
		if s > 1 {
			cols[k+5] = 1 // sequence 1: one; the others none
		}
		w := make([]bfloat16.BFloat16, n*k)
		for i := range w {
			w[i] = bfloat16.FromFloat32(float32(rng.IntN(255) - 127))
		}
		args := []any{tensors.FromFlatDataAndDimensions(x, s, r, k), tensors.FromFlatDataAndDimensions(cols, s, 1, k),
			tensors.FromFlatDataAndDimensions(w, n, k)}
		eval := func() []float32 {
			exec, err := NewExecAny(b, outlierProduct)
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.Exec(args...)
			if err != nil {
				t.Fatal(err)
			}
			v, err := tensors.CopyFlatData[float32](out[0])
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		fuseOps = false
		want := eval()
		fuseOps = true
		SetOpStats(true)
		got, again := eval(), eval() // the second run may read the weight packed
		ran := false
		for _, st := range OpStats() {
			ran = ran || strings.HasPrefix(st.Key, "DotColumns ")
		}
		SetOpStats(false)
		if !ran {
			t.Fatalf("%v: no DotColumns node ran", sh)
		}
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) || math.Float32bits(again[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%v: value %d: fused %v then %v, whole product %v", sh, i, got[i], again[i], want[i])
			}
		}
	}
}
