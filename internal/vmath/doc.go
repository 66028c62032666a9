// Package vmath computes e^x, the logistic function (sigmoid) and SiLU over
// float32 slices, vectorized: the CPU backend's softmax and SwiGLU MLPs
// use it in place of a float64 math.Exp call per element. ExpShifted
// (e^(x−m)) and DivScalar (x/s) are a softmax row's other steps, with the
// bits of the scalar operations; Exp64 is e^x over float64 slices (the LM
// head's log-softmax).
//
// # Kernels
//
// On amd64 with AVX2 and FMA the loops are assembly (kernel_amd64.s), 8
// floats a step, branch-free; with AVX-512F too, Exp, ExpShifted,
// Logistic and SwiGLU run 16 floats a step (kernel_avx512_amd64.s: the
// same instructions on zmm registers, mask registers for the blends, so
// the AVX2 loops' bits, TestAVX512MatchesAVX2) and the rest of a slice
// through the AVX2 loop; elsewhere, or with GOEVAL_VMATH=go in the
// environment at start-up, they are Go (exp_go.go; GOEVAL_VMATH=avx2
// keeps an AVX-512 CPU on the AVX2 loops). Kernel names the one in use.
// SwiGLU ((g·σ(g))·u, each product rounded) and ScaleMask (mask ? x·s :
// fill) are a SwiGLU MLP's and attention's element-wise steps. Both run the same algorithm; the Go kernel rounds each product
// where the assembly fuses it, so the two may differ in the last bits,
// both within the bounds below.
//
// # Algorithm
//
// e^x: Cody–Waite reduction x = n·ln 2 + r, n = round(x·log2 e) (by adding
// 1.5·2^23, which leaves n in the low bits), r = (x − n·ln2hi) − n·ln2lo
// with ln2hi of 15 bits so the first step is exact, |r| ≤ 0.3467; e^r as
// 1 + r + r²·q(r), q a degree-4 Chebyshev fit (relative error 1.1e-8),
// in Horner form; then n is added to the exponent bits. For x < 0 the
// bits get 64 more and the result is multiplied by 2^-64, so that results
// below the smallest normal are rounded once, to the subnormal. x is
// first raised to −120; x > 88.72283 (the largest x with a finite e^x)
// gives +Inf, NaN gives NaN.
//
// Logistic: with e = e^-|x| ≤ 1 (no overflow), 1/(1+e) for x ≥ 0 and
// e/(1+e) for x < 0, an IEEE division (not an approximate reciprocal).
// SiLU: x/(1+e) for x ≥ 0; for x < 0, ((x·E)/(1+e))·2^-64 with E = e·2^64,
// the exponential before its final scaling, so that x·e^x is accurate
// even where e^x alone would be subnormal.
//
// # Accuracy
//
// Measured over all 2^32 float32 inputs (GOEVAL_VMATH_EXHAUSTIVE=1 go test
// -run Exhaustive -timeout 1h ./internal/vmath), in ulps from the float64
// reference rounded to float32 (and, in parentheses, from the float64
// reference itself), for results in the normal range:
//
//	           avx2+fma       go
//	Exp        1 (0.965)      1 (1.236)
//	Logistic   2 (2.402)      2 (2.402)
//	SiLU       3 (3.344)      3 (3.344)
//
// Exp(0) = 1, Exp(−Inf) = +0, Exp(+Inf) = +Inf, Exp(NaN) = NaN; for
// −103.97 < x < −87.34 Exp gives the subnormal e^x (not flushed), within
// 1.3e-45 (under one subnormal ulp), and +0 below. Logistic(±Inf) = 1, 0;
// SiLU(+Inf) = +Inf, SiLU(−Inf) = −0; NaN gives NaN; no finite input gives
// NaN. Results below 2^-126 are within 2e-45 of the reference.
//
// Each result depends only on the element's value: the last len%8
// elements go through the same assembly as the rest (via an 8-float
// buffer), so a slice, any offset or length of it, and each element alone
// give the same bits.
//
// # Performance
//
// ns per element, one thread (go test -run '^$' -bench . -cpu 1 -count 5
// ./internal/vmath; best of 5, AMD EPYC Zen 3, 2 cores shared with other
// work, so ±20 %), against the scalar float32(math.Exp(float64(x))) loop:
//
//	             n      avx2+fma   go     math.Exp
//	Exp          4096   0.40       6.6    18.4
//	Exp          1<<20  0.39       5.9    17.8
//	Logistic     4096   0.60       7.6    17.1
//	Logistic     1<<20  0.65       8.3    20.3
//	SiLU         4096   0.70       10.2   19.0
//	SiLU         1<<20  0.68       8.9    18.8
//
// # Exp64
//
// e^x over float64 (exp64_go.go): the same reduction with ln 2 split at
// 32 bits, e^r by its Taylor polynomial to r^13 (the first term left out
// is 4e-18 of e^r), x raised to −750 and results below 2^-1022 rounded
// once to the subnormal. The Go kernel uses math.FMA exactly where the
// assembly fuses, so both give the same bits on every input
// (TestExp64KernelsAgree). Within 1 ulp of the exact value (200-bit
// reference, TestExp64Exact) and 2 of Go's math.Exp, which is itself up
// to ~1.4 ulps off and gives +Inf from about x = 709.4 where e^x is still
// finite. ns per element, one thread (BenchmarkExp64, Zen 3): avx2+fma
// 1.4, go 15 (math.FMA), math.Exp 14.
package vmath
