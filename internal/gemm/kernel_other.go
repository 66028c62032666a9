//go:build !amd64

package gemm

// available lists the kernels of this architecture: the Go kernel only.
func available() []*kernel { return []*kernel{goKernel} }

// hasPackA8 is false: packA8 always takes its Go loop here.
const hasPackA8 = false

func packA8AVX2(panel, a *float32, lda, blocks int) { panic("gemm: packA8AVX2 without amd64") }
