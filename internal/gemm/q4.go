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
	// RoundBF16: each value is then rounded to the nearest bfloat16
	// (ties to even), as a weight-only bf16 load holds it.
	RoundBF16 bool
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
// Offset[g], rounded; then to bfloat16 with RoundBF16): the
// dequantize-at-load values.
func (b *PackedQ4) Dequantize(dst []float32) { b.DequantizeRows(dst, 0, b.N) }

// DequantizeRows is Dequantize for rows [n0, n1) of the [N, K] weight
// (columns n0 … n1−1 of B) into dst[(n − n0)·K + k].
func (b *PackedQ4) DequantizeRows(dst []float32, n0, n1 int) {
	dst = dst[:(n1-n0)*b.K]
	var tbl [16]float32
	for blk := 0; blk < len(dst); blk += b.Block {
		g := (n0*b.K + blk) / b.Block
		b.blockTable(&tbl, g)
		codes := b.Codes[(n0*b.K+blk)/2:]
		for j := range b.Block / 2 {
			dst[blk+2*j], dst[blk+2*j+1] = tbl[codes[j]>>4], tbl[codes[j]&0xF]
		}
	}
}

// blockTable sets tbl to the dequantized value of each code in block g
// (each condition tested once per block, not per code: prefill's tiles
// make a table per 64 values).
func (b *PackedQ4) blockTable(tbl *[16]float32, g int) {
	b.scaledTable(tbl, g)
	if b.RoundBF16 {
		for q, v := range tbl {
			tbl[q] = WidenBF16(RoundBF16(v))
		}
	}
}

// scaledTable sets tbl to block g's values before any bfloat16 rounding:
// fl(fl(Table[q]·Scale) + Offset).
func (b *PackedQ4) scaledTable(tbl *[16]float32, g int) {
	s := b.Scale[g]
	for q, t := range b.Table {
		tbl[q] = float32(t * s)
	}
	if b.Offset != nil {
		o := b.Offset[g]
		for q, v := range tbl {
			tbl[q] = float32(v + o)
		}
	}
}

// cvtTable sets tbl to block g's values as VCVTNE2PS2BF16 converts its
// scaled table (the dot kernels' and the f32 kernels' bfloat16 lookups):
// rounded to bfloat16, a subnormal read as zero before and after.
func (b *PackedQ4) cvtTable(tbl *[16]float32, g int) {
	b.scaledTable(tbl, g)
	for q, v := range tbl {
		tbl[q] = daz(WidenBF16(RoundBF16(daz(v))))
	}
}

// MatMulQ4 sets C = A·B for A [m, K] (row stride lda), C [m, N] (row
// stride ldc) and a packed 4-bit B, reading B's codes directly. Columns
// split over up to threads goroutines. A row's result does not depend on
// m, on the other rows, on threads or on the columns computed with it.
// Where HasQ4Kernel(b), each output is its assembly kernels' fixed
// sequence (lanes over k: q4_kernel.go; one per kernel family, so AVX-512
// and AVX2 differ), within f32 rounding of the product with the
// dequantized B; else it is exactly that product's bits (MatMul's chain:
// fma in k order from +0).
func MatMulQ4(c []float32, ldc int, a []float32, lda, m int, b *PackedQ4, threads int) {
	if err := b.Validate(); err != nil {
		panic(err)
	}
	checkMatrix("MatMulQ4: a", a, m, b.K, lda)
	checkMatrix("MatMulQ4: c", c, m, b.N, ldc)
	if HasQ4Kernel(b) {
		matMulQ4Kern(defaultKernel().q4, c, ldc, a, lda, m, b, threads)
		return
	}
	matMulQ4Go(c, ldc, a, lda, m, b, threads)
}

// HasQ4Kernel reports whether MatMulQ4 runs b on assembly kernels: the
// CPU's kernel has 4-bit kernels and b's block is a whole number of their
// steps. Without them MatMulQ4 has the bits of MatMul with the
// dequantized b, so a caller may run many rows that way instead
// (PackQ4Into) and get the same results.
func HasQ4Kernel(b *PackedQ4) bool {
	kn := defaultKernel().q4
	return kn != nil && kn.fits(b)
}

// matMulQ4Go is MatMulQ4's portable path (arguments checked).
func matMulQ4Go(c []float32, ldc int, a []float32, lda, m int, b *PackedQ4, threads int) {
	q4Parallel(b.N, m*b.N*b.K, threads, func(n0, n1 int) {
		for r := range m {
			q4Row(c[r*ldc:r*ldc+b.N], a[r*lda:r*lda+b.K], b, n0, n1)
		}
	})
}

// q4Row computes c[n] = a·B[:, n] for n in [n0, n1) as MatMul does with
// the dequantized B: one fma32 chain in k order from +0, each block's
// values from its table (blockTable).
func q4Row(c, a []float32, b *PackedQ4, n0, n1 int) {
	var tbl [16]float32
	bpr := b.K / b.Block // blocks per column
	for n := n0; n < n1; n++ {
		codes := b.Codes[n*b.K/2 : (n+1)*b.K/2]
		var s float32
		for blk := range bpr {
			b.blockTable(&tbl, n*bpr+blk)
			for k := blk * b.Block; k < (blk+1)*b.Block; k += 2 {
				q := codes[k/2]
				s = fma32(a[k], tbl[q>>4], s)
				s = fma32(a[k+1], tbl[q&0xF], s)
			}
		}
		c[n] = s
	}
}
