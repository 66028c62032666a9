package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// screenKernels are the screening kernels to check here: each available
// kernel set's (with integer products, also its f32 ones), the Go loops
// (nil) and the integer screen in Go (intsGo).
func screenKernels() map[string]*i8Kernels {
	ks := map[string]*i8Kernels{"go": nil, "ints-go": {ints: intsGo}}
	for _, kn := range available() {
		if kn.i8 != nil {
			ks[kn.name] = kn.i8
			if kn.i8.ints != nil {
				f32 := *kn.i8
				f32.ints = nil
				ks[kn.name+"-f32"] = &f32
			}
		}
	}
	return ks
}

// fullArgMax is the reference: the full product by MatMul and the first
// index of its largest value.
func fullArgMax(w, a []float32, n, k int) int32 {
	out := make([]float32, n)
	MatMul(out, n, a, k, 1, PackB(w, k, n, k, true), 1)
	best := 0
	for j, v := range out {
		if v > out[best] {
			best = j
		}
	}
	return int32(best)
}

// screenCase is a head w [n, k] and activation rows a [m, k].
type screenCase struct {
	name    string
	n, k, m int
	w, a    []float32
}

// screenCases: random heads (Gaussian rows of different scales, an
// activation with outliers, K not a multiple of any step, a row of zeros
// and one of tiny weights), and heads made of near-ties: copies of the
// leading row, one with a product 2⁻¹² larger, and exact duplicates (the
// first index must win).
func screenCases() []screenCase {
	rng := rand.New(rand.NewPCG(3, 4))
	gauss := func(n int, sd float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * sd)
		}
		return v
	}
	var cs []screenCase
	for _, d := range []struct{ n, k, m int }{{1000, 64, 1}, {3001, 100, 2}, {4096, 512, 3}, {2000, 1000, 1}, {1500, 301, 19}} {
		w := gauss(d.n*d.k, 0.02)
		for j := 0; j < d.n; j += 7 { // rows of other scales
			for i := range d.k {
				w[j*d.k+i] *= float32(1 + j%5)
			}
		}
		for i := range d.k { // a row of zeros, one of tiny weights (codes all 0)
			w[10*d.k+i], w[11*d.k+i] = 0, w[11*d.k+i]*0x1p-110
		}
		a := gauss(d.m*d.k, 1)
		for r := range d.m {
			a[r*d.k+d.k/2] = 40 // an outlier feature
		}
		cs = append(cs, screenCase{fmt.Sprintf("gauss_%dx%d", d.n, d.k), d.n, d.k, d.m, w, a})
	}
	cs = append(cs, codedCase(rng))
	n, k := 2048, 256
	w, a := gauss(n*k, 0.02), gauss(k, 1)
	best := fullArgMax(w, a, n, k)
	for _, j := range []int{3, 700, n - 1} { // copies of the best row
		copy(w[j*k:(j+1)*k], w[int(best)*k:(int(best)+1)*k])
	}
	i := 5 // row 700 a hair larger: one product up by 2⁻¹² of itself
	w[700*k+i] += float32(math.Copysign(math.Abs(float64(w[700*k+i]))/4096, float64(a[i])))
	if fullArgMax(w, a, n, k) != 700 {
		panic("screenCases: the near tie does not make row 700 the largest")
	}
	cs = append(cs, screenCase{"near_ties", n, k, 1, w, a})
	w2 := append([]float32(nil), w...)
	copy(w2[700*k:701*k], w2[int(best)*k:(int(best)+1)*k]) // 3, best, n-1, 700 exact ties
	cs = append(cs, screenCase{"exact_ties", n, k, 1, w2, a})
	return cs
}

// codedCase is a head whose weights the int8 copy holds exactly (codes
// times 2⁻⁸, each row reaching ±127): only the activations' quantization
// (the integer screen's δ) and the sums' rounding separate the
// approximations from the product.
func codedCase(rng *rand.Rand) screenCase {
	n, k, m := 700, 200, 2
	w, a := make([]float32, n*k), make([]float32, m*k)
	for i := range w {
		w[i] = float32(int(rng.IntN(255))-127) * 0x1p-8
	}
	for j := range n {
		w[j*k+j%k] = 127 * 0x1p-8
	}
	for i := range a {
		a[i] = float32(rng.NormFloat64())
	}
	return screenCase{"coded", n, k, m, w, a}
}

func rowOf(w []float32, k int) Rows {
	return func(j0, j1 int, dst []float32) { copy(dst, w[j0*k:j1*k]) }
}

// TestScreenArgMax: the screened argmax equals the full product's first
// index of the largest value on every kernel here (its quantization and
// its products), with 1 and 3 threads, and computes only a few rows
// exactly on random heads.
func TestScreenArgMax(t *testing.T) {
	for _, c := range screenCases() {
		for kname, kern := range screenKernels() {
			s := quantizeRowsI8(kern, c.n, c.k, rowOf(c.w, c.k), 3)
			if s == nil {
				t.Fatalf("%s/%s: quantizeRowsI8 refused finite weights", c.name, kname)
			}
			for _, threads := range []int{1, 3} {
				ids := make([]int32, c.m)
				var st ScreenStats
				if !s.argMax(kern, ids, c.a, c.m, rowOf(c.w, c.k), ArithFMA, threads, &st) {
					t.Fatalf("%s/%s/%d: screen gave up on finite data", c.name, kname, threads)
				}
				for r := range c.m {
					if want := fullArgMax(c.w, c.a[r*c.k:(r+1)*c.k], c.n, c.k); ids[r] != want {
						t.Errorf("%s/%s/%d row %d: screened argmax %d, full product %d", c.name, kname, threads, r, ids[r], want)
					}
				}
				if st.Rows != c.m || st.Candidates > c.m*c.n/50 {
					t.Errorf("%s/%s: %d candidates over %d rows of %d: the screen prunes too little", c.name, kname, st.Candidates, st.Rows, c.n)
				}
			}
		}
	}
}

// TestScreenBF16Dot: with ArithBF16Dot the screened argmax is that of
// dotReference's product (MatMulBF16Dot's bits) on bf16 weights, near ties
// included and where it differs from the f32 chain's (roundingCase), on
// every kernel.
func TestScreenBF16Dot(t *testing.T) {
	for _, c := range append(screenCases(), roundingCase()) {
		if c.k%2 != 0 {
			continue
		}
		w16 := make([]uint16, c.n*c.k) // the weights rounded to bf16, [K, N] for dotReference
		w := make([]float32, c.n*c.k)
		for j := range c.n {
			for i := range c.k {
				w16[i*c.n+j] = RoundBF16(c.w[j*c.k+i])
				w[j*c.k+i] = WidenBF16(w16[i*c.n+j])
			}
		}
		for kname, kern := range screenKernels() {
			s := quantizeRowsI8(kern, c.n, c.k, rowOf(w, c.k), 2)
			ids := make([]int32, c.m)
			if !s.argMax(kern, ids, c.a, c.m, rowOf(w, c.k), ArithBF16Dot, 2, nil) {
				t.Fatalf("%s/%s: screen gave up on finite data", c.name, kname)
			}
			out := make([]float32, c.m*c.n)
			dotReference(out, c.n, c.a, c.k, c.m, w16, c.k, c.n)
			for r := range c.m {
				row := out[r*c.n : (r+1)*c.n]
				want := int32(slices.Index(row, slices.Max(row)))
				if ids[r] != want {
					t.Errorf("%s/%s row %d: screened argmax %d, VDPBF16PS product's %d", c.name, kname, r, ids[r], want)
				}
			}
		}
	}
}

// TestExactDot: exactDot's values are MatMul's (ArithFMA) and
// dotReference's (ArithBF16Dot, on the activations rounded as argMax
// rounds them), bit for bit.
func TestExactDot(t *testing.T) {
	c := screenCases()[3] // 2000 × 1000
	w16 := make([]uint16, c.n*c.k)
	w := make([]float32, c.n*c.k)
	for j := range c.n {
		for i := range c.k {
			w16[i*c.n+j] = RoundBF16(c.w[j*c.k+i])
			w[j*c.k+i] = WidenBF16(w16[i*c.n+j])
		}
	}
	a := c.a[:c.k]
	full, dots := make([]float32, c.n), make([]float32, c.n)
	MatMul(full, c.n, a, c.k, 1, PackB(w, c.k, c.n, c.k, true), 1)
	dotReference(dots, c.n, a, c.k, 1, w16, c.k, c.n)
	ah := roundedBF16(a)
	for j := range c.n {
		row := w[j*c.k : (j+1)*c.k]
		if got := exactDot(a, row, ArithFMA); math.Float32bits(got) != math.Float32bits(full[j]) {
			t.Fatalf("row %d: ArithFMA %g, MatMul %g", j, got, full[j])
		}
		if got := exactDot(ah, row, ArithBF16Dot); math.Float32bits(got) != math.Float32bits(dots[j]) {
			t.Fatalf("row %d: ArithBF16Dot %g, dotReference %g", j, got, dots[j])
		}
	}
}

// roundingCase is a head where the two arithmetics pick different rows:
// rows 800 and 900 lead, each with 0.5 at one of two columns whose
// activations, 1 and 1.001, are equal once rounded to bf16 — so the f32
// chain picks 900 and VDPBF16PS ties them (800 first).
func roundingCase() screenCase {
	cs := screenCases()
	c := cs[slices.IndexFunc(cs, func(c screenCase) bool { return c.name == "near_ties" })] // n 2048, k 256, one row
	w := append([]float32(nil), c.w...)
	a := append([]float32(nil), c.a...)
	a[10], a[11] = 1, 1.001
	for _, j := range []int{800, 900} {
		copy(w[j*c.k:(j+1)*c.k], w[3*c.k:4*c.k])
		w[j*c.k+10], w[j*c.k+11] = 0, 0
	}
	w[800*c.k+10], w[900*c.k+11] = 0.5, 0.5
	if fullArgMax(w, a, c.n, c.k) != 900 {
		panic("roundingCase: row 900 does not lead the f32 product")
	}
	return screenCase{"bf16_rounding", c.n, c.k, 1, w, a}
}

// TestScreenBound: on every kernel, every row's approximation is within
// its bound of the exact product (the bound the candidates rest on), and
// the bound is not vacuous (well below the spread of the values).
func TestScreenBound(t *testing.T) {
	for _, c := range screenCases()[:6] {
		exact := make([]float32, c.m*c.n)
		MatMul(exact, c.n, c.a, c.k, c.m, PackB(c.w, c.k, c.n, c.k, true), 1)
		for kname, kern := range screenKernels() {
			s := quantizeRowsI8(kern, c.n, c.k, rowOf(c.w, c.k), 2)
			approx, bs := screenApprox(s, kern, c.a, c.m)
			for r := range c.m {
				spread := 0.0
				for j := range c.n {
					b := s.beta(j, &bs[r])
					d := math.Abs(float64(exact[r*c.n+j]) - float64(approx[r*c.n+j]))
					if d > b {
						t.Fatalf("%s/%s row %d, %d: |exact − approx| = %g > bound %g", c.name, kname, r, j, d, b)
					}
					spread = max(spread, math.Abs(float64(exact[r*c.n+j])))
				}
				if b := s.beta(0, &bs[r]); b > spread/4 {
					t.Errorf("%s/%s row %d: bound %g against values up to %g: too loose to prune", c.name, kname, r, b, spread)
				}
			}
		}
	}
}

// screenApprox is argMax's approximations of the m rows of a and their
// bounds' terms.
func screenApprox(s *RowsI8, kern *i8Kernels, a []float32, m int) ([]float32, []rowBound) {
	approx, bs := make([]float32, m*s.N), make([]rowBound, m)
	for r := range m {
		bs[r].n1, bs[r].n2, _ = norms(a[r*s.K : (r+1)*s.K])
	}
	s.approximate(kern, approx, a, m, 2, bs)
	return approx, bs
}

// TestIntsKernel: the integer kernels' sums are intsGo's for 1 to 16
// quantized rows (4, 8 and 16 accumulators), odd and even K4, several
// blocks.
func TestIntsKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for kname, kern := range screenKernels() {
		if kern == nil || kern.ints == nil {
			continue
		}
		for _, k4 := range []int{1, 2, 7, 64} {
			u := make([]uint8, 3*k4*64)
			for i := range u {
				u[i] = uint8(rng.Uint32())
			}
			for _, mq := range []int{4, 8, 16} {
				p := make([]int32, k4*mq)
				for i := range p {
					p[i] = int32(rng.Uint32())
				}
				got, want := make([]int32, 3*mq*16), make([]int32, 3*mq*16)
				kern.ints(u, p, k4, mq, got)
				intsGo(u, p, k4, mq, want)
				if !slices.Equal(got, want) {
					t.Fatalf("%s k4=%d mq=%d: sums differ from intsGo", kname, k4, mq)
				}
			}
		}
	}
}

// TestQuantizeKernels: every kernel's quantization gives the Go loops'
// codes, scales and largest errors, and their squared errors' sums within
// rounding (summed in another order).
func TestQuantizeKernels(t *testing.T) {
	for _, c := range screenCases()[:6] {
		ref := quantizeRowsI8(nil, c.n, c.k, rowOf(c.w, c.k), 1)
		for kname, kern := range screenKernels() {
			s := quantizeRowsI8(kern, c.n, c.k, rowOf(c.w, c.k), 2)
			for j := range c.n {
				if s.scale[j] != ref.scale[j] || s.absMax[j] != ref.absMax[j] || s.errMax[j] != ref.errMax[j] ||
					math.Abs(float64(s.errL2[j]-ref.errL2[j])) > 1e-5*float64(ref.errL2[j]) {
					t.Fatalf("%s/%s row %d: scale, bound, errors %g %g %g %g; Go %g %g %g %g", c.name, kname, j,
						s.scale[j], s.absMax[j], s.errMax[j], s.errL2[j], ref.scale[j], ref.absMax[j], ref.errMax[j], ref.errL2[j])
				}
			}
			for i := range ref.q {
				if q := s.code(i/c.k, i%c.k); q != ref.q[i] {
					t.Fatalf("%s/%s code %d: %d, Go %d", c.name, kname, i, q, ref.q[i])
				}
			}
		}
	}
}

// TestScreenNonFinite: on every kernel a non-finite weight (where the
// kernel reads it or in the Go tail) refuses the copy; a non-finite or
// huge activation gives up the screen.
func TestScreenNonFinite(t *testing.T) {
	c := screenCases()[1] // K 100: values in the kernels' part and in the Go tail
	for kname, kern := range screenKernels() {
		for _, at := range []int{77, 99} {
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				w := append([]float32(nil), c.w...)
				w[5*c.k+at] = float32(bad)
				if quantizeRowsI8(kern, c.n, c.k, rowOf(w, c.k), 1) != nil {
					t.Errorf("%s: quantizeRowsI8 made a copy with weight %g at column %d", kname, bad, at)
				}
			}
		}
		s := quantizeRowsI8(kern, c.n, c.k, rowOf(c.w, c.k), 1)
		for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(-1)), 3e38} {
			a := append([]float32(nil), c.a[:c.k]...)
			a[9] = bad
			if s.argMax(kern, make([]int32, 1), a, 1, rowOf(c.w, c.k), ArithFMA, 1, nil) {
				t.Errorf("%s: activation %g: screened anyway", kname, bad)
			}
		}
	}
}

// TestPackedRows: Rows and RowsF32 read the weight rows back from the
// packed layouts, for ranges within a panel, across panels and whole.
func TestPackedRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, kn := range available() {
		n, k := 4*kn.nr, 38
		w := make([]float32, n*k)
		w16 := make([]uint16, n*k)
		for i := range w {
			w16[i] = uint16(rng.Uint32())
			w[i] = WidenBF16(w16[i])
		}
		pb := packInPlace(kn, append([]float32(nil), w...), n, k, 1)
		pb16 := packInPlaceBF16(kn, append([]uint16(nil), w16...), n, k, 1)
		for _, r := range [][2]int{{0, 1}, {3, 4}, {1, kn.nr}, {kn.nr - 1, 2*kn.nr + 3}, {0, n}} {
			got, got16 := make([]float32, (r[1]-r[0])*k), make([]float32, (r[1]-r[0])*k)
			pb.Rows(r[0], r[1], got)
			pb16.RowsF32(r[0], r[1], got16)
			for i, v := range w[r[0]*k : r[1]*k] {
				if math.Float32bits(got[i]) != math.Float32bits(v) || math.Float32bits(got16[i]) != math.Float32bits(v) {
					t.Fatalf("%s rows %v, value %d: Rows %x, RowsF32 %x, want %x", kn.name, r, i,
						math.Float32bits(got[i]), math.Float32bits(got16[i]), math.Float32bits(v))
				}
			}
		}
	}
}
