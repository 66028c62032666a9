package nn

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/simplego"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/x448/float16"

	"github.com/goeval/goeval/internal/gocpu"
)

// int8Backends are the pure-Go backends the LLM.int8 graph runs on.
func int8Backends(t *testing.T) map[string]backends.Backend {
	t.Helper()
	g, err := gocpu.New("")
	if err != nil {
		t.Fatal(err)
	}
	s, err := simplego.New("ops_sequential")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Finalize(); s.Finalize() })
	return map[string]backends.Backend{"gocpu": g, "simplego": s}
}

// f16Cases are values around float16's roundings: random magnitudes over
// its whole range, exact ties between neighbours (to even), their float32
// neighbours, subnormals, the overflow edge 65520 and zeros.
func f16Cases() []float32 {
	r := rand.New(rand.NewPCG(1, 2))
	var xs []float32
	for range 4000 {
		xs = append(xs, float32(math.Ldexp(r.Float64()*2-1, r.IntN(44)-26)))
	}
	for range 2000 {
		a := float16.Frombits(uint16(r.IntN(0x7bff))).Float32()
		b := float16.Frombits(float16.Fromfloat32(a).Bits() + 1).Float32()
		mid := (a + b) / 2 // exact in float32
		xs = append(xs, mid, -mid, math.Nextafter32(mid, 0), math.Nextafter32(mid, 1e9), a)
	}
	return append(xs, 0, 65504, 65519.99, 65520, -65520, 1e9, 5.960464477539063e-08, 2.98e-08, 6.1035156e-05)
}

// TestRoundToFloat16 checks RoundToFloat16 against x448/float16's
// float32 → float16 conversion (to nearest, ties to even) on f16Cases;
// on gocpu it runs as one fused node (gocpu's fuse_f16.go matches this
// chain: a change here must change it there).
func TestRoundToFloat16(t *testing.T) {
	xs := f16Cases()
	for name, b := range int8Backends(t) {
		if name == "gocpu" {
			gocpu.SetOpStats(true)
		}
		got := MustExecOnce(b, RoundToFloat16, xs).Value().([]float32)
		if name == "gocpu" {
			fused := false
			for _, st := range gocpu.OpStats() {
				fused = fused || strings.HasPrefix(st.Key, "RoundF16 ")
			}
			gocpu.SetOpStats(false)
			if !fused {
				t.Errorf("gocpu: RoundToFloat16 did not run as the fused RoundF16 node")
			}
		}
		bad := 0
		for i, x := range xs {
			want := float16.Fromfloat32(x).Float32()
			if math.Float32bits(got[i]) != math.Float32bits(want) && !(got[i] == 0 && want == 0) {
				if bad++; bad <= 5 {
					t.Errorf("%s: RoundToFloat16(%g) = %g, want %g", name, x, got[i], want)
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d values rounded differently", name, bad, len(xs))
		}
	}
}

// int8Ref is LLM.int8's x·Wᵀ+bias for one sequence x [rows, in] written
// as bitsandbytes' kernels compute it, loop by loop (the reference the
// graph is checked against): float16 rounding, outliers, row absmax,
// codes, int32 sums, int8_mm_dequant's order, the bias, then the outlier
// columns against the dequantized weight. Only the first valid rows add
// outlier columns.
func int8Ref(x []float32, rows, valid, in int, cb []int8, scb, bias []float32, threshold float32) []float32 {
	out := len(scb)
	x16 := make([]float32, len(x))
	cols := make([]bool, in)
	for i, v := range x {
		x16[i] = float16.Fromfloat32(v).Float32()
		if threshold > 0 && float32(math.Abs(float64(x16[i]))) >= threshold {
			x16[i] = 0
			cols[i%in] = cols[i%in] || i/in < valid
		}
	}
	y := make([]float32, rows*out)
	for r := range rows {
		row := x16[r*in : (r+1)*in]
		var absmax float32
		for _, v := range row {
			absmax = max(absmax, float32(math.Abs(float64(v))))
		}
		scale := 1 / absmax * 127 // torch's 127.0/absmax
		codes := make([]int32, in)
		for k, v := range row {
			if absmax > 0 && !cols[k] {
				codes[k] = int32(math.RoundToEven(float64(v * scale)))
			}
		}
		for o := range out {
			var acc int32
			for k := range in {
				acc += codes[k] * int32(cb[o*in+k])
			}
			v := float32(acc) * (absmax * scb[o]) * int8MMScale
			if bias != nil {
				v += bias[o]
			}
			var sub float32
			for k := range in {
				if cols[k] {
					sub += x[r*in+k] * (float32(cb[o*in+k]) * scb[o] * int8Recip)
				}
			}
			y[r*out+o] = v + sub
		}
	}
	return y
}

// TestInt8LinearMatchesReference runs Int8Linear on random activations
// with a few large columns against int8Ref, with thresholds 0 and 6, one
// row and several, a contraction longer than int8ExactK (chunked int32
// sums) and padding rows whose outliers must not count: within 2e-6
// relative to the output's scale.
func TestInt8LinearMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		rows, valid, in, out int
		threshold            float32
	}{{5, 5, 64, 24, 0}, {5, 5, 64, 24, 6}, {1, 1, 64, 24, 6}, {7, 7, 2080, 16, 6}, {3, 3, 2080, 16, 0}, {6, 3, 64, 24, 6}} {
		x := make([]float32, tc.rows*tc.in)
		for i := range x {
			x[i] = float32(r.NormFloat64())
			if i%tc.in%13 == 5 {
				x[i] *= 5
			}
			if i/tc.in >= tc.valid && i%tc.in%7 == 3 { // padding with outliers of its own
				x[i] = 9
			}
		}
		cb := make([]int8, tc.out*tc.in)
		cbf := make([]float32, len(cb))
		for i := range cb {
			cb[i] = int8(r.IntN(255) - 127)
			cbf[i] = float32(cb[i])
		}
		scb, bias := make([]float32, tc.out), make([]float32, tc.out)
		for o := range scb {
			scb[o], bias[o] = float32(r.Float64()), float32(r.NormFloat64())
		}
		want := int8Ref(x, tc.rows, tc.valid, tc.in, cb, scb, bias, tc.threshold)
		x3 := [][][]float32{make([][]float32, tc.rows)}
		valid := [][]bool{make([]bool, tc.rows)}
		for i := range tc.rows {
			x3[0][i] = x[i*tc.in : (i+1)*tc.in]
			valid[0][i] = i < tc.valid
		}
		for name, b := range int8Backends(t) {
			got := MustExecOnce(b, func(x, cb, scb, bias, valid *Node) *Node {
				return Int8Linear(x, Reshape(cb, tc.out, tc.in), scb, bias, float64(tc.threshold), valid)
			}, x3, cbf, scb, bias, valid).Value().([][][]float32)[0]
			d, scale := 0.0, 0.0
			for i, w := range want {
				d = max(d, math.Abs(float64(got[i/tc.out][i%tc.out]-w)))
				scale = max(scale, math.Abs(float64(w)))
			}
			if d > 2e-6*scale {
				t.Errorf("%s %+v: max |Δ| %g (scale %g)", name, tc, d, scale)
			}
		}
	}
}
