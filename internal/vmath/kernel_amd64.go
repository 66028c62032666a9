package vmath

import (
	"math"

	"golang.org/x/sys/cpu"
)

// The AVX2+FMA loops of kernel_amd64.s. Each computes n elements, n a
// multiple of 8, from src to dst (dst == src allowed), with the constants
// of tab; they check nothing: the Go wrappers below bound the slices.

//go:noescape
func expAVX2(dst, src *float32, n int, tab *[tabLen][8]float32)

//go:noescape
func logisticAVX2(dst, src *float32, n int, tab *[tabLen][8]float32)

//go:noescape
func siluAVX2(dst, src *float32, n int, tab *[tabLen][8]float32)

//go:noescape
func swigluAVX2(dst, gate, up *float32, n int, tab *[tabLen][8]float32)

//go:noescape
func scaleMaskAVX2(dst, src *float32, mask *bool, n int, sf *[2]float32)

//go:noescape
func expSubAVX2(dst, src *float32, n int, tab *[tabLen][8]float32, m *[8]float32)

//go:noescape
func divAVX2(dst, src *float32, n int, s *[8]float32)

//go:noescape
func exp64AVX2(dst, src *float64, n int, tab *[exp64TabLen][4]float64)

// The AVX-512F loops of kernel_avx512_amd64.s: n a multiple of 16, the
// AVX2 loops' instructions on zmm registers (same bits).

//go:noescape
func expAVX512(dst, src *float32, n int, tab *[tabLen][8]float32)

//go:noescape
func expSubAVX512(dst, src *float32, n int, tab *[tabLen][8]float32, m *[8]float32)

//go:noescape
func logisticAVX512(dst, src *float32, n int, tab *[tabLen][8]float32)

//go:noescape
func swigluAVX512(dst, gate, up *float32, n int, tab *[tabLen][8]float32)

// archKernel is the widest assembly kernel the CPU runs: AVX-512F (with
// the AVX2 kernel as its narrower), else AVX2+FMA, else nil.
var archKernel = widest(avx2Kernel())

func widest(avx2 *kernel) *kernel {
	if avx2 == nil || !cpu.X86.HasAVX512F {
		return avx2
	}
	return avx512Kernel(avx2)
}

// avx512Kernel runs Exp, ExpShifted, Logistic and SwiGLU 16 lanes a step
// on the first len &^ 15 elements and through avx2 on the rest; the other
// functions are avx2's.
func avx512Kernel(avx2 *kernel) *kernel {
	k := *avx2
	k.name, k.narrower = "avx512", avx2
	k.exp = func(dst, src []float32) { run512(expAVX512, dst, src, avx2.exp) }
	k.logistic = func(dst, src []float32) { run512(logisticAVX512, dst, src, avx2.logistic) }
	k.expSub = func(dst, src []float32, m float32) {
		n := len(src) &^ 15
		dst = dst[:len(src)]
		if n > 0 {
			ms := [8]float32{m}
			expSubAVX512(&dst[0], &src[0], n, avx2Tab, &ms)
		}
		avx2.expSub(dst[n:], src[n:], m)
	}
	k.swiglu = func(dst, g, u []float32) {
		n := len(g) &^ 15
		dst, u = dst[:len(g)], u[:len(g)]
		if n > 0 {
			swigluAVX512(&dst[0], &g[0], &u[0], n, avx2Tab)
		}
		avx2.swiglu(dst[n:], g[n:], u[n:])
	}
	return &k
}

// run512 runs f on the first len(src) &^ 15 elements, rest on the others.
func run512(f func(dst, src *float32, n int, tab *[tabLen][8]float32), dst, src []float32, rest func(dst, src []float32)) {
	n := len(src) &^ 15
	dst = dst[:len(src)]
	if n > 0 {
		f(&dst[0], &src[0], n, avx2Tab)
	}
	rest(dst[n:], src[n:])
}

func avx2Kernel() *kernel {
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		return nil
	}
	return &kernel{
		name:      "avx2+fma",
		exp:       func(dst, src []float32) { runAVX2(opExp, dst, src) },
		logistic:  func(dst, src []float32) { runAVX2(opLogistic, dst, src) },
		silu:      func(dst, src []float32) { runAVX2(opSiLU, dst, src) },
		swiglu:    swigluRun,
		scaleMask: scaleMaskRun,
		exp64:     exp64Run,
		expSub:    expSubRun,
		div:       divRun,
	}
}

const (
	opExp = iota
	opLogistic
	opSiLU
)

// tabLen is the number of constants in avx2Tab; the T_ offsets of
// tab_amd64.h index it (32 bytes a row).
const tabLen = 15

// avx2Tab holds each constant of the algorithm (see exp_go.go) 8 times.
var avx2Tab = splat([tabLen]uint32{
	math.Float32bits(log2e),
	math.Float32bits(magic),
	math.Float32bits(-ln2hi),
	math.Float32bits(-ln2lo),
	math.Float32bits(c6),
	math.Float32bits(c5),
	math.Float32bits(c4),
	math.Float32bits(c3),
	math.Float32bits(c2),
	oneBits,
	math.Float32bits(expMin),
	biasBits,
	math.Float32bits(expHi),
	0x7f800000, // +Inf
	1 << 31,    // the sign bit
})

func splat(c [tabLen]uint32) *[tabLen][8]float32 {
	var t [tabLen][8]float32
	for i, v := range c {
		for j := range t[i] {
			t[i][j] = math.Float32frombits(v)
		}
	}
	return &t
}

// runAVX2 runs op over src: whole vectors in place, the last len%8
// elements through an 8-element buffer, so that every element goes
// through the same instructions whatever its index.
func runAVX2(op int, dst, src []float32) {
	n := len(src) &^ 7
	dst = dst[:len(src)]
	if n > 0 {
		callAVX2(op, &dst[0], &src[0], n)
	}
	if n < len(src) {
		var buf [8]float32
		k := copy(buf[:], src[n:])
		callAVX2(op, &buf[0], &buf[0], 8)
		copy(dst[n:], buf[:k])
	}
}

func callAVX2(op int, dst, src *float32, n int) {
	switch op {
	case opExp:
		expAVX2(dst, src, n, avx2Tab)
	case opLogistic:
		logisticAVX2(dst, src, n, avx2Tab)
	case opSiLU:
		siluAVX2(dst, src, n, avx2Tab)
	}
}

// exp64TabLen is the number of constants in exp64Tab; the E_ offsets of
// exp64_amd64.s index it (32 bytes a row).
const exp64TabLen = 8 + len(expPoly64)

// exp64Tab holds each constant of exp64Go 4 times, the polynomial last.
var exp64Tab = func() *[exp64TabLen][4]float64 {
	c := []float64{log2e64, magic64, -ln2hi64, -ln2lo64, 1, expMin64, expHi64, math.Inf(1)}
	c = append(c, expPoly64[:]...)
	var t [exp64TabLen][4]float64
	for i, v := range c {
		t[i] = [4]float64{v, v, v, v}
	}
	return &t
}()

// exp64Run runs exp64AVX2 over src: whole vectors in place, the last
// len%4 elements through a 4-element buffer (the same instructions for
// every element).
func exp64Run(dst, src []float64) {
	n := len(src) &^ 3
	dst = dst[:len(src)]
	if n > 0 {
		exp64AVX2(&dst[0], &src[0], n, exp64Tab)
	}
	if n < len(src) {
		var buf [4]float64
		k := copy(buf[:], src[n:])
		exp64AVX2(&buf[0], &buf[0], 4, exp64Tab)
		copy(dst[n:], buf[:k])
	}
}

// swigluRun runs swigluAVX2 (the tail through 8-element buffers, as
// runAVX2).
func swigluRun(dst, g, u []float32) {
	n := len(g) &^ 7
	dst, u = dst[:len(g)], u[:len(g)]
	if n > 0 {
		swigluAVX2(&dst[0], &g[0], &u[0], n, avx2Tab)
	}
	if n < len(g) {
		var gb, ub [8]float32
		k := copy(gb[:], g[n:])
		copy(ub[:], u[n:])
		swigluAVX2(&gb[0], &gb[0], &ub[0], 8, avx2Tab)
		copy(dst[n:], gb[:k])
	}
}

// scaleMaskRun runs scaleMaskAVX2, the last len%8 elements in Go (the
// same product and choice).
func scaleMaskRun(dst, src []float32, mask []bool, scale, fill float32) {
	n := len(src) &^ 7
	dst, mask = dst[:len(src)], mask[:len(src)]
	if n > 0 {
		scaleMaskAVX2(&dst[0], &src[0], &mask[0], n, &[2]float32{scale, fill})
	}
	scaleMaskGo(dst[n:], src[n:], mask[n:], scale, fill)
}

// expSubRun runs expSubAVX2 (the tail through an 8-element buffer, as
// runAVX2).
func expSubRun(dst, src []float32, m float32) {
	ms := [8]float32{m, m, m, m, m, m, m, m}
	n := len(src) &^ 7
	dst = dst[:len(src)]
	if n > 0 {
		expSubAVX2(&dst[0], &src[0], n, avx2Tab, &ms)
	}
	if n < len(src) {
		var buf [8]float32
		k := copy(buf[:], src[n:])
		expSubAVX2(&buf[0], &buf[0], 8, avx2Tab, &ms)
		copy(dst[n:], buf[:k])
	}
}

// divRun runs divAVX2, the last len%8 elements divided one by one (the
// same IEEE quotient).
func divRun(dst, src []float32, s float32) {
	ss := [8]float32{s, s, s, s, s, s, s, s}
	n := len(src) &^ 7
	dst = dst[:len(src)]
	if n > 0 {
		divAVX2(&dst[0], &src[0], n, &ss)
	}
	for i := n; i < len(src); i++ {
		dst[i] = src[i] / s
	}
}
