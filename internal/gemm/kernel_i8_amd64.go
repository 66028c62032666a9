package gemm

// The assembly screening kernels of kernel_i8_amd64.s (see screen.go).

//go:noescape
func i8Dot1AVX512(a *float32, q *int8, k, ldq int, scale, c *float32, ncols int)

//go:noescape
func i8Dot1AVX2(a *float32, q *int8, k, ldq int, scale, c *float32, ncols int)

//go:noescape
func i8AbsMaxAVX2(w *float32, k int, out *[16]float32)

//go:noescape
func i8QuantAVX2(w *float32, k int, inv, sc float32, q *int8, out *[16]float32)

func init() {
	for _, k := range []*i8Kernels{asmI8(i8Dot1AVX512, 64), asmI8(i8Dot1AVX2, 32)} {
		k.absMax, k.quant = i8AbsMaxAVX2, i8QuantAVX2 // AVX-512 CPUs have AVX2 and FMA
		if k.step == 64 {
			avx512Kernel.i8 = k
		} else {
			avx2Kernel.i8 = k
		}
	}
}
