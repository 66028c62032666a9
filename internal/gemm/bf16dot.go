package gemm

import (
	"fmt"
	"math"
)

// The VDPBF16PS path (AVX512_BF16), opt-in. It rounds the activations to
// bf16 (packABF16) and multiplies pairs of bf16 values with f32 sums in
// one instruction (kernel_bf16dot_amd64.s): twice the products per
// instruction of the widening kernels, but not their numbers (see
// MatMulBF16Dot). The widening kernels stay the default.

// microKernelDot is microKernelBF16 with A packed in bf16 pairs,
// [k/2][MR][2].
type microKernelDot func(k int, a, b []uint16, c []float32, ldc int, load bool, pf hintBF16)

// HasBF16Dot reports whether MatMulBF16Dot can run here: the CPU has
// AVX512_BF16 and the bf16 kernels in use are its AVX-512 ones (so the
// packed layouts agree).
func HasBF16Dot() bool { return defaultKernelBF16().bf16.dot != nil }

// MatMulBF16Dot is MatMulBF16 with VDPBF16PS: A is rounded to bf16 (to
// nearest even) and each output accumulates, k pair by k pair in order,
// both products of the pair as the instruction does (subnormal inputs and
// results flushed to zero). Each element is still one fixed sequence, so
// its value does not depend on m, threads or tiling; it differs from
// MatMulBF16 by A's rounding (relative 2^-8 at most per activation) and the pair
// sums. It panics unless HasBF16Dot.
func MatMulBF16Dot(c []float32, ldc int, a []float32, lda, m int, b *PackedBF16, threads int) {
	if b == nil || b.kern.bf16 == nil || b.kern.bf16.dot == nil {
		panic("gemm: MatMulBF16Dot: no VDPBF16PS kernel for this PackedBF16 (HasBF16Dot)")
	}
	if m < 0 {
		panic(fmt.Sprintf("gemm: MatMulBF16Dot: m = %d < 0", m))
	}
	checkMatrix("MatMulBF16Dot: a", a, m, b.K, lda)
	checkMatrix("MatMulBF16Dot: c", c, m, b.N, ldc)
	if m == 0 || b.N == 0 {
		return
	}
	j := &jobBF16{c: c, ldc: ldc, a: a, lda: lda, m: m, b: b, dot: true}
	kn := b.kern
	split(kn.mr, kn.nr, m, b.N, b.K, threads, j.run)
}

// RoundBF16 is f rounded to the nearest bfloat16 (ties to even; a NaN
// stays a quiet NaN), as its bit pattern.
func RoundBF16(f float32) uint16 {
	u := math.Float32bits(f)
	if f != f {
		return uint16(u>>16) | 0x40
	}
	u += 0x7FFF + (u>>16)&1
	return uint16(u >> 16)
}

// packABF16 is packA for the dot kernel: rows [i0, i1) × columns [p0,
// p0+kb) of a rounded to bf16, in panels of mr rows, [panel][kb/2][mr][2];
// rows past i1 are zero. kb is even.
func packABF16(dst []uint16, a []float32, lda, i0, i1, p0, kb, mr int) {
	for i := i0; i < i1; i += mr {
		panel := dst[(i-i0)*kb : (i-i0+mr)*kb]
		h := min(mr, i1-i)
		for r := range mr {
			if r >= h {
				for kk := 0; kk < kb; kk += 2 {
					panel[kk*mr+2*r], panel[kk*mr+2*r+1] = 0, 0
				}
				continue
			}
			src := a[(i+r)*lda+p0 : (i+r)*lda+p0+kb]
			for kk := 0; kk < kb; kk += 2 {
				panel[kk*mr+2*r], panel[kk*mr+2*r+1] = RoundBF16(src[kk]), RoundBF16(src[kk+1])
			}
		}
	}
}

// panelsDot is panels for the dot kernel (A in s.a16): every tile runs
// the full kernel, an edge tile through the scratch tile.
func (j *jobBF16) panelsDot(s *scratch, ic, ie, p0, p1, pc, kb int) {
	kn := j.b.kern
	mr, nr, K, N := kn.mr, kn.nr, j.b.K, j.b.N
	load := pc > 0
	for p := p0; p < p1; p++ {
		bp := j.b.data[p*K*nr+pc*nr : p*K*nr+(pc+kb)*nr]
		col := p * nr
		w := min(nr, N-col)
		pf := hintBF16{b: &bp[0]}
		if p+1 < p1 {
			pf.b = &j.b.data[(p+1)*K*nr+pc*nr]
		}
		for i := ic; i < ie; i += mr {
			ap := s.a16[(i-ic)*kb : (i-ic+mr)*kb]
			pf.c = nextTile(j.c, j.ldc, nr, i+mr, col, ie, ic, p1)
			if h := min(mr, j.m-i); h < mr || w < nr {
				tileIn(s.tile, nr, j.c, j.ldc, i, col, h, w, load)
				kn.bf16.dot(kb, ap, bp, s.tile, nr, load, pf)
				tileOut(s.tile, nr, j.c, j.ldc, i, col, h, w)
			} else {
				kn.bf16.dot(kb, ap, bp, j.c[i*j.ldc+col:], j.ldc, load, pf)
			}
			pf.b = &bp[0]
		}
	}
}

// dotReference is MatMulBF16Dot's definition, as VDPBF16PS computes it
// (and measured on Zen 4): per k pair, from +0, acc += a[k+1]·b[k+1] then
// acc += a[k]·b[k] (each product of bf16 values exact in f32, each sum
// rounded to nearest), with A rounded to bf16, subnormal inputs read as
// zero and subnormal sums flushed to zero. b is [k, n] row-major bf16.
func dotReference(c []float32, ldc int, a []float32, lda, m int, b []uint16, k, n int) {
	for i := range m {
		for j := range n {
			var acc float32
			for p := 0; p < k; p += 2 {
				a0, a1 := daz(WidenBF16(RoundBF16(a[i*lda+p]))), daz(WidenBF16(RoundBF16(a[i*lda+p+1])))
				b0, b1 := daz(WidenBF16(b[p*n+j])), daz(WidenBF16(b[(p+1)*n+j]))
				acc = daz(acc + float32(float64(a1)*float64(b1)))
				acc = daz(acc + float32(float64(a0)*float64(b0)))
			}
			c[i*ldc+j] = acc
		}
	}
}

// daz is f with a subnormal value flushed to a zero of its sign.
func daz(f float32) float32 {
	if f != 0 && math.Abs(float64(f)) < 0x1p-126 {
		return float32(math.Copysign(0, float64(f)))
	}
	return f
}

// selfCheckDot compares k's dot kernel with dotReference on a problem
// with full and edge tiles and two K blocks.
func selfCheckDot(k *kernel) bool {
	m, n, kk := 2*k.mr+3, 2*k.nr+5, k.kc+38
	a := make([]float32, m*kk)
	b := make([]uint16, kk*n)
	for i := range a {
		a[i] = float32(math.Sin(float64(i)*0.37)) * 3
	}
	for i := range b {
		b[i] = RoundBF16(float32(math.Cos(float64(i) * 0.11)))
	}
	want, got := make([]float32, m*n), make([]float32, m*n)
	dotReference(want, n, a, kk, m, b, kk, n)
	j := &jobBF16{c: got, ldc: n, a: a, lda: kk, m: m, b: packBBF16(k, b, kk, n, n, false), dot: true}
	j.run(0, m, 0, (n+k.nr-1)/k.nr)
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			return false
		}
	}
	return true
}
