package gemm

// The direct-A path: with one or two B panels (decode: A is a weight
// matrix read straight from the model, B the few activation rows), each A
// element serves one or two tiles, so packing A would cost more than the
// product. The kernel's direct twins read full MR-row tiles of A in place
// instead; the last rows (fewer than MR) are packed, zero-padded, and run
// through the packed kernel as usual. The chains are the same: same bits.

// direct reports whether the job reads A in place.
func (j *job) direct() bool {
	kn := j.b.kern
	return kn.direct != nil && (j.b.N+kn.nr-1)/kn.nr <= kn.maxDirect
}

// runDirect computes rows [r0, r1) × B panels [p0, p1) of C (r0 a multiple
// of MR; r1 too, or m): row tile by row tile, each through all K blocks in
// order, so the A rows stream from memory once, in sequence. With B one
// panel of at most NR/2 columns, the tiles are 2·MR rows where narrow2 is.
func (j *job) runDirect(s *scratch, r0, r1, p0, p1 int) {
	kn := j.b.kern
	K := j.b.K
	kc := blockK(K, kn.kc)
	full := r0 + (r1-r0)/kn.mr*kn.mr
	i := r0
	if kn.narrow2 != nil && 2*j.b.N <= kn.nr {
		for ; i+2*kn.mr <= full; i += 2 * kn.mr {
			for pc := 0; pc < K; pc += kc {
				j.directPanels(s, i, 2*kn.mr, p0, p1, pc, min(kc, K-pc))
			}
		}
	}
	for ; i < full; i += kn.mr {
		for pc := 0; pc < K; pc += kc {
			j.directPanels(s, i, kn.mr, p0, p1, pc, min(kc, K-pc))
		}
	}
	if full < r1 {
		for pc := 0; pc < K; pc += kc {
			kb := min(kc, K-pc)
			packA(s.a, j.a, j.lda, full, r1, pc, kb, kn.mr)
			j.panels(s, full, r1, p0, p1, pc, kb)
		}
	}
}

// directPanels multiplies the h rows (MR, or 2·MR for narrow2) of A from
// row i, K block [pc, pc+kb), read in place, by B panels [p0, p1).
func (j *job) directPanels(s *scratch, i, h, p0, p1, pc, kb int) {
	kn := j.b.kern
	nr, K, N := kn.nr, j.b.K, j.b.N
	a := j.a[i*j.lda+pc:]
	load := pc > 0
	for p := p0; p < p1; p++ {
		bp := j.b.data[p*K*nr+pc*nr : p*K*nr+(pc+kb)*nr]
		col := p * nr
		pf := j.nextDirect(i, h, p, p0, p1, pc, pc+kb)
		w := min(nr, N-col)
		if w == nr {
			kn.direct(kb, a, j.lda, bp, j.c[i*j.ldc+col:], j.ldc, load, pf)
			continue
		}
		run := kn.direct
		switch {
		case h > kn.mr:
			run = kn.narrow2
		case kn.narrow != nil && 2*w <= nr:
			run = kn.narrow
		}
		tileIn(s.tile, nr, j.c, j.ldc, i, col, h, w, load)
		run(kb, a, j.lda, bp, s.tile, nr, load, pf)
		tileOut(s.tile, nr, j.c, j.ldc, i, col, h, w)
	}
}

// nextDirect is the prefetch hint for the call after tile (i, h rows,
// panel p) of K block [pc, pe) in runDirect's order: the next panel, else
// the first panel in the next K block, else in the next row tile.
func (j *job) nextDirect(i, h, p, p0, p1, pc, pe int) hint {
	nr, K := j.b.kern.nr, j.b.K
	switch {
	case p+1 < p1:
		return hint{c: &j.c[i*j.ldc+(p+1)*nr], b: &j.b.data[(p+1)*K*nr+pc*nr]}
	case pe < K:
		return hint{c: &j.c[i*j.ldc+p0*nr], b: &j.b.data[p0*K*nr+pe*nr]}
	case i+h < j.m:
		return hint{c: &j.c[(i+h)*j.ldc+p0*nr], b: &j.b.data[p0*K*nr]}
	}
	return hint{}
}
