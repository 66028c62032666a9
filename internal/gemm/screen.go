package gemm

import (
	"math"
	"sync"
	"sync/atomic"
)

// Screened argmax. A greedy decode step needs only the index of the
// largest logit, c_j = a·w_j over the N rows w_j of the LM head [N, K],
// but reading the whole head (525 MB in bf16 at a 128256 × 2048 head) is a
// third of a 1B model's decode step. RowsI8 keeps an int8 copy of the head
// (a quarter of f32's bytes, half of bf16's), and ArgMax finds the same
// index from it exactly:
//
//  1. Approximate every c_j from the copy: ã_j = s_j · Σ_k a_k q_jk.
//  2. Bound |c_j − ã_j| ≤ β_j rigorously (below), from the row's recorded
//     quantization error and the worst case of both f32 sums.
//  3. Every j with ã_j + β_j ≥ L = max_j (ã_j − β_j) is a candidate; the
//     largest c_j is among them, and no other j can reach it.
//  4. Compute the candidates' c_j as MatMul does (one FMA chain over k in
//     order, so the same bits as the full product; or as MatMulBF16Dot
//     does, ArithBF16Dot) and take the first of the largest.
//
// The result is the full product's argmax bit for bit (first index among
// equal maxima). The bound, with u = 2⁻²⁴ and γ_n = nu/(1−nu):
//
//	|c_j − Σ a_k w_jk|       ≤ γ_K · M_j · ‖a‖₁ (+ K·2⁻¹⁴⁹ for subnormal steps)
//	|Σ a_k e_jk|              ≤ min(E_j · ‖a‖₁, R_j · ‖a‖₂),  e_jk = w_jk − s_j q_jk
//	|ã_j − s_j Σ a_k q_jk|   ≤ γ_{K+4} · 127 s_j · ‖a‖₁ (the sums, the
//	                            scaling, a split sum's last addition)
//
// where M_j = max_k |w_jk|, E_j = max_k |e_jk| and R_j = ‖e_j‖₂ are
// recorded (rounded up) when the copy is made. For ArithBF16Dot, a is
// first rounded as VDPBF16PS reads it, and every bound grows by K·2⁻¹²⁵ +
// ‖a‖₁·2⁻¹²⁶ (sums flushed to zero, subnormal weights read as zero). Non-finite activations,
// weights or sums are never screened (ArgMax reports false and the caller
// computes the full product).

// RowsI8 is the int8 screening copy of a weight [N, K] (see above).
type RowsI8 struct {
	N, K int

	q      []int8    // [N][K]: w_jk ≈ scale[j] · q[j·K+k] (nil with u)
	u      []uint8   // the integer screen's interleaved codes (screen_int.go), or nil
	scale  []float32 // s_j = M_j / 127
	absMax []float32 // max(M_j, 127 s_j), rounded up
	errMax []float32 // E_j, rounded up
	errL2  []float32 // R_j, rounded up
	gamma  float64   // γ_K + γ_{K+4}
	gammaK float64   // γ_K
	sub    float64   // K·2⁻¹⁴⁸: subnormal steps
	maxAbs float64   // the largest absMax
	// the largest errMax and errL2 (betaMax)
	maxErr, maxErrL2 float64
}

// gammaN is γ_n = nu/(1−nu) for float32 (u = 2⁻²⁴).
func gammaN(n int) float64 {
	nu := float64(n) * 0x1p-24
	return nu / (1 - nu)
}

// ScreenStats counts what ArgMax computed exactly.
type ScreenStats struct {
	Rows       int // activation rows screened
	Candidates int // head rows computed exactly, over all of them
}

// Arith is the arithmetic of the product whose argmax ArgMax finds.
type Arith int

const (
	// ArithFMA is MatMul's: one float32 FMA chain over k in order from +0.
	ArithFMA Arith = iota
	// ArithBF16Dot is MatMulBF16Dot's (dotReference): the activations
	// rounded to bfloat16, VDPBF16PS pair sums, subnormals flushed.
	ArithBF16Dot
)

// ArgMax sets ids[r], for each of the m rows a_r of a ([m][K]), to the
// first index of the largest c_j = a_r·w_j as the product of arithmetic
// arith computes it, reading the rows w_j of the weight through rows (as
// QuantizeRowsI8's) only for the candidates. It returns false, leaving ids
// unspecified, when a row of a or a bound is not finite or too large to be
// safe (the caller then computes the full product).
func (s *RowsI8) ArgMax(ids []int32, a []float32, m int, rows Rows, arith Arith, threads int, st *ScreenStats) bool {
	return s.argMax(defaultKernel().i8, ids, a, m, rows, arith, threads, st)
}

// argMax is ArgMax through the screening kernel kern (nil: Go loops).
func (s *RowsI8) argMax(kern *i8Kernels, ids []int32, a []float32, m int, rows Rows, arith Arith, threads int, st *ScreenStats) bool {
	if arith == ArithBF16Dot {
		a = roundedBF16(a) // the values the product multiplies
	}
	bs := make([]rowBound, m)
	for r := range m {
		var ok bool
		if bs[r].n1, bs[r].n2, ok = norms(a[r*s.K : (r+1)*s.K]); !ok {
			return false
		}
		if arith == ArithBF16Dot { // flushed sums, and weights read as zero
			bs[r].extra = float64(s.K)*0x1p-125 + bs[r].n1*0x1p-126
		}
	}
	ap := getPooled[float32](&screenApproxPool, m*s.N)
	defer screenApproxPool.Put(ap)
	approx := *ap
	s.approximate(kern, approx, a, m, threads, bs)
	return s.pick(ids, a, approx, bs, rows, arith, threads, st)
}

// approximate sets approx[r·N + j] = ã_j for the m rows of a, through the
// integer screen where the copy is made for it (then also the rows'
// residual terms in bs), else the f32 products of the copy.
func (s *RowsI8) approximate(kern *i8Kernels, approx, a []float32, m, threads int, bs []rowBound) {
	if s.u == nil {
		s.dot(kern, approx, a, m, threads)
		return
	}
	for gi, g := range s.intDot(kern, approx, a, m, threads) {
		for r := range len(g.beta1) {
			b := &bs[gi*intRows/2+r]
			b.ints, b.d1 = true, g.d1[r]
		}
	}
}

// screenApproxPool pools argMax's approximations.
var screenApproxPool sync.Pool

// pick sets ids[r] from row r's approximations and bounds bs[r], the rows
// over up to threads goroutines; false if one gives up.
func (s *RowsI8) pick(ids []int32, a, approx []float32, bs []rowBound, rows Rows, arith Arith, threads int, st *ScreenStats) bool {
	var failed atomic.Bool
	var mu sync.Mutex
	shareOut(len(bs), 1, max(1, min(threads, len(bs))), false, func(r, _ int) {
		cands, ok := s.candidates(approx[r*s.N:(r+1)*s.N], &bs[r])
		if ok {
			ids[r], ok = exactMax(a[r*s.K:(r+1)*s.K], cands, rows, make([]float32, s.K), arith)
		}
		if !ok {
			failed.Store(true)
			return
		}
		if st != nil {
			mu.Lock()
			st.Rows++
			st.Candidates += len(cands)
			mu.Unlock()
		}
	})
	return !failed.Load()
}

// roundedBF16 is a copy of a rounded to bfloat16 (widened back), with
// subnormals read as zero, as VDPBF16PS reads its activations.
func roundedBF16(a []float32) []float32 {
	r := make([]float32, len(a))
	for i, v := range a {
		r[i] = daz(WidenBF16(RoundBF16(v)))
	}
	return r
}

// norms returns ‖a‖₁ and ‖a‖₂ of a row rounded up, false if a value is not
// finite.
func norms(a []float32) (n1, n2 float64, ok bool) {
	for _, v := range a {
		f := float64(v)
		n1 += math.Abs(f)
		n2 += f * f
	}
	if math.IsNaN(n1) || math.IsInf(n1, 0) || math.IsInf(n2, 0) {
		return 0, 0, false
	}
	return n1 * (1 + 1e-12), math.Sqrt(n2) * (1 + 1e-12), true
}

// screenLimit bounds M_j·‖a‖₁: beyond it a sum could overflow float32 and
// the bound would not hold.
const screenLimit = 1e30

// maxCandidates caps a row's candidates (N/128, at least 64): past it the
// screen gives up, as computing them one by one would cost about what the
// whole product does.
func (s *RowsI8) maxCandidates() int { return max(64, s.N/128) }

// candidates returns, ascending, the rows j whose exact value may reach
// the largest lower bound (see the package comment above) for an
// activation row of bounds v; false when a bound is not finite or too
// large, or there are too many.
func (s *RowsI8) candidates(approx []float32, v *rowBound) ([]int, bool) {
	if !(s.maxAbs*(v.n1+v.d1) < screenLimit) {
		return nil, false
	}
	// Every β_j ≤ bmax, so ã_j − β_j, largest at some j with ã_j ≥
	// ã_max − 2·bmax, and every candidate are among those rows: the
	// bounds are computed for them only.
	top := math.Inf(-1)
	for _, x := range approx {
		if x != x {
			return nil, false // a NaN approximation
		}
		top = max(top, float64(x))
	}
	near := top - 2*s.betaMax(v)
	jp := getPooled[int](&screenNear, 0)
	defer screenNear.Put(jp)
	js := (*jp)[:0]
	for j, x := range approx {
		if float64(x) >= near {
			js = append(js, j)
		}
	}
	*jp = js
	lo := math.Inf(-1)
	for _, j := range js {
		lo = max(lo, float64(approx[j])-s.beta(j, v))
	}
	var c []int
	for _, j := range js {
		if float64(approx[j])+s.beta(j, v) >= lo {
			if c = append(c, j); len(c) > s.maxCandidates() {
				return nil, false
			}
		}
	}
	return c, true
}

// screenNear pools candidates' scratch.
var screenNear sync.Pool

// rowBound is what an activation row's bounds rest on: its norms n1 =
// ‖a‖₁ and n2 = ‖a‖₂; for the integer screen (ints) its quantization
// residual's d1 = ‖δ‖₁ (screen_int.go); extra, added to
// every bound.
type rowBound struct {
	n1, n2, d1, extra float64
	ints              bool
}

// beta is row j's bound β_j on |c_j − ã_j| for an activation row of bounds
// v (see the package comment above, and screen_int.go's for ints; the
// relative margin covers the float64 arithmetic here and there).
func (s *RowsI8) beta(j int, v *rowBound) float64 {
	return s.betaOf(float64(s.absMax[j]), float64(s.errMax[j]), float64(s.errL2[j]), v)
}

// betaMax is a bound on every β_j: beta's terms are monotone in the row's
// recorded values, and these are their largest.
func (s *RowsI8) betaMax(v *rowBound) float64 {
	return s.betaOf(s.maxAbs, s.maxErr, s.maxErrL2, v)
}

// betaOf is β for a row of largest weight m and errors em and el2.
func (s *RowsI8) betaOf(m, em, el2 float64, v *rowBound) float64 {
	e := min(em*v.n1, el2*v.n2)
	b := s.gamma*m*v.n1 + e
	if v.ints {
		b = (s.gammaK+0x1p-23)*m*v.n1 + e + (1+0x1p-23)*m*v.d1
	}
	return b*(1+1e-6) + s.sub + v.extra
}

// exactMax computes a·w_j for the candidate rows j as the product of
// arithmetic arith does, reading each row into w, and returns the first
// index of the largest; false if one is not finite. ArithFMA is one fused
// multiply-add chain over k in order from +0 (fma32, which the kernels
// are held to bit for bit); ArithBF16Dot is dotReference's (a already
// rounded).
func exactMax(a []float32, cands []int, rows Rows, w []float32, arith Arith) (int32, bool) {
	best, bestV := int32(0), float32(0)
	for i, j := range cands {
		rows(j, j+1, w)
		c := exactDot(a, w, arith)
		if c != c || c > math.MaxFloat32 || c < -math.MaxFloat32 {
			return 0, false
		}
		if i == 0 || c > bestV {
			best, bestV = int32(j), c
		}
	}
	return best, true
}

// exactDot is a·w in arithmetic arith (see exactMax).
func exactDot(a, w []float32, arith Arith) float32 {
	var c float32
	if arith == ArithBF16Dot {
		for k := 0; k+1 < len(a); k += 2 {
			c = daz(c + float32(float64(a[k+1])*float64(daz(w[k+1]))))
			c = daz(c + float32(float64(a[k])*float64(daz(w[k]))))
		}
		return c
	}
	for k, x := range a {
		c = fma32(x, w[k], c)
	}
	return c
}

// dot sets approx[r·N + j] = s_j · Σ_k a_r[k] q_jk (float32 sums, any
// order) for every row j and each of the m rows a_r of a, in slices of
// rows over up to threads goroutines: each slice of the copy is read from
// memory once and stays in cache for the other rows of a.
func (s *RowsI8) dot(kern *i8Kernels, approx, a []float32, m, threads int) {
	slice := max(16, min(screenSlice/max(1, s.K), s.N/(8*max(1, threads))))
	shareOut(s.N, slice, max(1, threads), true, func(lo, hi int) {
		for r := range m {
			ar, out := a[r*s.K:(r+1)*s.K], approx[r*s.N:(r+1)*s.N]
			if kern != nil && s.K >= kern.step {
				kern.one(s, ar, out, lo, hi)
			} else {
				i8DotGo(s, ar, out, lo, hi, 0)
			}
		}
	})
}

// screenSlice is the bytes of the copy a slice of dot reads (in L2 for
// every row of a after the first).
const screenSlice = 128 << 10

// i8DotGo is dot over rows [lo, hi) for k ≥ from, added to what the
// kernel summed below from (from 0: set).
func i8DotGo(s *RowsI8, a, approx []float32, lo, hi, from int) {
	for j := lo; j < hi; j++ {
		q := s.q[j*s.K : (j+1)*s.K]
		var acc float32
		for k := from; k < s.K; k++ {
			acc += a[k] * float32(q[k])
		}
		if from == 0 {
			approx[j] = acc * s.scale[j]
		} else {
			approx[j] += acc * s.scale[j]
		}
	}
}

// i8Kernels are a kernel set's screening products: one computes dot over
// rows [lo, hi) for the first K − K mod step values, then i8DotGo adds the
// rest.
type i8Kernels struct {
	step int
	one  func(s *RowsI8, a, approx []float32, lo, hi int)
	// absMax and quant, if not nil, are quantizeRow's passes over a
	// multiple of 8 weights (i8AbsMaxAVX2, i8QuantAVX2).
	absMax func(w *float32, k int, out *[16]float32)
	quant  func(w *float32, k int, inv, sc float32, q *int8, out *[16]float32)
	// ints, if not nil, is the integer screen's product (screen_int.go),
	// which the copy is then made for: out[b][r][l] = Σ_{i,t}
	// u[b][i][l][t]·int8(p[i·mq + r] byte t) for the blocks b of u
	// (K4·64 bytes each) and mq (4, 8 or 16) quantized rows (intsGo).
	ints func(u []uint8, p []int32, k4, mq int, out []int32)
	// panelAbsMax and panelQuant (bfloat16), panelAbsMaxF32 and
	// panelQuantF32, if not nil, make the integer screen's copy from a
	// 32-row panel (screen_panel.go; kernel_i8panel_amd64.s).
	panelAbsMax    func(p *uint16, steps int, out *[64]float32)
	panelQuant     func(p *uint16, k4 int, inv, sc *float32, u0, u1 *uint8, out *[64]float32)
	panelAbsMaxF32 func(p *float32, steps int, out *[64]float32)
	panelQuantF32  func(p *float32, k4 int, inv, sc *float32, u0, u1 *uint8, out *[64]float32)
}

// asmI8 wraps an assembly screening kernel (kernel_i8_amd64.s).
func asmI8(f func(a *float32, q *int8, k, ldq int, scale, c *float32, ncols int), step int) *i8Kernels {
	return &i8Kernels{step: step, one: func(s *RowsI8, a, approx []float32, lo, hi int) {
		k := s.K - s.K%step
		f(&a[0], &s.q[lo*s.K], k, s.K, &s.scale[lo], &approx[lo], hi-lo)
		if k < s.K {
			i8DotGo(s, a, approx, lo, hi, k)
		}
	}}
}
