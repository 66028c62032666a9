#!/usr/bin/env bash
# Where XLA's compile time goes on a GPU machine: one scoring shape of a
# Qwen2.5-0.5B-shaped model (`goeval bench score`, 16 requests, batch 8)
# compiled under XLA flag sets, at 24 and at 6 layers, and log-probs with
# and without the pass that costs most; once with XLA's compiler timers
# logged. Uses the bundle of scripts/gpu_bundle.sh; not part of CI.
#
# Usage: scripts/gpu_compile_probe.sh [BUNDLE_DIR] [OUT_DIR]
set -uo pipefail
source "$(dirname "$0")/gpu_lib.sh"
gpu_setup gpu_compile_probe "$@"
export PYTHONUNBUFFERED=1 GOEVAL_COMPILE_CACHE=off # compile times, not loads from the compile cache
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
for l in 24 6; do
  synth05 "$work/m$l" --layers "$l" || exit 1
done
echo "-- models made [${SECONDS} s]"
probe() { # name layers XLA_FLAGS...
  local name=$1 l=$2
  shift 2
  local t0=$SECONDS log
  log=$(XLA_FLAGS="$*" timeout 120 $G bench score --model "$work/m$l" --device cuda --requests 16 --batch-size 8 2>&1)
  local line
  line=$(grep -o 'tokens/s=[0-9.]* .*compile_ms=[0-9.]* graphs=[0-9]* load_s=[0-9.]*' <<<"$log" | sed 's/ gflops.*compile_ms/ compile_ms/')
  [[ -n $line ]] || line="FAILED: $(grep -v '^I[0-9]' <<<"$log" | tail -3 | tr '\n' ' ')"
  echo "$name, $l layers: $line (process $((SECONDS - t0)) s)"
}
# Measured on an H100 (jax-cuda13-plugin 0.11.2, 2026-11-27): the compile of
# the 24-layer scoring graph is ~9.5 s, 8.5 s of it in HLO passes, and 6.2 s
# of those in one pass, triton-softmax-rewriter (145 norm/softmax diamonds
# fused into Triton kernels, each costed); LLVM and ptxas take ~1 s. That
# XLA no longer has --xla_gpu_enable_llvm_module_compilation_parallelism,
# and its kernel cache (--xla_gpu_kernel_cache_file) cut a warm compile
# only from 9.2 to 8.8 s. Without that pass the graph compiled in 2.3 s
# instead of 13.1-14.9 s, ran as fast and gave log-probs within 4.85e-5
# (2026-11-27), so goeval now disables it on CUDA (engine/cuda.go); "all
# passes" below keeps every pass with an empty list (--xla_disable_hlo_passes=).
all=--xla_disable_hlo_passes=
probe all-passes 24 $all
probe all-passes 6 $all
probe all-passes-again 24 $all
probe autotune-0 24 $all --xla_gpu_autotune_level=0
probe default 24
probe default 6
probe default-again 24
echo "-- log-probs with goeval's default (without that pass) against with every pass (goeval score, 512 requests)"
python3 bench/peers/random_requests.py "$work/m24/config.json" 512 120 8 >"$work/req.jsonl"
XLA_FLAGS=$all timeout 120 $G score --model "$work/m24" --device cuda --batch-size 64 <"$work/req.jsonl" >"$work/with.jsonl"
timeout 120 $G score --model "$work/m24" --device cuda --batch-size 64 <"$work/req.jsonl" >"$work/without.jsonl"
python3 - "$work/with.jsonl" "$work/without.jsonl" <<'PY'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
d = max(abs(x["logprob"] - y["logprob"]) for x, y in zip(a, b))
print(f"{len(b)} requests, max |Δ logprob| = {d:.3g}, is_greedy differs on {sum(x['is_greedy'] != y['is_greedy'] for x, y in zip(a, b))}")
PY
echo "-- XLA's compiler timers (goeval's flags, 24 layers) [${SECONDS} s]"
TF_CPP_MIN_LOG_LEVEL=0 TF_CPP_VMODULE=gpu_compiler=1,nvptx_compiler=1,compile_module_to_llvm_ir=1,hlo_pass_pipeline=1 \
  timeout 120 $G bench score --model "$work/m24" --device cuda --requests 16 --batch-size 8 >"$out/vlog.txt" 2>&1
grep -E 'time: [0-9.]+ s |GpuCompiler::Run(HloPasses|Backend) for' "$out/vlog.txt" | sed 's/^.*\] //; s/ for Context_Exec_[^ ]*//' | cut -c1-120
gzip -f "$out/vlog.txt"
echo "== done [${SECONDS} s]"
