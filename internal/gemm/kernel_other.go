//go:build !amd64

package gemm

// available lists the kernels of this architecture: the Go kernel only.
func available() []*kernel { return []*kernel{goKernel} }
