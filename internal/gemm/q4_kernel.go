package gemm

// The assembly path of MatMulQ4. For up to eight rows a kernel reads
// each column's codes once for one or four rows of activations, looks the
// codes up in the block's scaled table in registers and accumulates f32
// FMAs, two accumulators a row; the activations are prepared once per call
// (prepQ4A) in the order the lookups yield the values of a step. More rows
// take the many-row kernels (q4_many.go), in the same arithmetic. A weight
// held in bfloat16 is looked up as bfloat16 words where the CPU has
// AVX512_BF16 (cvt): the same values in the same order, so the same
// arithmetic, in fewer shuffles.

// q4Kernels are a micro-kernel's packed 4-bit decode kernels.
type q4Kernels struct {
	step      int    // values a kernel step reads (step/2 code bytes)
	order     []int  // the k (within the step) of each value a step yields
	one, four q4Cols // for one row and for four
	// cvt: a weight held in bfloat16 takes the kernels' bfloat16 lookups
	// (round 2: the block's table converted by VCVTNE2PS2BF16 and looked
	// up as words; a subnormal value before or after rounding reads as
	// zero, kernelTable), not its rounding in f32 registers (round 1).
	cvt bool
	// swapQuads: the kernels read the raw table with its middle quads
	// swapped (T0–3, T8–11, T4–7, T12–15: q4Group.rawTable), the AVX2
	// byte lookups' order.
	swapQuads bool
	// many: the kernels of products of many rows (q4_many.go), in the
	// same arithmetic.
	many *q4ManyKernels
	// dot: the VDPBF16PS kernels (MatMulQ4Dot; nil where the CPU has
	// none), steps of q4DotStep values in q4DotOrder.
	dot *q4DotKernels
}

// q4OrderAVX2 is the order of the AVX2 kernels' steps of 32 values
// (kernel_q4avx2_amd64.s): vector t, lane j holds k = 8t + 2j + 1 (the low
// nibble of code byte 4t + j) for j < 4 and k = 8t + 2(j − 4) (the high
// nibble of byte 4t + j − 4) for j ≥ 4, as its byte lookups' unpacks
// yield them.
func q4OrderAVX2() []int {
	order := make([]int, 32)
	for t := range 4 {
		for j := range 8 {
			k := 8*t + 2*j + 1
			if j >= 4 {
				k = 8*t + 2*(j-4)
			}
			order[t*8+j] = k
		}
	}
	return order
}

// q4Order512 is the order of the AVX-512 kernels' steps of 64 values
// (kernel_q4_amd64.s): vector t, lane j holds k = 4j + 1, 4j, 4j + 3 and
// 4j + 2 for t = 0, 1, 2, 3, the nibbles of the step's code bytes 2j and
// 2j + 1 as a word's shifts and a byte's word lookups both yield them.
func q4Order512() []int {
	order := make([]int, 64)
	for t, d := range []int{1, 0, 3, 2} {
		for j := range 16 {
			order[t*16+j] = 4*j + d
		}
	}
	return order
}

// roundArg is the kernels' round argument for b (kernel_q4_amd64.s): 0
// for values as scaled, 1 for values rounded to bfloat16 in f32
// registers, 2 for the bfloat16 lookups (k.cvt).
func (k *q4Kernels) roundArg(b *PackedQ4) int {
	switch {
	case !b.RoundBF16:
		return 0
	case k.cvt:
		return 2
	}
	return 1
}

// kernelTable sets tbl to the values k's kernels look block g of b up in:
// b.blockTable's, or b.cvtTable's where the kernels convert with
// VCVTNE2PS2BF16 (roundArg 2).
func (k *q4Kernels) kernelTable(tbl *[16]float32, b *PackedQ4, g int) {
	if k.roundArg(b) == 2 {
		b.cvtTable(tbl, g)
		return
	}
	b.blockTable(tbl, g)
}

// q4ColsOf computes columns [n0, n1) of g's product for the rows whose
// prepared activations are a (float32, or bfloat16 bits for the dot
// kernels), into c[r·ldc + j − n0].
type q4ColsOf[T float32 | uint16] func(g *q4Group, n0, n1 int, a []T, c []float32, ldc int)

// q4Cols are the f32 kernels' q4ColsOf.
type q4Cols = q4ColsOf[float32]

// q4Group is one product's kernels and weight.
type q4Group struct {
	kn *q4Kernels
	b  *PackedQ4
	// swapped is b.Table with its middle quads swapped where kn reads it
	// so (swapQuads): made once a product, not per kernel call.
	swapped [16]float32
}

// newQ4Group is kn's and b's q4Group.
func newQ4Group(kn *q4Kernels, b *PackedQ4) *q4Group {
	g := &q4Group{kn: kn, b: b}
	if kn.swapQuads {
		copy(g.swapped[0:4], b.Table[0:4])
		copy(g.swapped[4:8], b.Table[8:12])
		copy(g.swapped[8:12], b.Table[4:8])
		copy(g.swapped[12:16], b.Table[12:16])
	}
	return g
}

// rawTable is the raw table g's kernels read: b.Table, or swapped.
func (g *q4Group) rawTable() *float32 {
	if g.kn.swapQuads {
		return &g.swapped[0]
	}
	return &g.b.Table[0]
}

// q4Frame is the argument frame of the assembly 4-bit kernels, their
// activations float32 (kernel_q4_amd64.s, kernel_q4avx2_amd64.s) or
// bfloat16 bits (kernel_q4dot_amd64.s).
type q4Frame[T float32 | uint16] func(nblk, steps int, codes *byte, scale, offset, table *float32, a *T, c *float32, ldc, ncols, round int)

// callQ4 runs kernel f, whose steps read step values, over ncols columns
// of g's weight from column n0, with g's raw table and rounding.
func callQ4[T float32 | uint16](f q4Frame[T], step int, g *q4Group, n0, ncols int, a *T, c *float32, ldc int) {
	b := g.b
	bpr := b.K / b.Block
	var off *float32
	if b.Offset != nil {
		off = &b.Offset[n0*bpr]
	}
	f(bpr, b.Block/step, &b.Codes[n0*b.K/2], &b.Scale[n0*bpr], off, g.rawTable(), a, c, ldc, ncols, g.kn.roundArg(b))
}

// fits reports whether the kernels take b's blocks (whole steps).
func (k *q4Kernels) fits(b *PackedQ4) bool { return b.Block%k.step == 0 }

// q4PairsMinK is the K from which a one-row product runs two columns at
// a time: its activations (4·K bytes) then fill at least half of a
// 32 KiB L1 and loading them once for two columns pays (kernels that
// have a two-column form: kernel_q4_amd64.s); below it, one
// column at a time streams the codes faster (Zen 4, 2 threads, K 8192:
// 11.3–12.8 → 12.0–14.4 GB/s; K 2048: 11.1–12.2 → 9.0–10.9 GB/s).
const q4PairsMinK = 4096

// q4ColChunk is the columns a multi-row product computes per row group
// before the next group: their codes (K/2 bytes each) stay in L2.
const q4ColChunk = 64

// q4GroupBlock is the row groups (of four rows) a many-row product takes
// through all its columns before the next: their activations (K values
// a row) stay in L2 while the codes stream once per block.
const q4GroupBlock = 16

// matMulQ4Kern is MatMulQ4 through kn (kn.fits(b); arguments checked).
func matMulQ4Kern(kn *q4Kernels, c []float32, ldc int, a []float32, lda, m int, b *PackedQ4, threads int) {
	if m >= q4ManyMinRows && kn.many != nil {
		matMulQ4Many(kn, c, ldc, a, lda, m, b, threads)
		return
	}
	rows := q4GroupRows(m)
	groups := (m + rows - 1) / rows
	p := getPooled[float32](&q4ManyPrep, groups*rows*b.K)
	defer q4ManyPrep.Put(p)
	prep := *p
	clear(prep) // prepQ4A leaves a group's missing rows as they are
	for gi := range groups {
		prepQ4A(prep[gi*rows*b.K:(gi+1)*rows*b.K], a, lda, gi*rows, min(m, gi*rows+rows), rows, kn.order, b.K)
	}
	runQ4Cols(kn.one, kn.four, newQ4Group(kn, b), prep, c, ldc, m, threads)
}

// q4GroupRows is the rows a kernel call computes for m rows: 1 or 4.
func q4GroupRows(m int) int {
	if m > 1 {
		return 4
	}
	return 1
}

// runQ4Cols computes g's product for m rows whose activations are
// prepared in prep (groups of q4GroupRows(m) rows) with kernels one (one
// row) and four (four), splitting the columns over up to threads
// goroutines.
func runQ4Cols[T float32 | uint16](one, four q4ColsOf[T], g *q4Group, prep []T, c []float32, ldc, m, threads int) {
	b := g.b
	rows := q4GroupRows(m)
	groups := (m + rows - 1) / rows
	run := func(n0, n1 int) {
		if rows == 1 {
			one(g, n0, n1, prep, c[n0:n1], ldc)
			return
		}
		var scratch [4 * q4ColChunk]float32
		for g0 := 0; g0 < groups; g0 += q4GroupBlock {
			for c0 := n0; c0 < n1; c0 += q4ColChunk {
				c1 := min(c0+q4ColChunk, n1)
				for gi := g0; gi < min(groups, g0+q4GroupBlock); gi++ {
					four(g, c0, c1, prep[gi*4*b.K:(gi+1)*4*b.K], scratch[:], q4ColChunk)
					for r := gi * 4; r < min(m, gi*4+4); r++ {
						copy(c[r*ldc+c0:r*ldc+c1], scratch[(r-gi*4)*q4ColChunk:])
					}
				}
			}
		}
	}
	q4Parallel(b.N, m*b.N*b.K, threads, run)
}

// q4Parallel runs run over columns [0, n) on up to threads goroutines
// (the caller's among them; only the caller for a small product, work
// multiply-adds), which take slices of whole 64 columns in turn from a
// shared counter: where another process holds a core, the goroutine on
// the free one computes more of the product instead of the product
// waiting for a fixed half. No column's result depends on who computes it.
func q4Parallel(n, work, threads int, run func(n0, n1 int)) {
	threads = max(1, min(threads, n/64))
	if work < minParallel {
		threads = 1
	}
	if threads == 1 {
		run(0, n)
		return
	}
	shareOut(n, q4SliceCols(n, threads), threads, false, run)
}

// q4SliceCols is the columns q4Parallel hands out at a time: about an
// eighth of a goroutine's share, a multiple of 64, at least 64.
func q4SliceCols(n, threads int) int { return max(64, n/(8*threads)/64*64) }

// prepQ4A writes rows [r0, r1) of a (stride lda, k values) into dst as
// [k/S][rows][S] for steps of S = len(order) values, each step's values
// in order, as they are for the f32 kernels (T float32) or rounded to
// bfloat16 for the dot kernels (T uint16); rows past r1 stay as they are.
// The conversion is inlined per step: a call per value made this a fifth
// of a small decode product (8 µs of 37 for 512 × 2048).
func prepQ4A[T float32 | uint16](dst []T, a []float32, lda, r0, r1, rows int, order []int, k int) {
	w := len(order)
	for r := r0; r < r1; r++ {
		src := a[r*lda : r*lda+k]
		for j := range k / w {
			in := src[j*w : (j+1)*w]
			switch out := any(dst[(j*rows+r-r0)*w : (j*rows+r-r0+1)*w]).(type) {
			case []float32:
				for i, o := range order {
					out[i] = in[o]
				}
			case []uint16:
				for i, o := range order {
					out[i] = RoundBF16(in[o])
				}
			}
		}
	}
}
