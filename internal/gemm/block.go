package gemm

import "sync"

// job is one MatMul call: C[m, N] = A[m, K] · B.
type job struct {
	c      []float32
	ldc    int
	a      []float32
	lda, m int
	b      *PackedB
}

// scratch is one goroutine's working memory: packed A blocks and an edge
// tile.
type scratch struct {
	a    []float32 // [mc/mr][kc][mr]
	tile []float32 // [2·mr][nr]
	a16  []uint16  // a's bf16 pairs for the dot kernel (bf16dot.go), on first use
}

var scratchPool sync.Pool

func getScratch(kn *kernel) *scratch {
	s, _ := scratchPool.Get().(*scratch)
	if s == nil {
		s = &scratch{}
	}
	if n := kn.mc * kn.kc; len(s.a) < n {
		s.a = make([]float32, n)
	}
	if n := 2 * kn.mr * kn.nr; len(s.tile) < n { // 2·MR rows for narrow2
		s.tile = make([]float32, n)
	}
	return s
}

// run computes rows [r0, r1) × B panels [p0, p1) of C: the loop nest
// NC panel group → K block → MC row block (packed) → panel → MR tile.
func (j *job) run(r0, r1, p0, p1 int) {
	kn := j.b.kern
	s := getScratch(kn)
	defer scratchPool.Put(s)
	if j.direct() {
		j.runDirect(s, r0, r1, p0, p1)
		return
	}
	K := j.b.K
	kc := blockK(K, kn.kc)
	ncp := kn.nc / kn.nr
	for jc := p0; jc < p1; jc += ncp {
		je := min(jc+ncp, p1)
		for pc := 0; pc < K; pc += kc {
			kb := min(kc, K-pc)
			for ic := r0; ic < r1; ic += kn.mc {
				ie := min(ic+kn.mc, r1)
				packA(s.a, j.a, j.lda, ic, ie, pc, kb, kn.mr)
				j.panels(s, ic, ie, jc, je, pc, kb)
			}
		}
	}
}

// blockK splits K into equal blocks of at most kc (K=896, kc=256: 224).
func blockK(K, kc int) int {
	nb := (K + kc - 1) / kc
	return (K + nb - 1) / nb
}

// panels multiplies the packed A block (rows [ic, ie), K block [pc, pc+kb))
// by B panels [p0, p1), tile by tile: a B micro-panel stays in L1 while
// the A micro-panels stream from L2.
func (j *job) panels(s *scratch, ic, ie, p0, p1, pc, kb int) {
	kn := j.b.kern
	mr, nr, K, N := kn.mr, kn.nr, j.b.K, j.b.N
	load := pc > 0
	for p := p0; p < p1; p++ {
		bp := j.b.data[p*K*nr+pc*nr : p*K*nr+(pc+kb)*nr]
		col := p * nr
		w := min(nr, N-col)
		// The first tile of the panel prefetches the next B micro-panel.
		pf := hint{b: &bp[0]}
		if p+1 < p1 {
			pf.b = &j.b.data[(p+1)*K*nr+pc*nr]
		}
		for i := ic; i < ie; i += mr {
			ap := s.a[(i-ic)*kb : (i-ic+mr)*kb]
			pf.c = j.nextTile(i+mr, col, ie, ic, p1)
			if h := min(mr, j.m-i); h < mr || w < nr {
				j.edge(s.tile, ap, bp, kb, i, col, h, w, load, pf)
			} else {
				kn.run(kb, ap, bp, j.c[i*j.ldc+col:], j.ldc, load, pf)
			}
			pf.b = &bp[0]
		}
	}
}

// nextTile is the C tile after (i-MR, col) in panels' order, for prefetch.
func (j *job) nextTile(i, col, ie, ic, p1 int) *float32 {
	return nextTile(j.c, j.ldc, j.b.kern.nr, i, col, ie, ic, p1)
}

// nextTile is the C tile (row stride ldc) after (i-MR, col) in a row
// block [ic, ie) swept panel by panel up to panel p1, or nil.
func nextTile(c []float32, ldc, nr, i, col, ie, ic, p1 int) *float32 {
	if i >= ie {
		i, col = ic, col+nr
		if col >= p1*nr {
			return nil
		}
	}
	return &c[i*ldc+col]
}

// edge runs a tile with h < MR rows or w < NR columns in C through the
// scratch tile: the same kernel on zero-padded panels, so the same chains.
func (j *job) edge(tile, ap, bp []float32, kb, i, col, h, w int, load bool, pf hint) {
	nr := j.b.kern.nr
	tileIn(tile, nr, j.c, j.ldc, i, col, h, w, load)
	j.b.kern.run(kb, ap, bp, tile, nr, load, pf)
	tileOut(tile, nr, j.c, j.ldc, i, col, h, w)
}

// tileIn copies the h×w partial sums at C (i, col) (row stride ldc) into
// the edge tile (row stride nr) when load is set: a K block continues
// them.
func tileIn(tile []float32, nr int, c []float32, ldc, i, col, h, w int, load bool) {
	if load {
		for r := 0; r < h; r++ {
			copy(tile[r*nr:r*nr+w], c[(i+r)*ldc+col:])
		}
	}
}

// tileOut copies the h×w valid part of the edge tile to C (i, col).
func tileOut(tile []float32, nr int, c []float32, ldc, i, col, h, w int) {
	for r := 0; r < h; r++ {
		copy(c[(i+r)*ldc+col:(i+r)*ldc+col+w], tile[r*nr:])
	}
}

// packA packs rows [i0, i1) × columns [p0, p0+kb) of a into panels of mr
// rows, [panel][kb][mr] with the row index fastest; rows past i1 are zero.
func packA(dst, a []float32, lda, i0, i1, p0, kb, mr int) {
	for i := i0; i < i1; i += mr {
		panel := dst[(i-i0)*kb : (i-i0+mr)*kb]
		h := min(mr, i1-i)
		if h == 8 && mr == 8 {
			packA8(panel, a[i*lda+p0:], lda, kb)
			continue
		}
		for r := 0; r < h; r++ {
			src := a[(i+r)*lda+p0 : (i+r)*lda+p0+kb]
			for k, v := range src {
				panel[k*mr+r] = v
			}
		}
		for r := h; r < mr; r++ {
			for k := 0; k < kb; k++ {
				panel[k*mr+r] = 0
			}
		}
	}
}

// packA8 packs 8 full rows of kb columns from a (row r at a[r·lda:]) into
// panel, [kb][8]: k outermost, so each step writes one contiguous group of
// 8 and the 8 source rows are read in step (one element of each). On Zen 5
// (AVX-512, MR 8) this took bench score from 474 to 497 tok/s at 0.5B; the
// same for 6 rows (AVX2) measured no faster there, so MR 6 keeps the loop.
// Where AVX2 is, whole blocks of 8 columns are 8×8 transposes in registers
// (packA8AVX2, pack_amd64.s); the last kb%8 columns take the loop.
func packA8(panel, a []float32, lda, kb int) {
	r0 := a[:kb]
	r1 := a[lda : lda+kb]
	r2 := a[2*lda : 2*lda+kb]
	r3 := a[3*lda : 3*lda+kb]
	r4 := a[4*lda : 4*lda+kb]
	r5 := a[5*lda : 5*lda+kb]
	r6 := a[6*lda : 6*lda+kb]
	r7 := a[7*lda : 7*lda+kb]
	// Each row resliced to r0's length: one bounds check per row, none per k.
	n := len(r0)
	r1, r2, r3, r4, r5, r6, r7 = r1[:n], r2[:n], r3[:n], r4[:n], r5[:n], r6[:n], r7[:n]
	panel = panel[:8*kb]
	k0 := 0
	if blocks := kb / 8; hasPackA8 && blocks > 0 {
		packA8AVX2(&panel[0], &a[0], lda, blocks)
		k0 = 8 * blocks
	}
	for k := k0; k < n; k++ {
		p := (*[8]float32)(panel[8*k:])
		p[0], p[1], p[2], p[3] = r0[k], r1[k], r2[k], r3[k]
		p[4], p[5], p[6], p[7] = r4[k], r5[k], r6[k], r7[k]
	}
}
