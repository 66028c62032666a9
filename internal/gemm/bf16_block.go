package gemm

// jobBF16 is one MatMulBF16 call: C[m, N] = A[m, K] · B (bf16). A is
// packed per call as for MatMul (f32, MR-row panels); B's panels stream
// through the bf16 kernels, which widen them in registers. There is no
// direct-A path: the weight is always B.
type jobBF16 struct {
	c      []float32
	ldc    int
	a      []float32
	lda, m int
	b      *PackedBF16
	dot    bool // VDPBF16PS on A rounded to bf16 (bf16dot.go)
}

// blockKBF16 is blockK made even (a K block starts and ends on a k pair),
// at least 2: K is even, so every block is.
func blockKBF16(K, kc int) int { return max(2, blockK(K, kc)&^1) }

// run computes rows [r0, r1) × B panels [p0, p1) of C: the loop nest NC
// panel group → K block → MC row block (packed) → panel → MR tile, as
// job.run's packed path.
func (j *jobBF16) run(r0, r1, p0, p1 int) {
	kn := j.b.kern
	s := getScratch(kn)
	defer scratchPool.Put(s)
	if n := kn.mc * kn.kc; j.dot && len(s.a16) < n {
		s.a16 = make([]uint16, n)
	}
	K := j.b.K
	kc := blockKBF16(K, kn.kc)
	ncp := kn.nc / kn.nr
	for jc := p0; jc < p1; jc += ncp {
		je := min(jc+ncp, p1)
		for pc := 0; pc < K; pc += kc {
			kb := min(kc, K-pc)
			for ic := r0; ic < r1; ic += kn.mc {
				ie := min(ic+kn.mc, r1)
				if j.dot {
					packABF16(s.a16, j.a, j.lda, ic, ie, pc, kb, kn.mr)
					j.panelsDot(s, ic, ie, jc, je, pc, kb)
					continue
				}
				packA(s.a, j.a, j.lda, ic, ie, pc, kb, kn.mr)
				j.panels(s, ic, ie, jc, je, pc, kb)
			}
		}
	}
}

// prefetchHalf is where tile t of a panel starts prefetching the next B
// micro-panel (kb k steps). Where a k pair's row of B spans two cache
// lines (NR 32: 128 bytes), a kernel prefetches the first line of each
// pair of the panel it is given, and tiles alternate halves: with two row
// tiles per panel (decode at 9–16 rows) the next panel's lines are then
// requested through both tiles, at the rate DRAM delivers them, instead
// of all during the first tile (measured: 16×896×4864 from DRAM 0.86 →
// 0.77 ms on Zen 4, 2 threads). One tile leaves the second lines to the
// hardware prefetcher, which follows the panel's sequential stream.
func prefetchHalf(nr, t, kb int) int {
	if 4*nr <= 64 || kb < 2 {
		return 0
	}
	return (t % 2) * nr
}

// panels multiplies the packed A block (rows [ic, ie), K block [pc,
// pc+kb)) by B panels [p0, p1), tile by tile. A tile of h < MR rows runs
// the kernel for the fewest rows that cover h (bf16Kernels.forRows): at
// one row (decode) the full tile's FMAs would outrun the memory that the
// half-size weight saves.
func (j *jobBF16) panels(s *scratch, ic, ie, p0, p1, pc, kb int) {
	kn := j.b.kern
	mr, nr, K, N := kn.mr, kn.nr, j.b.K, j.b.N
	load := pc > 0
	for p := p0; p < p1; p++ {
		bp := j.b.data[p*K*nr+pc*nr : p*K*nr+(pc+kb)*nr]
		col := p * nr
		w := min(nr, N-col)
		pf := hintBF16{b: &bp[0]}
		var next []uint16
		if p+1 < p1 {
			next = j.b.data[(p+1)*K*nr+pc*nr : (p+1)*K*nr+(pc+kb)*nr]
		}
		for i := ic; i < ie; i += mr {
			if next != nil {
				pf.b = &next[prefetchHalf(nr, (i-ic)/mr, kb)]
			}
			ap := s.a[(i-ic)*kb : (i-ic+mr)*kb]
			pf.c = nextTile(j.c, j.ldc, nr, i+mr, col, ie, ic, p1)
			h := min(mr, j.m-i)
			run, rows := kn.bf16.forRows(h, mr)
			if h < rows || w < nr {
				tileIn(s.tile, nr, j.c, j.ldc, i, col, h, w, load)
				run(kb, ap, bp, s.tile, nr, load, pf)
				tileOut(s.tile, nr, j.c, j.ldc, i, col, h, w)
			} else {
				run(kb, ap, bp, j.c[i*j.ldc+col:], j.ldc, load, pf)
			}
			if next == nil {
				pf.b = &bp[0]
			}
		}
	}
}
