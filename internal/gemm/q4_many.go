package gemm

import "sync"

//go:generate go run gen_q4many.go

// Products of many rows (prefill, scoring) with a packed 4-bit weight, in
// the lookup kernels' arithmetic (q4Emulate), so that a row's result does
// not depend on how many rows are computed with it: decode's one row, a
// batch's few and a scoring pass's thousands give the same bits. A tile
// of columns is dequantized once (the lookup kernels' own lookups, stored
// in their order: q4DeqAVX512), and a register tile of rows × columns
// multiplies it, each output in two accumulators of a step's lanes as the
// lookup kernels keep them, with the activations prepared in the same
// order (prepQ4A).

// q4ManyMinRows is the fewest rows MatMulQ4 runs through the many-row
// kernels; fewer take the lookup kernels (a column's codes read once for
// one or four rows), which need no dequantized tile.
const q4ManyMinRows = 9

// q4ManyTmp is the scratch floats a tile kernel takes: one zmm register
// of each of q4Many4x6AVX512's 24 outputs.
const q4ManyTmp = 24 * 16

// q4ManyKernels are a micro-kernel's many-row 4-bit kernels.
type q4ManyKernels struct {
	rows, cols int // a register tile's outputs
	// order is the order of a step's values in the prepared activations
	// and the dequantized tile: the lookup kernels' (q4Kernels.order), or
	// q4ManyOrder of it.
	order []int
	// tile computes rows × cols outputs c[r·ldc + j] over k values of
	// rows of prepared activations at a ([K/step][rows][step]: prepQ4A's
	// groups) and columns of dequantized values at w ([K/step][cols][step]),
	// both in the step order: each operand is one stream. Each output has
	// two accumulators: pass 0 computes the first into tmp (q4ManyTmp
	// floats), pass 1 the second, adding tmp's, and stores the outputs.
	tile func(k int, a, w, c *float32, ldc int, tmp *float32, pass int)
	// deq writes ncols columns' dequantized values, in the step order, to
	// c, a step ldc floats after the one before (the lookup kernels'
	// frame; a unused).
	deq q4Frame[float32]
}

// q4ManyRowBlock is the rows a many-row product prepares at a time:
// about 4 MiB of activations, at least 48.
func q4ManyRowBlock(k int) int { return max(48, (1<<20)/k) }

// q4ManyTileCols is the columns dequantized at a time (a multiple of
// cols): about 512 KiB of float32, so a tile stays in L2 while the rows
// pass over it.
func q4ManyTileCols(k, cols int) int { return max(cols, (1<<17)/k/cols*cols) }

// q4ManyOrder is a step order with its four vectors (of len/4 values)
// in the order t 0, 2, 1, 3: where a vector is half a cache line
// (AVX2), the passes over the even and the odd vectors then read whole
// lines of their own.
func q4ManyOrder(order []int) []int {
	v := len(order) / 4
	out := make([]int, 0, len(order))
	for _, t := range []int{0, 2, 1, 3} {
		out = append(out, order[t*v:(t+1)*v]...)
	}
	return out
}

// matMulQ4Many is MatMulQ4 through kn's many-row kernels (kn.many set,
// kn.fits(b), arguments checked).
func matMulQ4Many(kn *q4Kernels, c []float32, ldc int, a []float32, lda, m int, b *PackedQ4, threads int) {
	mk, grp := kn.many, newQ4Group(kn, b)
	rb := q4ManyRowBlock(b.K)
	p := getPooled[float32](&q4ManyPrep, roundUp(min(m, rb), mk.rows)*b.K)
	defer q4ManyPrep.Put(p)
	for r0 := 0; r0 < m; r0 += rb {
		r1 := min(m, r0+rb)
		prep := (*p)[:roundUp(r1-r0, mk.rows)*b.K]
		clear(prep[(r1-r0)/mk.rows*mk.rows*b.K:]) // the last group's missing rows
		groups := (r1 - r0 + mk.rows - 1) / mk.rows
		shareOut(groups, max(1, groups/(4*threads)), threads, false, func(g0, g1 int) {
			for g := r0 + g0*mk.rows; g < min(r1, r0+g1*mk.rows); g += mk.rows {
				prepQ4A(prep[(g-r0)*b.K:], a, lda, g, min(r1, g+mk.rows), mk.rows, mk.order, b.K)
			}
		})
		q4Parallel(b.N, (r1-r0)*b.N*b.K, threads, func(n0, n1 int) {
			q4ManyCols(grp, prep, c[r0*ldc:], ldc, r1-r0, n0, n1)
		})
	}
}

// q4ManyCols computes columns [n0, n1) of grp's product for m rows whose
// activations are prepared in prep (groups of mk.rows, the last padded
// with zeros), a tile of columns at a time.
func q4ManyCols(grp *q4Group, prep, c []float32, ldc, m, n0, n1 int) {
	kn, b := grp.kn, grp.b
	mk := kn.many
	most := q4ManyTileCols(b.K, mk.cols)
	tiles := (n1 - n0 + most - 1) / most
	tc := roundUp((n1-n0+tiles-1)/tiles, mk.cols) // even tiles, no thin last one
	wp := getPooled[float32](&q4ManyTiles, tc*b.K+tc/mk.cols*q4ManyTmp)
	defer q4ManyTiles.Put(wp)
	w, tmp := (*wp)[:tc*b.K], (*wp)[tc*b.K:] // the tile, the kernels' scratch
	var out [24]float32                      // a register tile's outputs, where the tile is partial
	for t0 := n0; t0 < n1; t0 += tc {
		t1 := min(n1, t0+tc)
		cols := roundUp(t1-t0, mk.cols)
		clear(w[(t1-t0)/mk.cols*mk.cols*b.K : cols*b.K]) // the last group's missing columns
		for j := t0; j < t1; j++ {
			g, i := (j-t0)/mk.cols, (j-t0)%mk.cols
			q4DeqCol(grp, j, w[(g*mk.cols*b.K)+i*kn.step:], mk.cols*kn.step)
		}
		for r := 0; r < m; r += mk.rows {
			// A pass over the tile's columns reads half the rows' values,
			// which stay in L1 meanwhile.
			for j := 0; j < cols; j += mk.cols {
				mk.tile(b.K, &prep[r*b.K], &w[j*b.K], nil, 0, &tmp[j/mk.cols*q4ManyTmp], 0)
			}
			for j := 0; j < cols; j += mk.cols {
				n, part := min(mk.cols, t1-t0-j), &tmp[j/mk.cols*q4ManyTmp]
				if n == mk.cols && r+mk.rows <= m {
					mk.tile(b.K, &prep[r*b.K], &w[j*b.K], &c[r*ldc+t0+j], ldc, part, 1)
					continue
				}
				mk.tile(b.K, &prep[r*b.K], &w[j*b.K], &out[0], mk.cols, part, 1)
				for i := range min(mk.rows, m-r) {
					copy(c[(r+i)*ldc+t0+j:(r+i)*ldc+t0+j+n], out[i*mk.cols:])
				}
			}
		}
	}
}

// q4DeqCol writes column n's dequantized values in the step order (step
// values a step, each stride floats after the one before) to dst.
func q4DeqCol(grp *q4Group, n int, dst []float32, stride int) {
	callQ4(grp.kn.many.deq, grp.kn.step, grp, n, 1, nil, &dst[0], stride)
}

// b2i is 1 for true and 0 for false (the kernels' flag arguments).
func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// roundUp is n rounded up to a multiple of d.
func roundUp(n, d int) int { return (n + d - 1) / d * d }

// q4ManyPrep and q4ManyTiles pool the prepared activations (of the lookup
// kernels too) and the many-row path's dequantized tiles (with the tile kernels' scratch): a
// new slice per call let a scoring run's heap grow by hundreds of MB.
var q4ManyPrep, q4ManyTiles sync.Pool

// getPooled returns a slice of n values (contents undefined) from pool,
// or a new one.
func getPooled[T any](pool *sync.Pool, n int) *[]T {
	p, _ := pool.Get().(*[]T)
	if p == nil || cap(*p) < n {
		s := make([]T, n)
		return &s
	}
	*p = (*p)[:n]
	return p
}
