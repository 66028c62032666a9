package gemm

import (
	"math"
	"sync"
)

// The VDPBF16PS path of packed 4-bit weights (AVX512_BF16), opt-in like
// MatMulBF16Dot: for a weight held in bfloat16 (PackedQ4.RoundBF16) the
// activations are rounded to bfloat16 too, and a step of 64 values takes
// two table lookups (VPERMW) and two pair products (VDPBF16PS) instead of
// four lookups and four f32 FMAs (kernel_q4dot_amd64.s).

// q4DotStep is the values a dot kernel step reads (32 code bytes).
const q4DotStep = 64

// q4DotKernels are a micro-kernel's VDPBF16PS 4-bit kernels for one row
// and for four, each summing a column as q4DotReference does. One row
// runs a column at a time: two columns' code streams at once (as the f32
// kernel's pairs do) streamed slower from DRAM (Zen 4, 2 threads, K 2048:
// 13–18 against 28 GB/s).
type q4DotKernels struct {
	one, four q4ColsOf[uint16]
}

// q4DotOrder is the order of a step's values as the dot kernels take
// them: the 32 odd k (low nibbles), then the 32 even k (high nibbles).
var q4DotOrder = func() []int {
	order := make([]int, q4DotStep)
	for i := range q4DotStep / 2 {
		order[i], order[q4DotStep/2+i] = 2*i+1, 2*i
	}
	return order
}()

// HasQ4Dot reports whether MatMulQ4Dot runs b here: b is held in
// bfloat16, its blocks are whole dot steps, and the CPU has the dot
// kernels (AVX512_BF16) and they compute q4DotReference's bits.
func HasQ4Dot(b *PackedQ4) bool {
	return b != nil && b.RoundBF16 && b.Block%q4DotStep == 0 && q4DotHere() != nil
}

// q4DotHere is the dot kernels in use, or nil: none, or they failed
// their check against q4DotReference.
var q4DotHere = sync.OnceValue(func() *q4DotKernels {
	kn := defaultKernel().q4
	if kn == nil || kn.dot == nil || !selfCheckQ4Dot(kn) {
		return nil
	}
	return kn.dot
})

// MatMulQ4Dot is MatMulQ4 with VDPBF16PS for a weight held in bfloat16:
// the activations are rounded to bfloat16 (to nearest even) and each
// output is q4DotReference's fixed sequence, so it does not depend on m,
// threads or the columns computed with it; it differs from MatMulQ4 by
// the activations' rounding (relative 2^-8 at most each) and the order
// of the sums. It panics unless HasQ4Dot(b).
func MatMulQ4Dot(c []float32, ldc int, a []float32, lda, m int, b *PackedQ4, threads int) {
	if !HasQ4Dot(b) {
		panic("gemm: MatMulQ4Dot: no VDPBF16PS 4-bit kernel for this weight (HasQ4Dot)")
	}
	if err := b.Validate(); err != nil {
		panic(err)
	}
	checkMatrix("MatMulQ4Dot: a", a, m, b.K, lda)
	checkMatrix("MatMulQ4Dot: c", c, m, b.N, ldc)
	if m == 0 || b.N == 0 {
		return
	}
	kn := defaultKernel().q4
	runQ4Dot(kn, c, ldc, a, lda, m, b, threads)
}

// runQ4Dot is MatMulQ4Dot through kn's dot kernels (checked).
func runQ4Dot(kn *q4Kernels, c []float32, ldc int, a []float32, lda, m int, b *PackedQ4, threads int) {
	rows := q4GroupRows(m)
	groups := (m + rows - 1) / rows
	p := getPrep16(groups * rows * b.K)
	defer q4DotPrep.Put(p)
	prep := *p
	for gi := range groups {
		prepQ4A(prep[gi*rows*b.K:(gi+1)*rows*b.K], a, lda, gi*rows, min(m, gi*rows+rows), rows, q4DotOrder, b.K)
	}
	runQ4Cols(kn.dot.one, kn.dot.four, newQ4Group(kn, b), prep, c, ldc, m, threads)
}

// q4DotPrep pools the dot path's prepared activations: a scoring
// product's are megabytes, and a new slice per call would let the heap
// grow by many of them between collections.
var q4DotPrep sync.Pool

// getPrep16 returns a pooled slice of n zeros.
func getPrep16(n int) *[]uint16 {
	p := getPooled[uint16](&q4DotPrep, n)
	clear(*p)
	return p
}

// q4DotReference is MatMulQ4Dot's definition. For column n and row r,
// two sums of 16 lanes start at +0; a block's values are its table
// scaled (fl(fl(Table[q]·Scale) + Offset)) and rounded to bfloat16, a
// subnormal read as zero; for each step of 64 values from k0 and lane j,
// the odd sum adds the products at k0+4j+3, then k0+4j+1, the even sum
// those at k0+4j+2, then k0+4j (VDPBF16PS: bfloat16 products exact in
// f32, each sum rounded to nearest, subnormal inputs and sums flushed to
// zero), with the activations rounded to bfloat16. The lanes' odd and even
// sums are added, then the 16 lanes summed as HSUM512 does: lane i with
// i+8, then i with i+4, then 0 with 2 and 1 with 3, then those two.
func q4DotReference(c []float32, ldc int, a []float32, lda, m int, b *PackedQ4) {
	bpr := b.K / b.Block
	for r := range m {
		x := a[r*lda : r*lda+b.K]
		for n := range b.N {
			var odd, even [16]float32
			for g := range bpr {
				var w [16]float32
				b.cvtTable(&w, n*bpr+g)
				for k0 := g * b.Block; k0 < (g+1)*b.Block; k0 += q4DotStep {
					codes := b.Codes[(n*b.K+k0)/2:]
					prod := func(k int) float32 {
						q := codes[(k-k0)/2] >> 4
						if k%2 == 1 {
							q = codes[(k-k0)/2] & 0xF
						}
						xa := daz(WidenBF16(RoundBF16(x[k])))
						return float32(float64(xa) * float64(w[q]))
					}
					for j := range 16 {
						k := k0 + 4*j
						odd[j] = daz(odd[j] + prod(k+3))
						odd[j] = daz(odd[j] + prod(k+1))
						even[j] = daz(even[j] + prod(k+2))
						even[j] = daz(even[j] + prod(k))
					}
				}
			}
			c[r*ldc+n] = hsum16(odd, even)
		}
	}
}

// hsum16 adds two sums of 16 lanes lane by lane and sums the lanes as
// HSUM512 does.
func hsum16(odd, even [16]float32) float32 {
	var s [16]float32
	for i := range s {
		s[i] = odd[i] + even[i]
	}
	var y [8]float32
	for i := range y {
		y[i] = s[i] + s[i+8]
	}
	x := [4]float32{y[0] + y[4], y[1] + y[5], y[2] + y[6], y[3] + y[7]}
	return (x[0] + x[2]) + (x[1] + x[3])
}

// selfCheckQ4Dot compares kn's dot kernels with q4DotReference on
// products of 1, 2 and 5 rows, an odd number of columns, two blocks of
// two steps, with offsets.
func selfCheckQ4Dot(kn *q4Kernels) bool {
	const k, n, block = 256, 7, 128
	b := &PackedQ4{K: k, N: n, Block: block, Table: [16]float32{-1, -0.7, -0.5, -0.4, -0.3, -0.2, -0.1, 0,
		0.08, 0.16, 0.25, 0.34, 0.44, 0.56, 0.72, 1}, RoundBF16: true,
		Codes: make([]byte, n*k/2), Scale: make([]float32, n*k/block), Offset: make([]float32, n*k/block)}
	for i := range b.Codes {
		b.Codes[i] = byte(i*37 + i/5)
	}
	for i := range b.Scale {
		b.Scale[i], b.Offset[i] = 0.5+float32(i%5)*0.3, float32(i%3)*0.01-0.01
	}
	a := make([]float32, 5*k)
	for i := range a {
		a[i] = float32(math.Sin(float64(i)*0.37)) * 3
	}
	for _, m := range []int{1, 2, 5} {
		want, got := make([]float32, m*n), make([]float32, m*n)
		q4DotReference(want, n, a, k, m, b)
		runQ4Dot(kn, got, n, a, k, m, b, 1)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				return false
			}
		}
	}
	return true
}
