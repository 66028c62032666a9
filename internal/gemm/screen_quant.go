package gemm

import (
	"math"
	"sync"
	"sync/atomic"
)

// Making the screening copy (screen.go): a row's int8 codes, its scale
// and the bounds of its quantization error.

// Rows writes rows [j0, j1) of a weight [N, K] into dst ([j1−j0][K]) as
// float32.
type Rows func(j0, j1 int, dst []float32)

// QuantizeRowsI8 makes the screening copy of the weight [n, k] that rows
// reads (once per row, slices of up to 256 rows from up to threads
// goroutines at once); it returns nil if a weight is not finite.
func QuantizeRowsI8(n, k int, rows Rows, threads int) *RowsI8 {
	return quantizeRowsI8(defaultKernel().i8, n, k, rows, threads)
}

// quantizeRowsI8 is QuantizeRowsI8 through kern's quantization (nil: Go
// loops).
func quantizeRowsI8(kern *i8Kernels, n, k int, rows Rows, threads int) *RowsI8 {
	s := newRowsI8(n, k)
	ints := kern != nil && kern.ints != nil && k <= maxIntK
	if ints {
		s.u = newInterleaved(n, k)
	} else {
		s.q = make([]int8, n*k)
	}
	var bad atomic.Bool
	slice := 64
	if n < 8*slice*max(1, threads) {
		slice = max(1, n/(8*max(1, threads)))
	}
	if ints {
		slice = (slice + 15) &^ 15 // whole blocks of the interleaved copy
	}
	var bufs, codes sync.Pool
	shareOut(n, slice, max(1, threads), false, func(lo, hi int) {
		bp := getPooled[float32](&bufs, (hi-lo)*k)
		defer bufs.Put(bp)
		buf := *bp
		rows(lo, hi, buf)
		var q []int8 // the slice's codes: the copy's rows, or scratch to interleave
		if ints {
			cp := getPooled[int8](&codes, (hi-lo)*k)
			defer codes.Put(cp)
			q = *cp
		} else {
			q = s.q[lo*k : hi*k]
		}
		for j := lo; j < hi && !bad.Load(); j++ {
			if !s.quantizeRow(kern, j, buf[(j-lo)*k:(j-lo+1)*k], q[(j-lo)*k:(j-lo+1)*k]) {
				bad.Store(true)
			}
		}
		if ints {
			s.interleave(q, lo, hi)
		}
	})
	if bad.Load() {
		return nil
	}
	s.setMaxima()
	return s
}

// newRowsI8 allocates a copy of a weight [n, k] but its codes.
func newRowsI8(n, k int) *RowsI8 {
	return &RowsI8{N: n, K: k, scale: make([]float32, n),
		absMax: make([]float32, n), errMax: make([]float32, n), errL2: make([]float32, n),
		gamma: gammaN(k) + gammaN(k+4), gammaK: gammaN(k), sub: float64(k) * 0x1p-148}
}

// setMaxima sets the largest of the rows' bounds.
func (s *RowsI8) setMaxima() {
	for j := range s.N {
		s.maxAbs = max(s.maxAbs, float64(s.absMax[j]))
		s.maxErr = max(s.maxErr, float64(s.errMax[j]))
		s.maxErrL2 = max(s.maxErrL2, float64(s.errL2[j]))
	}
}

// quantizeRow sets row j of the copy (its codes into q) from its weights
// w; false if one is
// not finite. Any rounding of w/s_j to a code would do (the error is
// measured, not assumed): truncating w·(127/M_j) ± ½ is the cheap one. The
// error of each weight is measured as e' = fl(w − s_j·q) (one rounding),
// so |e| ≤ |e'|/(1−u) + 2⁻¹⁴⁹, and its squares summed in float32 lanes.
func (s *RowsI8) quantizeRow(kern *i8Kernels, j int, w []float32, q []int8) bool {
	vec := 0
	if kern != nil && kern.quant != nil {
		vec = len(w) &^ 7
	}
	m, ok := absMaxGo(w[vec:])
	if vec > 0 {
		var lanes [16]float32
		kern.absMax(&w[0], vec, &lanes)
		for i := range 8 {
			m = max(m, lanes[i])
			ok = ok && lanes[8+i] == 0
		}
	}
	if !ok {
		return false
	}
	sc, inv := m/127, float32(0)
	if m >= 0x1p-100 { // else (all weights tiny or zero) every code is 0
		inv = 127 / m
	}
	if inv == 0 {
		vec = 0
	}
	emax, e2 := quantGo(q[vec:], w[vec:], inv, sc)
	if vec > 0 {
		var lanes [16]float32
		kern.quant(&w[0], vec, inv, sc, &q[0], &lanes)
		for i := range 8 {
			emax = max(emax, float64(lanes[i]))
			e2 += float64(lanes[8+i])
		}
	}
	s.setRow(j, m, sc, emax, e2)
	return true
}

// setRow sets row j's scale and bounds from its largest |w| m, its scale
// sc, and the largest |e'| and the sum of their squares (summed in
// float32 lanes of any length up to K, whose rounding the slack covers).
// Where the errors are so small that their squares may be subnormal, or
// flushed, the sum is taken as K·emax² instead.
func (s *RowsI8) setRow(j int, m, sc float32, emax, e2 float64) {
	if emax < 0x1p-60 {
		e2 = max(e2, float64(s.K)*emax*emax)
	}
	slack := 1 + 2*gammaN(s.K)
	s.scale[j] = sc
	s.absMax[j] = up32(max(float64(m), 127*float64(sc)))
	s.errMax[j] = up32(emax*slack + 0x1p-149)
	s.errL2[j] = up32(math.Sqrt(e2*slack)*slack + math.Sqrt(float64(s.K))*0x1p-149)
}

// absMaxGo returns the largest |v| of w, false if a value is not finite.
func absMaxGo(w []float32) (float32, bool) {
	m := float32(0)
	for _, v := range w {
		if v != v || v > math.MaxFloat32 || v < -math.MaxFloat32 {
			return 0, false
		}
		m = max(m, abs32(v))
	}
	return m, true
}

// quantGo is the quantization of w into q (i8QuantAVX2's, in Go): it
// returns the largest |e'| and the sum of their squares.
func quantGo(q []int8, w []float32, inv, sc float32) (emax, e2 float64) {
	for i, v := range w {
		x := v * inv
		half := math.Float32frombits(0x3f000000 | math.Float32bits(x)&(1<<31)) // ±½, no branch on the sign
		c := int8(max(-127, min(127, int32(x+half))))
		q[i] = c
		e := math.Abs(float64(fma32(-sc, float32(c), v)))
		if e > emax {
			emax = e
		}
		e2 += e * e
	}
	return emax, e2
}

// up32 rounds a non-negative x up to a float32 (with a relative margin
// for the float64 arithmetic that produced it).
func up32(x float64) float32 {
	x *= 1 + 1e-9
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

func abs32(v float32) float32 { return math.Float32frombits(math.Float32bits(v) &^ (1 << 31)) }
