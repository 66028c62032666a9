package gemm

// In-place packing of a weight [N, K] (a checkpoint's linear layer, read
// as the transposed right-hand side). With N a multiple of NR, panel p of
// the packed layout ([K][NR] for columns pNR … pNR+NR−1 of B, i.e. rows of
// the weight) takes exactly the floats that those NR weight rows take, so
// each panel can be rewritten where it lies through an NR×K scratch: the
// packed weight costs no memory beyond the weight, and a backend can pack
// it once instead of once per product.

// InPlaceOK reports whether a weight [n, k] can be packed in place: n a
// multiple of the kernel's panel width NR.
func InPlaceOK(n, k int) bool {
	nr := defaultKernel().nr
	return n > 0 && k > 0 && n%nr == 0
}

// PackInPlace packs w, a row-major weight [n, k] (B = wᵀ, [k, n]), into
// its own storage on up to threads goroutines and returns the PackedB,
// whose data is w. w must not be read as [n, k] until Unpack restores it.
// It panics unless InPlaceOK(n, k) and len(w) == n·k.
func PackInPlace(w []float32, n, k, threads int) *PackedB {
	return packInPlace(defaultKernel(), w, n, k, threads)
}

// packInPlace is PackInPlace for kern's layout.
func packInPlace(kern *kernel, w []float32, n, k, threads int) *PackedB {
	checkInPlace("PackInPlace", kern, len(w), n, k)
	pb := &PackedB{K: k, N: n, kern: kern, data: w}
	perPanel(n/kern.nr, k*kern.nr, threads, func(tmp []float32, p int) {
		panel := w[p*k*kern.nr : (p+1)*k*kern.nr]
		copy(tmp, panel) // NR rows of k
		packPanelT(panel, tmp, k, k, kern.nr, kern.nr)
	})
	return pb
}

// Unpack rewrites pb's data, packed by PackInPlace, back to the weight
// [N, K] row-major and returns it; pb must not be used afterwards.
func (pb *PackedB) Unpack(threads int) []float32 {
	nr, k := pb.kern.nr, pb.K
	checkInPlace("Unpack", pb.kern, len(pb.data), pb.N, k)
	w := pb.data
	perPanel(pb.N/nr, k*nr, threads, func(tmp []float32, p int) {
		panel := w[p*k*nr : (p+1)*k*nr]
		copy(tmp, panel) // [k][NR]
		unpackPanel(panel, tmp, k, nr)
	})
	pb.data = nil
	return w
}

// UnpackTo writes the weight [N, K] row-major that pb holds into dst
// (len N·K), leaving pb packed.
func (pb *PackedB) UnpackTo(dst []float32) {
	nr, k := pb.kern.nr, pb.K
	checkInPlace("UnpackTo", pb.kern, len(dst), pb.N, k)
	for p := range pb.N / nr {
		unpackPanel(dst[p*nr*k:(p+1)*nr*k], pb.data[p*k*nr:(p+1)*k*nr], k, nr)
	}
}

// checkInPlace panics unless a weight of size floats is [n, k] with n a
// multiple of kern's NR.
func checkInPlace(what string, kern *kernel, size, n, k int) {
	if n <= 0 || k <= 0 || n%kern.nr != 0 || size != n*k {
		panic("gemm: " + what + ": want a weight [n, k] with n a positive multiple of the panel width and n·k floats")
	}
}

// perPanel runs f on panels [0, np) over up to threads goroutines, each
// with its own scratch of size floats.
func perPanel(np, size, threads int, f func(tmp []float32, p int)) {
	runPanels(np, threads, func(p0, p1 int) {
		tmp := make([]float32, size)
		for p := p0; p < p1; p++ {
			f(tmp, p)
		}
	})
}

// Rows writes rows [j0, j1) of the weight [N, K] that pb holds (columns
// of the packed right-hand side) into dst ([j1−j0][K]), reading each
// panel in its order.
func (pb *PackedB) Rows(j0, j1 int, dst []float32) {
	nr, k := pb.kern.nr, pb.K
	for p := j0 / nr; p*nr < j1; p++ {
		c0, c1 := max(j0, p*nr), min(j1, (p+1)*nr)
		panel := pb.data[p*k*nr : (p+1)*k*nr]
		for kk := range k {
			src := panel[kk*nr : (kk+1)*nr]
			for j := c0; j < c1; j++ {
				dst[(j-j0)*k+kk] = src[j-p*nr]
			}
		}
	}
}
