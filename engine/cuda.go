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
//
// cudaFastCompile then disables one HLO pass, triton-softmax-rewriter,
// which fuses each norm and softmax into a Triton kernel and costs every
// candidate: on an H100 (jax-cuda13-plugin 0.11.2) it was 6.2 s of a 9.5 s
// compile of the 24-layer scoring graph at Qwen2.5-0.5B's shape, and
// without it that graph compiled in 2.3 s instead of 13.1–14.9 s, ran as
// fast, and gave log-probs within 4.85e-5 of it
// (scripts/gpu_compile_probe.sh). The pass joins the user's own
// --xla_disable_hlo_passes list; an empty one (--xla_disable_hlo_passes=)
// keeps every pass.

// cudaSetup sets the environment of a CUDA backend before its plugin
// loads: full-precision float32 products and the faster compile.
func cudaSetup() {
	cudaFullPrecision()
	cudaFastCompile()
}

// cudaFullPrecision sets the environment for float32 products on CUDA.
// The writes cannot fail for these constant names and values.
func cudaFullPrecision() {
	if env.CUDATF32.Get() == "1" {
		return
	}
	_, _ = env.SetDefault(env.NvidiaTF32Override, "0")
	_, _ = env.AddXLAFlag("--xla_gpu_enable_triton_gemm=false")
}

// slowCompilePass is the HLO pass cudaFastCompile disables.
const slowCompilePass = "triton-softmax-rewriter"

// cudaFastCompile disables slowCompilePass (see above). The write cannot
// fail for this constant option and item.
func cudaFastCompile() {
	_, _ = env.AddXLAListItem("xla_disable_hlo_passes", slowCompilePass)
}
