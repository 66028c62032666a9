package vmath

import "github.com/goeval/goeval/internal/env"

// kernel is one implementation of the package's slice functions. Each
// function takes len(dst) == len(src) (checked by the exported wrappers).
type kernel struct {
	name string // "avx512", "avx2+fma" or "go"
	// narrower is the AVX2 kernel an AVX-512 one falls back to (nil else).
	narrower *kernel
	exp      func(dst, src []float32)
	logistic func(dst, src []float32)
	silu     func(dst, src []float32)
	swiglu   func(dst, g, u []float32)
	// scaleMask: dst[i] = mask[i] ? src[i]·scale : fill.
	scaleMask func(dst, src []float32, mask []bool, scale, fill float32)
	exp64     func(dst, src []float64)
	expSub    func(dst, src []float32, m float32)
	div       func(dst, src []float32, s float32)
}

var goKernel = &kernel{name: "go", exp: expGo, logistic: logisticGo, silu: siluGo, swiglu: swigluGo, scaleMask: scaleMaskGo,
	exp64: exp64Go, expSub: expSubGo, div: divGo}

// active is the kernel the exported functions use. GOEVAL_VMATH (see
// internal/env) forces the Go kernel (go) or AVX2 on an AVX-512 CPU (avx2);
// it is read once, at package initialization.
var active = choose(archKernel, env.VMath.Get())

// choose returns arch (the CPU's widest assembly kernel, nil if none)
// unless it is nil or force is "go" (the Go kernel), or force is "avx2"
// and arch has a narrower AVX2 kernel (that one).
func choose(arch *kernel, force string) *kernel {
	switch {
	case arch == nil || force == "go":
		return goKernel
	case force == "avx2" && arch.narrower != nil:
		return arch.narrower
	}
	return arch
}

// Kernel names the implementation in use: "avx512", "avx2+fma" or "go".
func Kernel() string { return active.name }

// Exp sets dst[i] = e^src[i] (len(dst) == len(src); dst may alias src).
func Exp(dst, src []float32) {
	checkLen(dst, src)
	active.exp(dst, src)
}

// Exp64 sets dst[i] = e^src[i] for float64 (len(dst) == len(src); dst may
// alias src), within 1 ulp of the correctly rounded value, with the same
// bits from every kernel (exp64_go.go).
func Exp64(dst, src []float64) {
	if len(dst) != len(src) {
		panic("vmath: len(dst) != len(src)")
	}
	active.exp64(dst, src)
}

// ExpShifted sets dst[i] = Exp(src[i] − m): the float32 difference, then
// Exp's value (the bits of the two steps done apart), as a softmax row
// needs it. dst may alias src.
func ExpShifted(dst, src []float32, m float32) {
	checkLen(dst, src)
	active.expSub(dst, src, m)
}

// DivScalar sets dst[i] = src[i] / s, IEEE division (the bits of a
// scalar loop), vectorised. dst may alias src.
func DivScalar(dst, src []float32, s float32) {
	checkLen(dst, src)
	active.div(dst, src, s)
}

// Logistic sets dst[i] = 1 / (1 + e^-src[i]) (the sigmoid), computed
// without overflow for any input.
func Logistic(dst, src []float32) {
	checkLen(dst, src)
	active.logistic(dst, src)
}

// SiLU sets dst[i] = src[i] * Logistic(src[i]).
func SiLU(dst, src []float32) {
	checkLen(dst, src)
	active.silu(dst, src)
}

// SwiGLU sets dst[i] = (g[i]·Logistic(g[i]))·u[i], each product rounded
// to float32: the bits of Logistic followed by the two multiplications
// (a Llama MLP's gated unit). len(dst) == len(g) == len(u); dst may alias
// g or u.
func SwiGLU(dst, g, u []float32) {
	checkLen(dst, g)
	checkLen(dst, u)
	active.swiglu(dst, g, u)
}

// ScaleMask sets dst[i] = src[i]·scale (rounded to float32) where mask[i],
// else fill: attention's scaled and masked scores. len(dst) == len(src) ==
// len(mask); dst may alias src.
func ScaleMask(dst, src []float32, mask []bool, scale, fill float32) {
	checkLen(dst, src)
	if len(mask) != len(src) {
		panic("vmath: len(mask) != len(src)")
	}
	active.scaleMask(dst, src, mask, scale, fill)
}

func checkLen(dst, src []float32) {
	if len(dst) != len(src) {
		panic("vmath: len(dst) != len(src)")
	}
}
