package gemm

import (
	"fmt"
)

// PackedB is a right-hand side [K, N] laid out once for the micro-kernel:
// panels of NR columns (the last zero-padded to NR), each panel K×NR with
// the column index fastest, so a K block of a panel is contiguous.
type PackedB struct {
	K, N int

	kern *kernel   // the micro-kernel the layout is for (its NR)
	data []float32 // [ceil(N/NR)][K][NR]
}

// PackB packs b. transB=false: b is [K, N] row-major (element (k,n) at
// b[k*ldb+n]); transB=true: b is [N, K] row-major (element (k,n) at
// b[n*ldb+k]). ldb is the row stride of b as stored.
func PackB(b []float32, k, n, ldb int, transB bool) *PackedB {
	return packB(defaultKernel(), b, k, n, ldb, transB)
}

// PackedSize is the number of floats a packed [k, n] right-hand side
// takes (the storage PackBInto needs).
func PackedSize(k, n int) int {
	nr := defaultKernel().nr
	return (n + nr - 1) / nr * k * nr
}

// PackBInto is PackB with the packed storage given: dst must hold at least
// PackedSize(k, n) floats, and the PackedB uses it until the caller reuses
// dst (scratch for right-hand sides packed per call).
func PackBInto(dst, b []float32, k, n, ldb int, transB bool) *PackedB {
	return PackBIntoThreads(dst, b, k, n, ldb, transB, 1)
}

// PackBIntoThreads is PackBInto on up to threads goroutines (panels split
// between them; the layout is the same).
func PackBIntoThreads(dst, b []float32, k, n, ldb int, transB bool, threads int) *PackedB {
	size := PackedSize(k, n)
	if len(dst) < size {
		panic(fmt.Sprintf("gemm: PackBInto: dst has %d floats, needs %d", len(dst), size))
	}
	return packBInto(defaultKernel(), dst[:size], b, k, n, ldb, transB, threads)
}

// packB packs b for kern (see PackB).
func packB(kern *kernel, b []float32, k, n, ldb int, transB bool) *PackedB {
	np := (n + kern.nr - 1) / kern.nr
	return packBInto(kern, make([]float32, np*k*kern.nr), b, k, n, ldb, transB, 1)
}

// packBInto packs b for kern into data (exactly the packed size), its
// panels split over up to threads goroutines when there are enough.
func packBInto(kern *kernel, data, b []float32, k, n, ldb int, transB bool, threads int) *PackedB {
	rows, cols := k, n
	if transB {
		rows, cols = n, k
	}
	checkMatrix("PackB: b", b, rows, cols, ldb)
	pb := &PackedB{K: k, N: n, kern: kern, data: data}
	if n%kern.nr != 0 {
		clear(data[(n/kern.nr)*k*kern.nr:]) // the padded columns of the last panel
	}
	pack := pb.packRowMajor
	if transB {
		pack = pb.packTransposed
	}
	np := (n + kern.nr - 1) / kern.nr
	if k*n < minParallel {
		threads = 1
	}
	t := max(1, min(threads, np))
	RunTeam(t, func(w int) { pack(b, ldb, np*w/t, np*(w+1)/t) })
	return pb
}

// packRowMajor packs panels [p0, p1) of b [K, N] a band of 64 rows at a
// time, so that the rows being read stay few (TLB) and each panel is
// written 64 rows at once.
func (pb *PackedB) packRowMajor(b []float32, ldb, p0, p1 int) {
	k, n, nr := pb.K, pb.N, pb.kern.nr
	for k0 := 0; k0 < k; k0 += 64 {
		k1 := min(k0+64, k)
		for j0 := p0 * nr; j0 < min(n, p1*nr); j0 += nr {
			panel := pb.data[j0*k:] // panel j0/nr starts at (j0/nr)·K·NR = j0·K
			w := min(nr, n-j0)
			for kk := k0; kk < k1; kk++ {
				copy(panel[kk*nr:kk*nr+w], b[kk*ldb+j0:kk*ldb+j0+w])
			}
		}
	}
}

// packTransposed packs panels [p0, p1) of b [N, K] (row j is column j of
// B), each one row of the panel (NR values, one from each of NR source
// rows) at a time: the writes are contiguous and the NR source lines stay
// in L1 (2.8 GB/s at 4864 × 896 on one Zen 3 core, against 2.0 writing
// each source row down a column of the panel).
func (pb *PackedB) packTransposed(b []float32, ldb, p0, p1 int) {
	k, n, nr := pb.K, pb.N, pb.kern.nr
	for j0 := p0 * nr; j0 < min(n, p1*nr); j0 += nr {
		packPanelT(pb.data[j0*k:j0*k+k*nr], b[j0*ldb:], ldb, k, nr, min(nr, n-j0))
	}
}

// packPanelT packs w rows of k floats (row j at rows[j·ldb:]) into panel
// [k][nr], columns w… left as they are.
func packPanelT(panel, rows []float32, ldb, k, nr, w int) {
	for kk := range k {
		dst := panel[kk*nr : kk*nr+w]
		for j := range dst {
			dst[j] = rows[j*ldb+kk]
		}
	}
}

// unpackPanel writes panel [k][nr] back as nr rows of k floats in rows.
func unpackPanel(rows, panel []float32, k, nr int) {
	for j := range nr {
		row := rows[j*k : (j+1)*k]
		for kk := range row {
			row[kk] = panel[kk*nr+j]
		}
	}
}

// MatMul sets c[i*ldc+j] = sum over k of a[i*lda+k]*B[k,j] for i<m, j<N
// (overwrites c; reads back only the partial sums it wrote). Each element is one fused multiply-add
// chain over k = 0..K-1 in order, starting from +0, whatever m, threads or
// the kernel. threads ≤ 1 runs on the calling goroutine; otherwise work is
// split over up to threads goroutines. MatMul is safe for concurrent use.
func MatMul(c []float32, ldc int, a []float32, lda, m int, b *PackedB, threads int) {
	if b == nil {
		panic("gemm: MatMul: nil PackedB")
	}
	matMul(c, ldc, a, lda, m, b, threads)
}

func matMul(c []float32, ldc int, a []float32, lda, m int, b *PackedB, threads int) {
	if m < 0 {
		panic(fmt.Sprintf("gemm: MatMul: m = %d < 0", m))
	}
	checkMatrix("MatMul: a", a, m, b.K, lda)
	checkMatrix("MatMul: c", c, m, b.N, ldc)
	if m == 0 || b.N == 0 {
		return
	}
	if b.K == 0 {
		for i := 0; i < m; i++ {
			clear(c[i*ldc : i*ldc+b.N])
		}
		return
	}
	j := &job{c: c, ldc: ldc, a: a, lda: lda, m: m, b: b}
	j.parallel(threads)
}

// checkMatrix panics unless s holds a rows×cols matrix at row stride ld.
func checkMatrix(what string, s []float32, rows, cols, ld int) {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("gemm: %s: negative shape [%d, %d]", what, rows, cols))
	}
	if ld < cols {
		panic(fmt.Sprintf("gemm: %s: row stride %d < %d columns", what, ld, cols))
	}
	if rows > 0 && cols > 0 && len(s) < (rows-1)*ld+cols {
		panic(fmt.Sprintf("gemm: %s: len %d < %d for [%d, %d] at stride %d",
			what, len(s), (rows-1)*ld+cols, rows, cols, ld))
	}
}
