package gemm

import "sync/atomic"

// The screening copy of a head made from its panels (PackedBF16's or
// PackedB's layout, 32 rows a panel on AVX-512) where the CPU screens
// with integer products: a panel's rows lie in the lanes of its steps, so
// two vertical passes over it (kernel_i8panel_amd64.s) give each row's
// largest |w|, then its codes already interleaved 16 rows to a block as
// the integer kernels read them — without reading the rows out to float32
// and interleaving their codes afterwards, QuantizeRowsI8's way, which
// took a 1B model's bf16 head 0.26 s at its first greedy step (0.09 s
// this way, most of it the kernel's first touch of the copy's pages).

// panelRows is the panel width the panel kernels take.
const panelRows = 32

// panelSource is a packed weight's panels as the panel kernels read them.
type panelSource struct {
	n, k   int
	absMax func(p int, out *[64]float32)                                  // panel p's kernel pass 1
	quant  func(p int, inv, sc *float32, u0, u1 *uint8, out *[64]float32) // pass 2
}

// ScreenI8 makes the screening copy of the weight pb holds: QuantizeRowsI8's
// over pb.RowsF32 (the same codes, scales, absMax and errMax; each errL2
// summed in another order), from the panels where it can; nil if a weight
// is not finite.
func (pb *PackedBF16) ScreenI8(threads int) *RowsI8 {
	if kern := defaultKernel().i8; kern != nil {
		return screenPanels(pb.kern, pb.data, pb.N, pb.K, pb.K/2, kern.panelAbsMax, kern.panelQuant, pb.RowsF32, threads)
	}
	return QuantizeRowsI8(pb.N, pb.K, pb.RowsF32, threads)
}

// ScreenI8 is PackedBF16.ScreenI8 for a float32 weight.
func (pb *PackedB) ScreenI8(threads int) *RowsI8 {
	if kern := defaultKernel().i8; kern != nil {
		return screenPanels(pb.kern, pb.data, pb.N, pb.K, pb.K, kern.panelAbsMaxF32, kern.panelQuantF32, pb.Rows, threads)
	}
	return QuantizeRowsI8(pb.N, pb.K, pb.Rows, threads)
}

// screenPanels makes the copy of the weight [n, k] packed in data for
// layout's kernel through the panel kernels absMax (steps a panel) and
// quant, or through rows where they do not take it.
func screenPanels[T uint16 | float32](layout *kernel, data []T, n, k, steps int,
	absMax func(p *T, steps int, out *[64]float32),
	quant func(p *T, k4 int, inv, sc *float32, u0, u1 *uint8, out *[64]float32), rows Rows, threads int) *RowsI8 {
	if absMax == nil || quant == nil || !panelsFit(layout, k) {
		return QuantizeRowsI8(n, k, rows, threads)
	}
	size := k * panelRows
	return quantizePanelsI8(panelSource{n: n, k: k,
		absMax: func(p int, out *[64]float32) { absMax(&data[p*size], steps, out) },
		quant: func(p int, inv, sc *float32, u0, u1 *uint8, out *[64]float32) {
			quant(&data[p*size], k/4, inv, sc, u0, u1, out)
		}}, threads)
}

// panelsFit reports whether the panel kernels take a layout of kern's
// with rows of k: 32-row panels, whole steps of 4 k, and rows the integer
// sums hold.
func panelsFit(kern *kernel, k int) bool {
	return kern.nr == panelRows && k%4 == 0 && k <= maxIntK
}

// quantizePanelsI8 makes the copy of src's weight [n, k] panel by panel.
func quantizePanelsI8(src panelSource, threads int) *RowsI8 {
	s := newRowsI8(src.n, src.k)
	s.u = newInterleaved(src.n, src.k)
	panels := (src.n + panelRows - 1) / panelRows
	slice := max(1, min(4, panels/(8*max(1, threads))))
	var bad atomic.Bool
	shareOut(panels, slice, max(1, threads), false, func(lo, hi int) {
		var spare []uint8 // the missing second block of a last panel's codes
		for p := lo; p < hi && !bad.Load(); p++ {
			if !s.quantizePanel(src, p, &spare) {
				bad.Store(true)
			}
		}
	})
	if bad.Load() {
		return nil
	}
	s.setMaxima()
	return s
}

// quantizePanel sets the copy's rows of panel p (rows 32p …, codes into
// blocks 2p and 2p+1); false if a weight is not finite.
func (s *RowsI8) quantizePanel(src panelSource, p int, spare *[]uint8) bool {
	var st [2 * panelRows]float32 // maxima, then finiteness checks; then errors
	src.absMax(p, &st)
	var inv, sc [panelRows]float32
	for r := range panelRows {
		if st[panelRows+r] != 0 {
			return false
		}
		sc[r] = st[r] / 127
		if st[r] >= 0x1p-100 { // else every code is 0
			inv[r] = 127 / st[r]
		}
	}
	m := st
	stride := (s.K + 3) / 4 * 64
	u0 := s.u[2*p*stride : (2*p+1)*stride]
	var u1 []uint8
	if 2*p+1 < (s.N+15)/16 {
		u1 = s.u[(2*p+1)*stride : (2*p+2)*stride]
	} else { // no second block: its codes go to scratch
		if len(*spare) < stride {
			*spare = make([]uint8, stride)
		}
		u1 = *spare
	}
	src.quant(p, &inv[0], &sc[0], &u0[0], &u1[0], &st)
	for r := range min(panelRows, s.N-panelRows*p) {
		s.setRow(panelRows*p+r, m[r], sc[r], float64(st[r]), float64(st[panelRows+r]))
	}
	return true
}
