package gemm

import "golang.org/x/sys/cpu"

// The assembly screening kernels of kernel_i8_amd64.s (see screen.go).

//go:noescape
func i8Dot1AVX512(a *float32, q *int8, k, ldq int, scale, c *float32, ncols int)

//go:noescape
func i8Dot1AVX2(a *float32, q *int8, k, ldq int, scale, c *float32, ncols int)

//go:noescape
func i8AbsMaxAVX2(w *float32, k int, out *[16]float32)

//go:noescape
func i8QuantAVX2(w *float32, k int, inv, sc float32, q *int8, out *[16]float32)

//go:noescape
func i8PanelAbsMaxAVX512(p *uint16, steps int, out *[64]float32)

//go:noescape
func i8PanelQuantAVX512(p *uint16, k4 int, inv, sc *float32, u0, u1 *uint8, out *[64]float32)

//go:noescape
func i8PanelAbsMaxF32AVX512(p *float32, steps int, out *[64]float32)

//go:noescape
func i8PanelQuantF32AVX512(p *float32, k4 int, inv, sc *float32, u0, u1 *uint8, out *[64]float32)

//go:noescape
func i8Ints16AVX512(u *uint8, p *int32, k4, nblk int, out *int32)

//go:noescape
func i8Ints8AVX512(u *uint8, p *int32, k4, nblk int, out *int32)

//go:noescape
func i8Ints4AVX512(u *uint8, p *int32, k4, nblk int, out *int32)

// intsAVX512 is i8Kernels.ints through the AVX512_VNNI kernels.
func intsAVX512(u []uint8, p []int32, k4, mq int, out []int32) {
	nblk := len(u) / (64 * k4)
	if nblk == 0 {
		return
	}
	_, _ = p[k4*mq-1], out[nblk*mq*16-1]
	switch mq {
	case 4:
		i8Ints4AVX512(&u[0], &p[0], k4, nblk, &out[0])
	case 8:
		i8Ints8AVX512(&u[0], &p[0], k4, nblk, &out[0])
	default:
		i8Ints16AVX512(&u[0], &p[0], k4, nblk, &out[0])
	}
}

func init() {
	for _, k := range []*i8Kernels{asmI8(i8Dot1AVX512, 64), asmI8(i8Dot1AVX2, 32)} {
		k.absMax, k.quant = i8AbsMaxAVX2, i8QuantAVX2 // AVX-512 CPUs have AVX2 and FMA
		if k.step == 64 {
			if cpu.X86.HasAVX512VNNI && cpu.X86.HasAVX512BW {
				k.ints = intsAVX512
				k.panelAbsMax, k.panelQuant = i8PanelAbsMaxAVX512, i8PanelQuantAVX512
				k.panelAbsMaxF32, k.panelQuantF32 = i8PanelAbsMaxF32AVX512, i8PanelQuantF32AVX512
			}
			avx512Kernel.i8 = k
		} else {
			avx2Kernel.i8 = k
		}
	}
}
