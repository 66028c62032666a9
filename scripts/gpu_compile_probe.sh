#!/usr/bin/env bash
# Where XLA's compile time goes on a GPU machine: one scoring shape of a
# Qwen2.5-0.5B-shaped model (`goeval bench score`, 16 requests, batch 8)
# compiled under XLA flag sets, at 24 and at 6 layers, and once with XLA's
# compiler timers logged. Uses the bundle of scripts/gpu_bundle.sh; not
# part of CI.
#
# Usage: scripts/gpu_compile_probe.sh [BUNDLE_DIR] [OUT_DIR]
set -uo pipefail
source "$(dirname "$0")/gpu_lib.sh"
gpu_setup gpu_compile_probe "$@"
for l in 24 6; do
  synth05 "$work/m$l" $l || exit 1
done
probe() { # name layers XLA_FLAGS...
  local name=$1 l=$2
  shift 2
  local line
  line=$(XLA_FLAGS="$*" timeout 120 $G bench score --model "$work/m$l" --device cuda --requests 16 --batch-size 8 2>&1 | grep -o 'compile_ms=[0-9.]* graphs=[0-9]*')
  echo "$name, $l layers: $line"
}
probe base 24
probe base 6
probe llvm-parallel 24 --xla_gpu_enable_llvm_module_compilation_parallelism=true --xla_gpu_force_compilation_parallelism=16
probe autotune-0 24 --xla_gpu_autotune_level=0
probe no-command-buffer 24 --xla_gpu_enable_command_buffer=
probe all-three 24 --xla_gpu_enable_llvm_module_compilation_parallelism=true --xla_gpu_force_compilation_parallelism=16 --xla_gpu_autotune_level=0 --xla_gpu_enable_command_buffer=
echo "-- XLA's compiler timers (base flags, 24 layers)"
TF_CPP_MIN_LOG_LEVEL=0 TF_CPP_VMODULE=gpu_compiler=1,nvptx_compiler=1,compile_module_to_llvm_ir=1 \
  timeout 120 $G bench score --model "$work/m24" --device cuda --requests 16 --batch-size 8 >"$out/vlog.txt" 2>&1
grep -i -E 'took|time|elapsed|ms\b' "$out/vlog.txt" | sed 's/^.*\] //' | sort | uniq -c | sort -rn | head -40
echo "-- engine tests on cuda: compiles ahead, fixed prefill shapes"
(cd engine && GOEVAL_TEST_DEVICE=cuda timeout 100 "$work/bin/engine.test" -test.v -test.count=1 \
  -test.run 'TestCompileAhead|TestGeneratePrefixShared' 2>&1 | grep -v '^I[0-9]' | tail -40)
echo "== done [${SECONDS} s]"
