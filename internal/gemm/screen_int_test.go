package gemm

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestIntActs: the two levels and scales reconstruct each activation up
// to a residual δ whose 1-norm, computed exactly (big.Float), is within
// the recorded d1; codes stay within ±127 and their sums are recorded.
func TestIntActs(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	k := 301
	k4 := (k + 3) / 4
	a := make([]float32, 3*k)
	for i := range a {
		a[i] = float32(rng.NormFloat64())
	}
	a[7] = 40                      // an outlier
	a[k+9] = -3e-30                // a row of tiny values
	for i := 2 * k; i < 3*k; i++ { // and one of zeros
		a[i] = 0
	}
	for i := k; i < 2*k; i++ {
		a[i] *= 1e-30
	}
	g := quantActs(a, 3, k, k4)
	for r := range 3 {
		var d1 big.Float
		var s1, s2 int64
		for i := range k {
			p := int8(g.p[(i/4)*g.mq+2*r] >> (8 * (i % 4)))
			p2 := int8(g.p[(i/4)*g.mq+2*r+1] >> (8 * (i % 4)))
			if p < -127 || p2 < -127 {
				t.Fatalf("row %d, %d: code −128", r, i)
			}
			s1, s2 = s1+int64(p), s2+int64(p2)
			// δ = a − β₁p − β₂p′, exactly
			x := new(big.Float).SetPrec(400).SetFloat64(float64(a[r*k+i]))
			x.Sub(x, new(big.Float).SetPrec(400).Mul(big.NewFloat(g.beta1[r]), big.NewFloat(float64(p))))
			x.Sub(x, new(big.Float).SetPrec(400).Mul(big.NewFloat(g.beta2[r]), big.NewFloat(float64(p2))))
			x.Abs(x)
			d1.SetPrec(400).Add(&d1, x)
		}
		if s1 != g.sum1[r] || s2 != g.sum2[r] {
			t.Errorf("row %d: sums %d %d, recorded %d %d", r, s1, s2, g.sum1[r], g.sum2[r])
		}
		d1f, _ := d1.Float64()
		if d1f > g.d1[r] {
			t.Errorf("row %d: ‖δ‖₁ %g, recorded %g", r, d1f, g.d1[r])
		}
		if m := 40.0 / 127 / 254 / 2 * float64(k); r == 0 && g.d1[r] > m {
			t.Errorf("row 0: ‖δ‖₁ %g > K·β₂/2 = %g", g.d1[r], m)
		}
	}
}

// TestIntScreenDelta: a head row whose weights the copy holds exactly and
// whose signs follow the activations' residuals makes s_j Σ q_jk δ_k as
// large as the bound allows (M_j ‖δ‖₁): the approximation stays within
// its bound there, and the screen still finds the product's argmax.
func TestIntScreenDelta(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, k := 300, 200
	a := make([]float32, k)
	for i := range a {
		a[i] = float32(rng.NormFloat64())
	}
	a[3] = 40
	g := quantActs(a, 1, k, (k+3)/4)
	w := make([]float32, n*k)
	for i := range w {
		w[i] = float32(int(rng.IntN(255))-127) * 0x1p-8
	}
	for i := range k { // row 0: ±127·2⁻⁸ with δ_k's sign
		p := int8(g.p[(i/4)*g.mq] >> (8 * (i % 4)))
		p2 := int8(g.p[(i/4)*g.mq+1] >> (8 * (i % 4)))
		d := float64(a[i]) - g.beta1[0]*float64(p) - g.beta2[0]*float64(p2)
		w[i] = float32(math.Copysign(127*0x1p-8, d))
	}
	exact := make([]float32, n)
	MatMul(exact, n, a, k, 1, PackB(w, k, n, k, true), 1)
	for kname, kern := range screenKernels() {
		if kern == nil || kern.ints == nil {
			continue
		}
		s := quantizeRowsI8(kern, n, k, rowOf(w, k), 1)
		approx, bs := screenApprox(s, kern, a, 1)
		if d, b := math.Abs(float64(exact[0]-approx[0])), s.beta(0, &bs[0]); d > b || d < b/20 {
			t.Errorf("%s: |exact − approx| = %g against bound %g: not within it, or the case misses its worst", kname, d, b)
		}
		ids := make([]int32, 1)
		if !s.argMax(kern, ids, a, 1, rowOf(w, k), ArithFMA, 1, nil) || ids[0] != fullArgMax(w, a, n, k) {
			t.Errorf("%s: screened argmax %d, full product %d", kname, ids[0], fullArgMax(w, a, n, k))
		}
	}
}

// BenchmarkScreen is ArgMax over LM heads of Qwen2-0.5B's and Llama-3.2-1B's
// shapes for 1 to 32 activation rows, through the integer screen where
// the CPU has one (ints) and the f32 products of the copy (f32), 2
// threads; it also reports the copy's making:
// go test -run '^$' -bench Screen -benchtime 20x ./internal/gemm
func BenchmarkScreen(b *testing.B) {
	kn := defaultKernel().i8
	if kn == nil {
		b.Skip("no screening kernels here")
	}
	f32 := *kn
	f32.ints = nil
	for _, sh := range [][2]int{{151936, 896}, {128256, 2048}} {
		n, k := sh[0], sh[1]
		rng := rand.New(rand.NewPCG(1, 1))
		w := make([]float32, n*k)
		for i := range w {
			w[i] = float32(rng.NormFloat64() * 0.02)
		}
		for _, v := range []struct {
			name string
			kern *i8Kernels
		}{{"ints", kn}, {"f32", &f32}} {
			if v.name == "ints" && kn.ints == nil {
				continue
			}
			var s *RowsI8
			b.Run(fmt.Sprintf("%dx%d/%s/make", n, k, v.name), func(b *testing.B) {
				for b.Loop() {
					s = quantizeRowsI8(v.kern, n, k, rowOf(w, k), 2)
				}
			})
			if v.name == "ints" {
				benchPanelCopies(b, w, n, k)
			}
			for _, m := range []int{1, 4, 16, 32} {
				a := make([]float32, m*k)
				for i := range a {
					a[i] = float32(rng.NormFloat64())
				}
				ids := make([]int32, m)
				b.Run(fmt.Sprintf("%dx%d/%s/m%d", n, k, v.name, m), func(b *testing.B) {
					for b.Loop() {
						if !s.argMax(v.kern, ids, a, m, rowOf(w, k), ArithFMA, 2, nil) {
							b.Fatal("screen gave up")
						}
					}
				})
			}
		}
	}
}

// benchPanelCopies reports the copy's making from a bfloat16 head's
// panels and from a float32 head's (ScreenI8), and for comparison the
// rows read out of those panels (QuantizeRowsI8 over RowsF32 and Rows).
func benchPanelCopies(b *testing.B, w []float32, n, k int) {
	w16 := make([]uint16, len(w))
	for i, v := range w {
		w16[i] = uint16(math.Float32bits(v) >> 16)
	}
	pb16 := PackBBF16(w16, k, n, k, true)
	pb := packB(defaultKernel(), w, k, n, k, true)
	for _, v := range []struct {
		name   string
		panels func() *RowsI8
		rows   Rows
	}{{"bf16", func() *RowsI8 { return pb16.ScreenI8(2) }, pb16.RowsF32}, {"f32", func() *RowsI8 { return pb.ScreenI8(2) }, pb.Rows}} {
		b.Run(fmt.Sprintf("%dx%d/ints/make-%s-panels", n, k, v.name), func(b *testing.B) {
			for b.Loop() {
				v.panels()
			}
		})
		b.Run(fmt.Sprintf("%dx%d/ints/make-%s-rows", n, k, v.name), func(b *testing.B) {
			for b.Loop() {
				QuantizeRowsI8(n, k, v.rows, 2)
			}
		})
	}
}
