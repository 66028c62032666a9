package engine

import (
	"os"
	"strings"
)

// XLA on NVIDIA GPUs runs float32 matrix products in TF32 by default (10
// mantissa bits, ~1e-3 relative error): log-probs would drift from
// transformers' (which keeps float32 matmuls in float32) by far more than
// goeval's 1e-4. Before the CUDA plugin loads, cudaFullPrecision asks for
// IEEE float32: NVIDIA_TF32_OVERRIDE=0 switches TF32 off in cuBLAS, and
// --xla_gpu_enable_triton_gemm=false keeps XLA's own Triton GEMMs (which
// read the dot's DEFAULT precision as TF32) out of the way. Both are only
// set when the user has not: GOEVAL_CUDA_TF32=1 keeps XLA's defaults
// (faster, less exact).

// cudaTF32Env names the opt-out of full float32 precision;
// cudaPreallocateEnv=1 lets the CUDA plugin take its default 75% of the
// GPU's memory at start (backend_xla.go).
const (
	cudaTF32Env        = "GOEVAL_CUDA_TF32"
	cudaPreallocateEnv = "GOEVAL_CUDA_PREALLOCATE"
)

// cudaFullPrecision sets the environment for float32 products on CUDA.
func cudaFullPrecision() {
	if os.Getenv(cudaTF32Env) == "1" {
		return
	}
	if _, set := os.LookupEnv("NVIDIA_TF32_OVERRIDE"); !set {
		_ = os.Setenv("NVIDIA_TF32_OVERRIDE", "0")
	}
	flags := os.Getenv("XLA_FLAGS")
	if !strings.Contains(flags, "xla_gpu_enable_triton_gemm") {
		_ = os.Setenv("XLA_FLAGS", strings.TrimSpace(flags+" --xla_gpu_enable_triton_gemm=false"))
	}
}
