package gemm

import "fmt"

// PackedQ4 is a K×N weight B held as 4-bit codes, the form decode reads
// (a quarter of bf16's bytes): column n of B is K codes, two per byte
// (element k in byte k/2, the high nibble when k is even), contiguous,
// which is row n of a Hugging Face [out, in] weight as bitsandbytes packs
// it. Each value is
//
//	B[k, n] = Table[q] · Scale[g] + Offset[g],   g = (n·K + k) / Block
//
// nf4 and fp4 (bitsandbytes) have their code book as Table and no
// Offset; GPTQ/AWQ int4 would have Table = {0, …, 15}, Scale the group's
// scale and Offset −zero·scale (a group is Block consecutive values along
// K, so K must be a multiple of Block).
type PackedQ4 struct {
	K, N   int
	Block  int
	Codes  []byte      // [N, K/2]
	Scale  []float32   // [N·K/Block]
	Offset []float32   // [N·K/Block] or nil
	Table  [16]float32 // value of each code before scaling
}

// Validate reports an inconsistent PackedQ4.
func (b *PackedQ4) Validate() error {
	switch {
	case b.K <= 0 || b.N <= 0 || b.Block <= 0 || b.Block%2 != 0:
		return fmt.Errorf("gemm: PackedQ4: bad shape K=%d N=%d block %d", b.K, b.N, b.Block)
	case b.K%b.Block != 0:
		return fmt.Errorf("gemm: PackedQ4: K=%d is not a multiple of block %d", b.K, b.Block)
	case len(b.Codes) != b.N*b.K/2:
		return fmt.Errorf("gemm: PackedQ4: %d code bytes, want %d", len(b.Codes), b.N*b.K/2)
	case len(b.Scale) != b.N*b.K/b.Block:
		return fmt.Errorf("gemm: PackedQ4: %d scales, want %d", len(b.Scale), b.N*b.K/b.Block)
	case b.Offset != nil && len(b.Offset) != len(b.Scale):
		return fmt.Errorf("gemm: PackedQ4: %d offsets, want %d", len(b.Offset), len(b.Scale))
	}
	return nil
}

// Dequantize writes B[k, n] into dst[n·K + k] ([N, K], a Hugging Face
// weight's layout), each value Table[q]·Scale[g] rounded once (plus
// Offset[g], rounded): the dequantize-at-load values.
func (b *PackedQ4) Dequantize(dst []float32) { b.DequantizeRows(dst, 0, b.N) }

// DequantizeRows is Dequantize for rows [n0, n1) of the [N, K] weight
// (columns n0 … n1−1 of B) into dst[(n − n0)·K + k].
func (b *PackedQ4) DequantizeRows(dst []float32, n0, n1 int) {
	dst = dst[:(n1-n0)*b.K]
	base := n0 * b.K
	for j := range dst {
		i := base + j
		q := b.Codes[i>>1] >> 4
		if i&1 == 1 {
			q = b.Codes[i>>1] & 0xF
		}
		g := i / b.Block
		v := float32(b.Table[q] * b.Scale[g])
		if b.Offset != nil {
			v = float32(v + b.Offset[g])
		}
		dst[j] = v
	}
}

// MatMulQ4 sets C = A·B for A [m, K] (row stride lda), C [m, N] (row
// stride ldc) and a packed 4-bit B, reading B's codes directly, meant for
// decode's few rows. Columns split over up to threads goroutines. Where
// the CPU's kernel has 4-bit kernels and B's block is a whole number of
// their steps (q4_kernel.go), each product is of a with the dequantized
// value itself (the block's table scaled in registers); else the portable
// loop scales per block the sum of a·Table[q] (plus Offset times the
// block's sum of a). Either way results differ from a product with the
// dequantized B by f32 rounding only.
func MatMulQ4(c []float32, ldc int, a []float32, lda, m int, b *PackedQ4, threads int) {
	if err := b.Validate(); err != nil {
		panic(err)
	}
	checkMatrix("MatMulQ4: a", a, m, b.K, lda)
	checkMatrix("MatMulQ4: c", c, m, b.N, ldc)
	if kn := defaultKernel().q4; kn != nil && kn.fits(b) {
		matMulQ4Kern(kn, c, ldc, a, lda, m, b, threads)
		return
	}
	matMulQ4Go(c, ldc, a, lda, m, b, threads)
}

// matMulQ4Go is MatMulQ4's portable path (arguments checked).
func matMulQ4Go(c []float32, ldc int, a []float32, lda, m int, b *PackedQ4, threads int) {
	q4Parallel(b.N, m*b.N*b.K, threads, func(n0, n1 int) {
		for r := range m {
			q4Row(c[r*ldc:r*ldc+b.N], a[r*lda:r*lda+b.K], b, n0, n1)
		}
	})
}

// q4Row computes c[n] = a·B[:, n] for n in [n0, n1).
func q4Row(c, a []float32, b *PackedQ4, n0, n1 int) {
	var table [256][2]float32 // a byte's two values, high nibble first
	for i := range table {
		table[i] = [2]float32{b.Table[i>>4], b.Table[i&0xF]}
	}
	bpr := b.K / b.Block // blocks per column
	for n := n0; n < n1; n++ {
		codes := b.Codes[n*b.K/2 : (n+1)*b.K/2]
		var sum float32
		for blk := range bpr {
			g := n*bpr + blk
			lo := blk * b.Block
			s := q4BlockDot(a[lo:lo+b.Block], codes[lo/2:(lo+b.Block)/2], &table)
			sum += s * b.Scale[g]
			if b.Offset != nil {
				var as float32
				for _, v := range a[lo : lo+b.Block] {
					as += v
				}
				sum += as * b.Offset[g]
			}
		}
		c[n] = sum
	}
}

// q4BlockDot is Σ a[k]·Table[q_k] over one block (len(a) = 2·len(codes),
// a multiple of 8 values or a tail of pairs), in four interleaved f32
// chains.
func q4BlockDot(a []float32, codes []byte, table *[256][2]float32) float32 {
	var s0, s1, s2, s3 float32
	a = a[:2*len(codes)]
	for len(codes) >= 4 {
		x, c := a[:8:8], codes[:4:4]
		t0, t1, t2, t3 := &table[c[0]], &table[c[1]], &table[c[2]], &table[c[3]]
		s0 += x[0]*t0[0] + x[4]*t2[0]
		s1 += x[1]*t0[1] + x[5]*t2[1]
		s2 += x[2]*t1[0] + x[6]*t3[0]
		s3 += x[3]*t1[1] + x[7]*t3[1]
		a, codes = a[8:], codes[4:]
	}
	for i, q := range codes {
		t := &table[q]
		s0 += a[2*i] * t[0]
		s1 += a[2*i+1] * t[1]
	}
	return (s0 + s1) + (s2 + s3)
}
