package gocpu

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/backends"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// maskedSoftmax is attention's softmax as models/nn writes it: scaled
// scores, masked keys −∞, then max, exp, sum and quotient over the last
// axis (fused as MaskedSoftmax).
func maskedSoftmax(in []*Node) *Node {
	g := in[0].Graph()
	x := Where(GreaterThan(in[1], Scalar(g, f32, -1.2)), MulScalar(in[0], 0.125), Infinity(g, f32, -1))
	return plainSoftmax([]*Node{x})
}

// plainSoftmax is the chain alone (fused as Softmax).
func plainSoftmax(in []*Node) *Node {
	x := in[0]
	e := Exp(Sub(x, ReduceAndKeep(x, ReduceMax, -1)))
	return Div(e, ReduceAndKeep(e, ReduceSum, -1))
}

// TestSoftmaxFused: the fused softmax gives the separate ops' bits (rows
// long and short, masked keys, fully masked rows' NaN, rows in parallel
// and not), and it is what runs.
func TestSoftmaxFused(t *testing.T) {
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, fused := range []string{"MaskedSoftmax", "Softmax"} {
		for _, dims := range [][]int{{16, 2, 1, 7, 768}, {3, 5}, {4, 1}, {2, 3, 64}, {7, 3, 130}} {
			checkFused(t, b, fused, dims, rng)
		}
	}
}

func checkFused(t *testing.T, b backends.Backend, fused string, dims []int, rng *rand.Rand) {
	c := opCase{inputs: []shapes.Shape{s(dims...), s(dims...)}, fn: maskedSoftmax}
	if fused == "Softmax" {
		c.fn = func(in []*Node) *Node { return Add(plainSoftmax(in[:1]), MulScalar(in[1], 0)) }
	}
	flats := make([][]float32, 2)
	for i := range flats {
		flats[i] = make([]float32, c.inputs[i].Size())
		for j := range flats[i] {
			flats[i][j] = float32(rng.NormFloat64() * 4)
		}
	}
	for j := range dims[len(dims)-1] { // the first row fully masked
		flats[1][j] = -5
	}
	got := sameBitsFused(t, b, c, flats, fused)
	if fused == "MaskedSoftmax" && !math.IsNaN(float64(got[0])) {
		t.Errorf("%v: fully masked row gives %v, want NaN as the separate ops", dims, got[0])
	}
}

// sameBitsFused runs c with fusion off and on, fails unless the outputs
// have the same bits and a node named fused ran, and returns the output.
func sameBitsFused(t *testing.T, b backends.Backend, c opCase, flats [][]float32, fused string) []float32 {
	t.Helper()
	fuseOps = false
	want := run(t, b, c, flats)
	fuseOps = true
	SetOpStats(true)
	got := run(t, b, c, flats)
	SetOpStats(false)
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s %v: value %d: fused %v, separate ops %v", fused, c.inputs[0], i, got[i], want[i])
		}
	}
	ran := false
	for _, st := range OpStats() {
		ran = ran || strings.HasPrefix(st.Key, fused+" ")
	}
	if !ran {
		t.Errorf("%v: no fused %s node ran", c.inputs[0], fused)
	}
	return got
}

// TestSwiGLUFused: silu(g)·u as models/nn.SwiGLU writes it (and with the
// operands swapped) gives the separate ops' bits, in one fused node, on
// sizes with and without a vector tail, and across the parallel split.
func TestSwiGLUFused(t *testing.T) {
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	fns := []func(in []*Node) *Node{
		func(in []*Node) *Node { return Mul(Mul(in[0], Logistic(in[0])), in[1]) },
		func(in []*Node) *Node { return Mul(in[1], Mul(Logistic(in[0]), in[0])) },
	}
	for _, dims := range [][]int{{3, 7}, {1, 1024}, {2, 1500}, {9, 4864}} {
		for _, fn := range fns {
			c := opCase{inputs: []shapes.Shape{s(dims...), s(dims...)}, fn: fn}
			flats := [][]float32{make([]float32, c.inputs[0].Size()), make([]float32, c.inputs[0].Size())}
			for _, f := range flats {
				for j := range f {
					f[j] = float32(rng.NormFloat64() * 6)
				}
			}
			sameBitsFused(t, b, c, flats, "SwiGLU")
		}
	}
}

// rope is models/nn.ApplyRoPE's rotation of in[0] by tables in[1] (cos)
// and in[2] (sin), broadcast over the axes where they are 1.
func rope(in []*Node) *Node {
	x := in[0]
	r, d := x.Rank(), x.Shape().Dim(-1)
	axes := make([]SliceAxisSpec, r)
	for i := range axes {
		axes[i] = AxisRange()
	}
	lo, hi := append([]SliceAxisSpec(nil), axes...), append([]SliceAxisSpec(nil), axes...)
	lo[r-1], hi[r-1] = AxisRange(0, d/2), AxisRange(d/2, d)
	rotated := Concatenate([]*Node{Neg(Slice(x, hi...)), Slice(x, lo...)}, -1)
	return Add(Mul(x, in[1]), Mul(rotated, in[2]))
}

// TestRoPEFused: the rotation as models/nn.ApplyRoPE writes it (and with
// the products' and the sum's operands swapped) gives the separate ops'
// bits in one fused node, with tables broadcast over heads, over nothing,
// and over rows and heads; a rotation of other halves is left alone.
func TestRoPEFused(t *testing.T) {
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	swapped := func(in []*Node) *Node {
		x, d := in[0], in[0].Shape().Dim(-1)
		rotated := Concatenate([]*Node{Neg(SliceAxis(x, -1, AxisRange(d/2, d))), SliceAxis(x, -1, AxisRange(0, d/2))}, -1)
		return Add(Mul(in[2], rotated), Mul(in[1], x))
	}
	cases := [][2][]int{
		{{2, 5, 3, 8}, {2, 5, 1, 8}}, {{1, 3, 2, 64}, {1, 3, 2, 64}}, {{4, 2, 6}, {1, 1, 6}}, {{3, 40, 14, 64}, {3, 40, 1, 64}},
	}
	for _, c := range cases {
		for _, fn := range []func([]*Node) *Node{rope, swapped} {
			oc := opCase{inputs: []shapes.Shape{s(c[0]...), s(c[1]...), s(c[1]...)}, fn: fn}
			flats := make([][]float32, 3)
			for i := range flats {
				flats[i] = make([]float32, oc.inputs[i].Size())
				for j := range flats[i] {
					flats[i][j] = float32(rng.NormFloat64() * 3)
				}
			}
			sameBitsFused(t, b, oc, flats, "RoPE")
		}
	}
	// Halves swapped the other way (Neg on the first half) is not RoPE.
	other := func(in []*Node) *Node {
		x, d := in[0], in[0].Shape().Dim(-1)
		rotated := Concatenate([]*Node{SliceAxis(x, -1, AxisRange(d/2, d)), Neg(SliceAxis(x, -1, AxisRange(0, d/2)))}, -1)
		return Add(Mul(x, in[1]), Mul(rotated, in[2]))
	}
	oc := opCase{inputs: []shapes.Shape{s(2, 4), s(2, 4), s(2, 4)}, fn: other}
	SetOpStats(true)
	run(t, b, oc, [][]float32{make([]float32, 8), make([]float32, 8), make([]float32, 8)})
	SetOpStats(false)
	for _, st := range OpStats() {
		if strings.HasPrefix(st.Key, "RoPE ") {
			t.Errorf("a rotation with the negation on the first half was fused as RoPE")
		}
	}
}

// roundF16Graph is models/nn.RoundToFloat16's chain (fused as RoundF16)
// with float16's overflow edge 65520 as limit.
func roundF16Graph(limit float64) func(in []*Node) *Node {
	return func(in []*Node) *Node { return roundF16Nodes(in[0], limit) }
}

func roundF16Nodes(x *Node, limit float64) *Node {
	g := x.Graph()
	f := func(v float64) *Node { return Scalar(g, f32, v) }
	a := Abs(x)
	e := Max(Floor(Div(Log(a), f(math.Ln2))), f(-14))
	p := Pow(f(2), e)
	e = Where(LessThan(a, p), Sub(e, f(1)), e)
	e = Where(GreaterOrEqual(a, Mul(p, f(2))), Add(e, f(1)), e)
	c := Mul(f(1.5), Pow(f(2), Add(Max(e, f(-14)), f(13))))
	r := Sub(Add(x, c), c)
	inf := Where(LessThan(x, f(0)), f(math.Inf(-1)), f(math.Inf(1)))
	return Where(GreaterOrEqual(a, f(limit)), inf, r)
}

// TestRoundF16Fused: the fused float16 rounding gives the chain's bits
// on magnitudes across float16's range and past it, float16 ties and
// their neighbours, subnormals, zeros, ±Inf and NaN, in one node; a chain
// with one constant changed is not fused.
func TestRoundF16Fused(t *testing.T) {
	b, err := New("")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	xs := []float32{0, float32(math.Copysign(0, -1)), 65504, 65519.99, 65520, -65520, 1e9, -1e-30, 6.1035156e-05, 6.1035152e-05,
		5.9604645e-08, 2.98e-08, 1, 1.0004883, 1.0009766, 2047.5, 2048.5, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	for len(xs) < 5000 {
		xs = append(xs, float32(math.Ldexp(rng.Float64()*2-1, rng.IntN(60)-36)))
	}
	for e := -30; e <= 17; e++ { // ties of float16's grid around each binade's ends
		q := math.Ldexp(1, max(e, -14)-10)
		for _, m := range []float64{1, 1.5, 2 - 0.5/1024} {
			v := math.Ldexp(m, e) + q/2
			xs = append(xs, float32(v), -float32(v), math.Nextafter32(float32(v), 0))
		}
	}
	c := opCase{inputs: []shapes.Shape{s(len(xs))}, fn: roundF16Graph(65520)}
	sameBitsFused(t, b, c, [][]float32{xs}, "RoundF16")

	SetOpStats(true)
	defer SetOpStats(false)
	run(t, b, opCase{inputs: c.inputs, fn: roundF16Graph(65519)}, [][]float32{xs})
	for _, st := range OpStats() {
		if strings.HasPrefix(st.Key, "RoundF16 ") {
			t.Errorf("a chain with 65519 for 65520 ran as %s", st.Key)
		}
	}
}
