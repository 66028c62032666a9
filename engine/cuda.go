package engine

import "github.com/goeval/goeval/internal/env"

// XLA on NVIDIA GPUs runs float32 matrix products in TF32 by default (10
// mantissa bits, ~1e-3 relative error): log-probs would drift from
// transformers' (which keeps float32 matmuls in float32) by far more than
// goeval's 1e-4. Before the CUDA plugin loads, cudaFullPrecision asks for
// IEEE float32: NVIDIA_TF32_OVERRIDE=0 switches TF32 off in cuBLAS, and
// --xla_gpu_enable_triton_gemm=false keeps XLA's own Triton GEMMs (which
// read the dot's DEFAULT precision as TF32) out of the way. Both are only
// set when the user has not (internal/env's SetDefault and AddXLAFlag):
// GOEVAL_CUDA_TF32=1 keeps XLA's defaults (faster, less exact).

// cudaFullPrecision sets the environment for float32 products on CUDA.
// The writes cannot fail for these constant names and values.
func cudaFullPrecision() {
	if env.CUDATF32.Get() == "1" {
		return
	}
	_, _ = env.SetDefault(env.NvidiaTF32Override, "0")
	_, _ = env.AddXLAFlag("--xla_gpu_enable_triton_gemm=false")
}
