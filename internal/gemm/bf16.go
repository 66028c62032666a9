package gemm

import (
	"fmt"
	"math"
)

// Weight-only bfloat16. A right-hand side of bfloat16 values (their bit
// patterns, uint16: the high half of an f32) is packed like an f32 one,
// panels of NR columns, but with k in pairs: panel [K/2][NR][2], so that
// the 32 bits at (k/2, j) hold B[k][j] (low half, k even) and B[k+1][j]
// (high half). The bf16 kernels widen in registers: a shift left by 16
// gives the even k's row of NR values as f32, a mask of the high halves
// the odd k's (exact), and the FMA chains are then the f32 kernel's on
// the widened weight: same bits (TestBF16MatchesWidened). K must be even
// (every linear layer's is); the pair layout is also what VDPBF16PS reads.

// PackedBF16 is a bfloat16 right-hand side [K, N] packed for the bf16
// kernels: panels of NR columns (the last zero-padded), each [K/2][NR][2].
type PackedBF16 struct {
	K, N int

	kern *kernel  // the kernel set the layout is for (its NR)
	data []uint16 // [ceil(N/NR)][K/2][NR][2]
}

// WidenBF16 is the f32 value of a bfloat16 bit pattern (exact).
func WidenBF16(u uint16) float32 { return math.Float32frombits(uint32(u) << 16) }

// PackBBF16 packs the bfloat16 b [K, N] (transB=false: element (k,n) at
// b[k*ldb+n]; transB=true: b is [N, K], element (k,n) at b[n*ldb+k]) into
// new storage. K must be even.
func PackBBF16(b []uint16, k, n, ldb int, transB bool) *PackedBF16 {
	return packBBF16(defaultKernelBF16(), b, k, n, ldb, transB)
}

func packBBF16(kern *kernel, b []uint16, k, n, ldb int, transB bool) *PackedBF16 {
	if k%2 != 0 {
		panic(fmt.Sprintf("gemm: PackBBF16: K = %d is odd", k))
	}
	rows, cols := k, n
	if transB {
		rows, cols = n, k
	}
	checkMatrix16("PackBBF16: b", b, rows, cols, ldb)
	nr := kern.nr
	pb := &PackedBF16{K: k, N: n, kern: kern, data: make([]uint16, (n+nr-1)/nr*k*nr)}
	for j0 := 0; j0 < n; j0 += nr {
		panel := pb.data[j0*k : j0*k+k*nr]
		for c := 0; c < min(nr, n-j0); c++ {
			for kk := range k {
				if transB {
					panel[pairIndex(kk, c, nr)] = b[(j0+c)*ldb+kk]
				} else {
					panel[pairIndex(kk, c, nr)] = b[kk*ldb+j0+c]
				}
			}
		}
	}
	return pb
}

// pairIndex is where B[k][c] lies in a panel of width nr.
func pairIndex(k, c, nr int) int { return (k/2)*2*nr + 2*c + k%2 }

// InPlaceOKBF16 reports whether a bfloat16 weight [n, k] can be packed in
// place: n a multiple of the bf16 kernels' NR, k even.
func InPlaceOKBF16(n, k int) bool {
	return n > 0 && k > 0 && n%defaultKernelBF16().nr == 0 && k%2 == 0
}

// PackInPlaceBF16 packs w, a row-major bfloat16 weight [n, k] (B = wᵀ),
// in its own storage on up to threads goroutines, as PackInPlace does for
// f32. It panics unless InPlaceOKBF16(n, k) and len(w) == n·k.
func PackInPlaceBF16(w []uint16, n, k, threads int) *PackedBF16 {
	return packInPlaceBF16(defaultKernelBF16(), w, n, k, threads)
}

func packInPlaceBF16(kern *kernel, w []uint16, n, k, threads int) *PackedBF16 {
	checkInPlaceBF16("PackInPlaceBF16", kern, len(w), n, k)
	nr := kern.nr
	perPanelBF16(n/nr, k*nr, threads, func(tmp []uint16, p int) {
		panel := w[p*k*nr : (p+1)*k*nr]
		copy(tmp, panel) // NR rows of k
		for c := range nr {
			row := tmp[c*k : (c+1)*k]
			for kk := 0; kk < k; kk += 2 {
				panel[kk*nr+2*c], panel[kk*nr+2*c+1] = row[kk], row[kk+1]
			}
		}
	})
	return &PackedBF16{K: k, N: n, kern: kern, data: w}
}

// Unpack rewrites pb's data, packed by PackInPlaceBF16, back to the
// weight [N, K] row-major and returns it; pb must not be used afterwards.
func (pb *PackedBF16) Unpack(threads int) []uint16 {
	nr, k := pb.kern.nr, pb.K
	checkInPlaceBF16("Unpack", pb.kern, len(pb.data), pb.N, k)
	w := pb.data
	perPanelBF16(pb.N/nr, k*nr, threads, func(tmp []uint16, p int) {
		panel := w[p*k*nr : (p+1)*k*nr]
		copy(tmp, panel)
		unpackPanelBF16(panel, tmp, k, nr)
	})
	pb.data = nil
	return w
}

// UnpackTo writes the weight [N, K] row-major that pb holds (packed in
// place) into dst (len N·K), leaving pb packed.
func (pb *PackedBF16) UnpackTo(dst []uint16) {
	nr, k := pb.kern.nr, pb.K
	checkInPlaceBF16("UnpackTo", pb.kern, len(dst), pb.N, k)
	for p := range pb.N / nr {
		unpackPanelBF16(dst[p*nr*k:(p+1)*nr*k], pb.data[p*k*nr:(p+1)*k*nr], k, nr)
	}
}

// unpackPanelBF16 writes panel [k/2][nr][2] back as nr rows of k values.
func unpackPanelBF16(rows, panel []uint16, k, nr int) {
	for c := range nr {
		row := rows[c*k : (c+1)*k]
		for kk := 0; kk < k; kk += 2 {
			row[kk], row[kk+1] = panel[kk*nr+2*c], panel[kk*nr+2*c+1]
		}
	}
}

// WidenRowTo sets dst (len K) to column j of B widened to f32: row j of
// the weight [N, K] pb holds (an embedding row gathered from a tied LM
// head that is packed).
func (pb *PackedBF16) WidenRowTo(dst []float32, j int) {
	nr, k := pb.kern.nr, pb.K
	if j < 0 || j >= pb.N || len(dst) != k {
		panic(fmt.Sprintf("gemm: WidenRowTo: row %d of %d, dst len %d, want %d", j, pb.N, len(dst), k))
	}
	panel := pb.data[(j/nr)*k*nr : (j/nr+1)*k*nr]
	c := j % nr
	for kk := 0; kk < k; kk += 2 {
		dst[kk] = WidenBF16(panel[kk*nr+2*c])
		dst[kk+1] = WidenBF16(panel[kk*nr+2*c+1])
	}
}

// checkInPlaceBF16 panics unless a bf16 weight of size values is [n, k]
// with n a multiple of kern's NR and k even.
func checkInPlaceBF16(what string, kern *kernel, size, n, k int) {
	if n <= 0 || k <= 0 || n%kern.nr != 0 || k%2 != 0 || size != n*k {
		panic("gemm: " + what + ": want a bf16 weight [n, k] with n a positive multiple of the panel width, k even and n·k values")
	}
}

// checkMatrix16 is checkMatrix for bfloat16 storage.
func checkMatrix16(what string, s []uint16, rows, cols, ld int) {
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

// perPanelBF16 is perPanel with bf16 scratch.
func perPanelBF16(np, size, threads int, f func(tmp []uint16, p int)) {
	runPanels(np, threads, func(p0, p1 int) {
		tmp := make([]uint16, size)
		for p := p0; p < p1; p++ {
			f(tmp, p)
		}
	})
}

// MatMulBF16 sets c[i*ldc+j] = Σ_k a[i*lda+k]·B[k,j] for i < m, j < N,
// with B bfloat16 widened to f32: each element the same fused
// multiply-add chain, in k order from +0, as MatMul on the widened B
// (same bits, whatever m, threads or the kernel).
func MatMulBF16(c []float32, ldc int, a []float32, lda, m int, b *PackedBF16, threads int) {
	if b == nil {
		panic("gemm: MatMulBF16: nil PackedBF16")
	}
	if m < 0 {
		panic(fmt.Sprintf("gemm: MatMulBF16: m = %d < 0", m))
	}
	checkMatrix("MatMulBF16: a", a, m, b.K, lda)
	checkMatrix("MatMulBF16: c", c, m, b.N, ldc)
	if m == 0 || b.N == 0 {
		return
	}
	if b.K == 0 {
		for i := range m {
			clear(c[i*ldc : i*ldc+b.N])
		}
		return
	}
	j := &jobBF16{c: c, ldc: ldc, a: a, lda: lda, m: m, b: b}
	kn := b.kern
	split(kn.mr, kn.nr, m, b.N, b.K, threads, j.run)
}

// RowsF32 writes rows [j0, j1) of the weight [N, K] that pb holds
// (columns of the packed right-hand side), widened to float32, into dst
// ([j1−j0][K]).
func (pb *PackedBF16) RowsF32(j0, j1 int, dst []float32) {
	nr, k := pb.kern.nr, pb.K
	for j := j0; j < j1; j++ {
		p, c := j/nr, 2*(j%nr)
		panel := pb.data[p*k*nr+c : (p+1)*k*nr] // row j's pair at kk is panel[kk·NR:]
		row := dst[(j-j0)*k : (j-j0+1)*k]
		for kk := 0; kk+1 < len(row); kk += 2 {
			v := panel[kk*nr : kk*nr+2]
			row[kk], row[kk+1] = WidenBF16(v[0]), WidenBF16(v[1])
		}
	}
}
