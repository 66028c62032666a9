package gemm

import "fmt"

// Exact int8 products (LLM.int8's, models/nn.Int8Linear): c = a·wᵀ for
// int8 activation codes a [M, K] and an int8 weight w [N, K], each output
// the exact integer sum, in int32 (|Σ| ≤ 128·128·K < 2³¹ for K ≤ maxIntK).
// With AVX512_VNNI the weight is held in the integer screen's interleaved
// layout (screen_int.go: 16 rows' 4 consecutive codes a 64-byte vector,
// each code plus 128) and the products run on its VPDPBUSD kernels, 64
// multiply-adds an instruction, the weight read once for 16 rows of a.

// Int8Matrix is an int8 weight [N, K] laid out for MatMulInt8.
type Int8Matrix struct {
	N, K int
	u    []uint8 // interleaved codes (RowsI8.u's layout)
}

// HasInt8MatMul reports whether MatMulInt8 runs here: the CPU has
// AVX512_VNNI (and AVX512BW).
func HasInt8MatMul() bool { return HasIntScreen() }

// NewInt8Matrix lays out w [N, K] (row-major codes) for MatMulInt8. It
// panics unless HasInt8MatMul and 0 < K ≤ 65536.
func NewInt8Matrix(w []int8, n, k int) *Int8Matrix {
	if !HasInt8MatMul() {
		panic("gemm: NewInt8Matrix: no integer kernel on this CPU (HasInt8MatMul)")
	}
	if k <= 0 || k > maxIntK || n <= 0 || len(w) != n*k {
		panic(fmt.Sprintf("gemm: NewInt8Matrix: %d codes for [%d, %d] (K at most %d)", len(w), n, k, maxIntK))
	}
	return newInt8Matrix(w, n, k)
}

// Int8MatrixFrom lays out the weight [n, k] that rows reads (as float32)
// for MatMulInt8, a block of rows at a time; ok is false, and nothing is
// returned, unless every value is an int8 code (an integer in [−128,
// 127]). It panics unless HasInt8MatMul and 0 < k ≤ 65536.
func Int8MatrixFrom(n, k int, rows Rows) (w *Int8Matrix, ok bool) {
	if !HasInt8MatMul() || k <= 0 || k > maxIntK || n <= 0 {
		panic(fmt.Sprintf("gemm: Int8MatrixFrom: [%d, %d] (K at most %d; HasInt8MatMul %v)", n, k, maxIntK, HasInt8MatMul()))
	}
	s := &RowsI8{N: n, K: k, u: newInterleaved(n, k)}
	if !int8Blocks(n, k, rows, func(j0, j1 int, codes []int8) { s.interleave(codes, j0, j1) }) {
		return nil, false
	}
	return &Int8Matrix{N: n, K: k, u: s.u}, true
}

// MatMulInt8Rows is MatMulInt8 for the weight [n, k] that rows reads, laid
// out a block of rows at a time for the product (no copy of the whole
// weight is kept); ok is false, with c partly written, unless every value
// is an int8 code.
func MatMulInt8Rows(c []int32, ldc int, a []int8, m, n, k int, rows Rows, threads int) (ok bool) {
	return int8Blocks(n, k, rows, func(j0, j1 int, codes []int8) {
		MatMulInt8(c[j0:], ldc, a, m, NewInt8Matrix(codes, j1-j0, k), threads)
	})
}

// int8Blocks reads the weight [n, k] through rows int8Block rows at a
// time and hands each block's codes to use; false, at the first block
// holding a value that is no int8 code (an integer in [−128, 127]).
func int8Blocks(n, k int, rows Rows, use func(j0, j1 int, codes []int8)) bool {
	block := min(n, int8Block)
	wide, codes := make([]float32, block*k), make([]int8, block*k)
	for j0 := 0; j0 < n; j0 += block {
		j1 := min(n, j0+block)
		rows(j0, j1, wide[:(j1-j0)*k])
		if !Int8Codes(codes, wide[:(j1-j0)*k]) {
			return false
		}
		use(j0, j1, codes[:(j1-j0)*k])
	}
	return true
}

// int8Block is the weight rows int8Blocks reads at a time (a multiple of
// 16).
const int8Block = 1024

// Int8Codes sets q[i] = v[i] and reports whether every v[i] is an int8
// code (an integer in [−128, 127]).
func Int8Codes(q []int8, v []float32) bool {
	for i, x := range v {
		c := int8(x)
		if x < -128 || x > 127 || float32(c) != x {
			return false
		}
		q[i] = c
	}
	return true
}

func newInt8Matrix(w []int8, n, k int) *Int8Matrix {
	s := &RowsI8{N: n, K: k, u: newInterleaved(n, k)}
	s.interleave(w, 0, n)
	return &Int8Matrix{N: n, K: k, u: s.u}
}

// MatMulInt8 sets c[r·ldc + j] = Σ_k a[r·K + k]·w[j, k] for the m rows of
// a, exactly; the weight's blocks of 16 rows are split over up to threads
// goroutines, each read once for all of a's rows.
func MatMulInt8(c []int32, ldc int, a []int8, m int, w *Int8Matrix, threads int) {
	matMulInt8(defaultKernel().i8.ints, c, ldc, a, m, w, threads)
}

// matMulInt8 is MatMulInt8 on the integer kernel ints (intsGo in tests).
func matMulInt8(ints func(u []uint8, p []int32, k4, mq int, out []int32), c []int32, ldc int, a []int8, m int, w *Int8Matrix, threads int) {
	if m == 0 {
		return
	}
	if len(a) < m*w.K || ldc < w.N || len(c) < (m-1)*ldc+w.N {
		panic(fmt.Sprintf("gemm: MatMulInt8: a %d, c %d (ldc %d) too short for %d rows of [%d, %d]", len(a), len(c), ldc, m, w.N, w.K))
	}
	k4 := (w.K + 3) / 4
	intSums(ints, w.u, w.N, k4, int8Groups(a, m, w.K, k4), threads, func(gi int, g *intActs, out []int32, b0, b1 int) {
		for r, sum := range g.sum1 {
			row := c[(gi*intRows+r)*ldc:]
			off := int32(128 * sum) // |128·Σ_k a_k| ≤ 128·128·K < 2³¹
			for b := b0; b < b1; b++ {
				o := out[((b-b0)*g.mq+r)*16:]
				for l := range min(16, w.N-16*b) {
					row[16*b+l] = o[l] - off
				}
			}
		}
	})
}

// int8Groups packs a's rows, intRows at a time, as the kernel's broadcast
// operand: 4 codes a dword, [K4][mq] (mq 4, 8 or 16: the group's rows,
// padded with zero rows), with each row's code sum in sum1.
func int8Groups(a []int8, m, k, k4 int) []*intActs {
	var groups []*intActs
	for r0 := 0; r0 < m; r0 += intRows {
		rows := min(m-r0, intRows)
		mq := 4
		for mq < rows {
			mq *= 2
		}
		g := &intActs{mq: mq, p: make([]int32, k4*mq), sum1: make([]int64, rows)}
		var quad [4]int8
		for r := range rows {
			row := a[(r0+r)*k : (r0+r+1)*k]
			var sum int64
			for i := range k4 {
				quad = [4]int8{}
				copy(quad[:], row[4*i:min(4*i+4, k)])
				g.p[i*mq+r] = packDword(quad[:])
				sum += int64(quad[0]) + int64(quad[1]) + int64(quad[2]) + int64(quad[3])
			}
			g.sum1[r] = sum
		}
		groups = append(groups, g)
	}
	return groups
}
