package gocpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// TestFoldWrittenOut: fold's written-out max and min give the bits of
// folding maxNaN / minNaN in order, NaN, ±0 and ±Inf included.
func TestFoldWrittenOut(t *testing.T) {
	special := []float32{float32(math.NaN()), 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), 1, -1}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		run := make([]float32, 1+rng.IntN(9))
		for i := range run {
			if rng.IntN(2) == 0 {
				run[i] = special[rng.IntN(len(special))]
			} else {
				run[i] = float32(rng.NormFloat64())
			}
		}
		for _, c := range []struct {
			op   backends.OpType
			f    func(a, v float32) float32
			init float32
		}{
			{backends.OpTypeReduceMax, maxNaN[float32], lowest[float32]()},
			{backends.OpTypeReduceMin, minNaN[float32], highest[float32]()},
		} {
			want := fold(run, c.init, c.f, backends.OpTypeReduceProduct) // the generic loop through f
			got := fold(run, c.init, c.f, c.op)
			if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
				t.Fatalf("trial %d %s of %v: %v, folding through f gives %v", trial, c.op, run, got, want)
			}
		}
	}
}

// TestArgMaxRows: ArgMax / ArgMin over float32 rows (the fast path) pick
// the first NaN, else the first extreme, as the general loop does; and
// float32 → float64 conversion is exact.
func TestArgMaxRows(t *testing.T) {
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const rows, dim = 37, 11
	flat := make([]float32, rows*dim)
	for i := range flat {
		flat[i] = float32(rng.IntN(5)) // ties
		if rng.IntN(40) == 0 {
			flat[i] = float32(math.NaN())
		}
	}
	exec, err := NewExec(b, func(x *Node) (*Node, *Node, *Node) {
		return ArgMax(x, -1, dtypes.Int32), ArgMin(x, -1, dtypes.Int64), ConvertDType(x, dtypes.Float64)
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Exec(tensors.FromFlatDataAndDimensions(flat, rows, dim))
	if err != nil {
		t.Fatal(err)
	}
	gotMax, gotMin := tensors.MustCopyFlatData[int32](out[0]), tensors.MustCopyFlatData[int64](out[1])
	for r := range rows {
		row := flat[r*dim : (r+1)*dim]
		wantMax, wantMin := -1, -1
		for j, v := range row {
			switch {
			case v != v:
				if wantMax < 0 || row[wantMax] == row[wantMax] {
					wantMax = j
				}
				if wantMin < 0 || row[wantMin] == row[wantMin] {
					wantMin = j
				}
			default:
				if wantMax < 0 || (row[wantMax] == row[wantMax] && v > row[wantMax]) {
					wantMax = j
				}
				if wantMin < 0 || (row[wantMin] == row[wantMin] && v < row[wantMin]) {
					wantMin = j
				}
			}
		}
		if int(gotMax[r]) != wantMax || int(gotMin[r]) != wantMin {
			t.Fatalf("row %d %v: argmax %d argmin %d, want %d %d", r, row, gotMax[r], gotMin[r], wantMax, wantMin)
		}
	}
	for i, v := range tensors.MustCopyFlatData[float64](out[2]) {
		if math.Float64bits(v) != math.Float64bits(float64(flat[i])) {
			t.Fatalf("element %d: %v converted to %v", i, flat[i], v)
		}
	}
}
