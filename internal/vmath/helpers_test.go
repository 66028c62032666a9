package vmath

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

// kernels lists the kernels to test: Go, and assembly where the CPU has
// it (AVX-512 and AVX2 on an AVX-512 CPU).
func kernels() []*kernel {
	ks := []*kernel{goKernel}
	if archKernel != nil {
		ks = append(ks, archKernel)
		if archKernel.narrower != nil {
			ks = append(ks, archKernel.narrower)
		}
	}
	return ks
}

// function is one exported function with its float64 reference and its
// error bound: ulps from the reference rounded to float32, or absTol.
type function struct {
	name   string
	of     func(*kernel) func(dst, src []float32)
	ref    func(x float64) float64
	maxULP int64
	absTol float64 // absolute error allowed for tiny results (underflow)
}

var functions = []function{
	{"Exp", func(k *kernel) func(d, s []float32) { return k.exp }, math.Exp, 2, 0},
	{"Logistic", func(k *kernel) func(d, s []float32) { return k.logistic }, refLogistic, 3, 1e-38},
	{"SiLU", func(k *kernel) func(d, s []float32) { return k.silu }, refSiLU, 4, 1e-38},
}

func refLogistic(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func refSiLU(x float64) float64 {
	if math.IsInf(x, -1) {
		return 0
	}
	return x / (1 + math.Exp(-x))
}

// ordered maps float32 bits to integers in the order of the values (±0
// both to 0), so that the distance of two is their distance in ulps.
func ordered(v float32) int64 {
	b := math.Float32bits(v)
	if b>>31 != 0 {
		return -int64(b & 0x7fffffff)
	}
	return int64(b)
}

func ulpDist(a, b float32) int64 {
	d := ordered(a) - ordered(b)
	return max(d, -d)
}

// ulpOf is the spacing of float32 values at |v| (2^-149 below the normals).
func ulpOf(v float64) float64 {
	_, e := math.Frexp(v)
	return math.Ldexp(1, max(e-1, -126)-23)
}

// worst records the largest error found and where.
type worst struct {
	ulp     int64   // ulps from the reference rounded to float32
	ulpAt   float32 // the input of ulp
	frac    float64 // |y − ref| in ulps of float32(ref), ref in float64
	fracAt  float32
	tiny    float64 // the largest |y − ref| where |ref| < MinNormal
	tinyAt  float32
	fails   int
	firstAt float32 // the first input out of bounds
	n       int
}

// minNormal is the smallest normal float32, 2^-126.
const minNormal = 0x1p-126

func (w *worst) merge(o worst) {
	if o.ulp > w.ulp || w.n == 0 {
		w.ulp, w.ulpAt = o.ulp, o.ulpAt
	}
	if o.frac > w.frac || w.n == 0 {
		w.frac, w.fracAt = o.frac, o.fracAt
	}
	if o.tiny > w.tiny || w.n == 0 {
		w.tiny, w.tinyAt = o.tiny, o.tinyAt
	}
	if o.fails > 0 && w.fails == 0 {
		w.firstAt = o.firstAt
	}
	w.fails += o.fails
	w.n += o.n
}

// check compares y = f(x) elementwise with f's reference.
func (f function) check(xs, ys []float32) worst {
	var w worst
	w.n = len(xs)
	for i, x := range xs {
		y := ys[i]
		ref := f.ref(float64(x))
		r32 := float32(ref)
		if ref != ref || y != y {
			if (ref != ref) != (y != y) {
				w.noteFail(x)
			}
			continue
		}
		d := ulpDist(y, r32)
		if math.IsInf(float64(r32), 0) || math.IsInf(float64(y), 0) {
			if y != r32 {
				w.noteFail(x)
			}
			continue
		}
		if d > f.maxULP && math.Abs(float64(y)-ref) > f.absTol {
			w.noteFail(x)
		}
		if math.Abs(ref) < minNormal {
			if e := math.Abs(float64(y) - ref); e > w.tiny {
				w.tiny, w.tinyAt = e, x
			}
			continue
		}
		frac := math.Abs(float64(y)-ref) / ulpOf(ref)
		if d > w.ulp {
			w.ulp, w.ulpAt = d, x
		}
		if frac > w.frac {
			w.frac, w.fracAt = frac, x
		}
	}
	return w
}

func (w *worst) noteFail(x float32) {
	if w.fails == 0 {
		w.firstAt = x
	}
	w.fails++
}

// sweep runs f of kernel k over chunks of inputs made by gen (chunk index,
// buffer) on all CPUs and returns the largest errors.
func sweep(k *kernel, f function, chunks int, gen func(c int, xs []float32)) worst {
	const chunk = 1 << 16
	run := f.of(k)
	var (
		mu  sync.Mutex
		all worst
		wg  sync.WaitGroup
	)
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			xs, ys := make([]float32, chunk), make([]float32, chunk)
			var w worst
			for c := range next {
				gen(c, xs)
				run(ys, xs)
				w.merge(f.check(xs, ys))
			}
			mu.Lock()
			all.merge(w)
			mu.Unlock()
		})
	}
	for c := range chunks {
		next <- c
	}
	close(next)
	wg.Wait()
	return all
}

// randomInputs fills xs (chunk c) with a mix: random bits (the whole range
// with NaNs and infinities, magnitudes log-uniform), uniform on [−110, 95]
// (the range of finite nonzero exponentials) and uniform on [−2, 2].
func randomInputs(c int, xs []float32) {
	rng := rand.New(rand.NewPCG(uint64(c), 0x766d617468))
	for i := range xs {
		switch i % 3 {
		case 0:
			xs[i] = math.Float32frombits(rng.Uint32())
		case 1:
			xs[i] = float32(-110 + 205*rng.Float64())
		default:
			xs[i] = float32(-2 + 4*rng.Float64())
		}
	}
}

func report(t *testing.T, k *kernel, f function, w worst) {
	t.Helper()
	t.Logf("%s %s, %d inputs, normal results: max %d ulp at x=%v, max %.3f ulp from exact at x=%v; "+
		"results below 2^-126: max error %.3g at x=%v",
		k.name, f.name, w.n, w.ulp, w.ulpAt, w.frac, w.fracAt, w.tiny, w.tinyAt)
	if w.fails > 0 {
		x := w.firstAt
		y := make([]float32, 1)
		f.of(k)(y, []float32{x})
		t.Errorf("%s %s: %d inputs out of bounds; first x=%v (%#08x): got %v, want %v",
			k.name, f.name, w.fails, x, math.Float32bits(x), y[0], float32(f.ref(float64(x))))
	}
}
