package gemm

// The pure-Go bf16 micro-kernel: the B micro-panel is widened, k pair by
// k pair, into an f32 [k][8] panel on the stack (exact, a few KiB in L1),
// and each of the first rows rows runs rowGo on it: the Go f32 kernel's
// chains on the widened B, so its bits.

// goBF16Chunk is the most k steps widened at once (a K block longer than
// this continues its chains through C, which is exact).
const goBF16Chunk = 256

// kernGoBF16 returns the Go bf16 kernel for the first rows rows of a
// 4×8 tile (see microKernelBF16).
func kernGoBF16(rows int) microKernelBF16 {
	return func(k int, a []float32, b []uint16, c []float32, ldc int, load bool, _ hintBF16) {
		a, b = a[:k*goMR], b[:k*goNR]
		var wide [goBF16Chunk * goNR]float32
		for k0 := 0; k0 < k; k0 += goBF16Chunk {
			kb := min(goBF16Chunk, k-k0)
			widenPanel(wide[:kb*goNR], b[k0*goNR:(k0+kb)*goNR])
			for r := range rows {
				var acc [goNR]float32
				if load || k0 > 0 {
					copy(acc[:], c[r*ldc:r*ldc+goNR])
				}
				rowGo(&acc, a[k0*goMR+r:], wide[:kb*goNR], kb)
				copy(c[r*ldc:r*ldc+goNR], acc[:])
			}
		}
	}
}

// widenPanel widens a bf16 micro-panel of 8 columns, [k/2][8][2], into
// dst, [k][8] f32.
func widenPanel(dst []float32, src []uint16) {
	for p := 0; p+2*goNR <= len(src); p += 2 * goNR {
		pair := (*[2 * goNR]uint16)(src[p:])
		even, odd := (*[goNR]float32)(dst[p:]), (*[goNR]float32)(dst[p+goNR:])
		for j := range goNR {
			even[j] = WidenBF16(pair[2*j])
			odd[j] = WidenBF16(pair[2*j+1])
		}
	}
}
