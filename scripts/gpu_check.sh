#!/usr/bin/env bash
# goeval on an NVIDIA GPU: XLA through JAX's pip-installed CUDA PJRT plugin,
# on a machine with PyTorch, transformers and JAX but no Go (the binaries
# and lm-eval's wheels come from scripts/gpu_bundle.sh). Not part of CI.
# In order of what matters most, each step bounded by a timeout:
#   1. device resolution (--device auto must pick cuda) and a first forward;
#   2. log-probs against the transformers goldens (parity/models: 5 models;
#      engine TestArchsThroughEngine: Phi, Phi-3, Gemma 2, Gemma 3), ≤ 1e-4;
#   3. a Qwen2.5-0.5B-shaped model: 'goeval score' against transformers on
#      the same GPU (same requests), and scoring throughput of both;
#   4. bench/peers/run_vs_lmeval.sh: goeval run vs lm_eval --model hf, both
#      on the GPU, same model and documents: wall times and per-sample parity;
#   5. a tiny model's run on cuda (batch auto and 1) against the pure-Go
#      backend, per sample;
#   6. decode throughput; TF32 (GOEVAL_CUDA_TF32=1) against full precision;
#   7. engine packing/shared-prefix/cached-prefix exactness on cuda, and the shapes a
#      call needs compiled ahead, several at once;
#   8. the machine's CPU, 2 cores: goeval's matrix kernels (AVX-512 where it
#      has it) checked against the reference, and scoring with --device cpu
#      per kernel.
#
# Usage: scripts/gpu_check.sh [BUNDLE_DIR] [OUT_DIR]   (defaults .gpu, $OUT)
# GPU_CHECK_STEPS="1 4 7" runs only those steps (step 1, which finds the
# plugin, always runs); step 4 then also reruns goeval with its compiles
# one at a time (GOEVAL_COMPILE_WORKERS=1) unless GPU_CHECK_SERIAL=0.
set -uo pipefail
source "$(dirname "$0")/gpu_lib.sh"
gpu_setup gpu_check "$@"
export HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1
steps=" ${GPU_CHECK_STEPS:-1 2 3 4 5 6 7 8} "
step() { echo; echo "== $1 [$(date +%T), ${SECONDS} s]"; }
want() { [[ $steps == *" $1 "* ]]; }

step "environment"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c 'import importlib.metadata as m
for p in ["jax", "jax-cuda13-plugin", "jax-cuda13-pjrt", "torch", "transformers"]:
    try: print(p, m.version(p))
    except Exception: print(p, "missing")'
if [[ -d "$bundle/whl" ]]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$bundle"/whl/*.whl \
    && export PYTHONPATH=/tmp/site && python3 -c 'import lm_eval, datasets; print("lm_eval", lm_eval.__version__, "datasets", datasets.__version__)'
fi

step "1. device auto and a first forward (tiny model)"
tiny="$work/tiny"
$G synth tokenizer --out "$tiny" --vocab 512 >/dev/null
$G synth model --arch qwen2 --hidden 64 --layers 2 --heads 4 --kv-heads 2 --intermediate 128 \
  --tokenizer "$tiny" --seed 1 --out "$tiny" >/dev/null
probe() { timeout 180 $G bench score --model "$tiny" --device auto -v 2>&1 | grep -v '^I[0-9]' | tail -12; }
if ! probe; then
  sp=$(python3 -c 'import site; print(site.getsitepackages()[0])')
  export LD_LIBRARY_PATH="$(ls -d "$sp"/nvidia/*/lib "$sp"/nvidia/cu13/lib 2>/dev/null | tr '\n' ':')${LD_LIBRARY_PATH:-}"
  echo "-- retry with LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  probe || { echo "-- retry with GOEVAL_CUDA_PREALLOCATE=1"; export GOEVAL_CUDA_PREALLOCATE=1; probe; } || { echo "cuda does not start: stopping"; exit 1; }
fi

# model05: the Qwen2.5-0.5B-shaped model ($m, in run_vs_lmeval's work
# folder) and 512 scoring requests for it, made once.
rvl="$work/rvl" m="$work/rvl/model"
model05() {
  [[ -f "$m/model.safetensors" ]] && return
  synth05 "$m"
  python3 bench/peers/random_requests.py "$m/config.json" 512 120 8 >"$work/req.jsonl"
}
# maxdiff A B: the largest |Δ log-prob| between transformers' (A) and goeval's (B) request files.
maxdiff() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
hf = [json.loads(l) for l in open(sys.argv[1])]
ge = [json.loads(l) for l in open(sys.argv[2])]
d = max(abs(a["logprob_sum"] - b["logprob"]) for a, b in zip(hf, ge))
g = sum(a["is_greedy"] != b["is_greedy"] for a, b in zip(hf, ge))
print(f"{len(ge)} requests, max |Δ logprob| = {d:.3g}, is_greedy differs on {g}")
EOF
}

if want 2; then
step "2. log-probs on cuda vs transformers goldens"
(cd parity/models && GOEVAL_BINARY="$G" GOEVAL_HFPARITY_DEVICE=cuda timeout 150 "$B/hfparity.test" -test.v -test.count=1 2>&1 |
  grep -E '^(=== RUN|--- |PASS|FAIL|ok)|Δ|max' | grep -v '=== RUN')
(cd engine && GOEVAL_TEST_DEVICE=cuda timeout 150 "$B/engine.test" -test.v -test.count=1 -test.run 'TestArchsThroughEngine' 2>&1 |
  grep -E '^(--- |PASS|FAIL|ok)|Δ|greedy' )
fi

if want 3; then
step "3. 0.5B shape: goeval score vs transformers on the GPU, scoring throughput"
model05
timeout 120 python3 bench/peers/hf_bench.py --model "$m" --requests "$work/req.jsonl" --batch-size 64 --device cuda --out "$work/hf.jsonl"
timeout 120 $G score --model "$m" --device cuda --batch-size 64 <"$work/req.jsonl" >"$work/ge.jsonl"
echo "goeval score (cuda) vs transformers (cuda, f32): $(maxdiff "$work/hf.jsonl" "$work/ge.jsonl")"
for b in 16 64; do
  timeout 120 $G bench score --model "$m" --device cuda --requests 512 --batch-size $b 2>&1 | grep -v '^I[0-9]' | tail -1
  timeout 120 python3 bench/peers/hf_bench.py --model "$m" --requests "$work/req.jsonl" --batch-size $b --device cuda 2>&1 | tail -1
done
fi

if want 4; then
step "4. goeval run vs lm_eval --model hf, both on the GPU (0.5B shape)"
model05
rvl_args=(--goeval-bin "$G" --python python3 --lmeval-device cuda --device cuda
  --lmeval-batch-size 32 --docs 200 --limit 200 --mmlu-limit 10 --gsm8k-limit 64 --work "$rvl")
timeout 330 bench/peers/run_vs_lmeval.sh "${rvl_args[@]}"
(cd "$rvl" && find . -name 'results_*.json' | tar czf "$out/run_vs_lmeval_results.tgz" -T - 2>/dev/null)
grep -h "compiled" "$rvl"/goeval-cuda/*.log >"$out/compiles.log" 2>/dev/null
if [[ ${GPU_CHECK_SERIAL:-1} != 0 ]]; then
  echo "-- goeval again on the scoring runs, compiling one shape at a time (GOEVAL_COMPILE_WORKERS=1)"
  GOEVAL_COMPILE_WORKERS=1 timeout 200 bench/peers/run_vs_lmeval.sh "${rvl_args[@]}" --skip-lmeval --runs mc,mmlu5
fi
fi

if want 5; then
step "5. tiny model: cuda (batch auto, batch 1) vs pure Go, per sample"
$G synth data --task arc_easy,hellaswag,gsm8k,wikitext --n 20 --out "$work/data" >/dev/null
for cfg in "cuda auto" "cuda 1" "cpu 8"; do
  set -- $cfg
  timeout 120 $G run --model "$tiny" --data-dir "$work/data" --tasks arc_easy,hellaswag,gsm8k,wikitext --limit 20 \
    --device "$1" --batch-size "$2" --log-samples --output-path "$work/demo-$1-$2" >"$work/demo-$1-$2.log" 2>&1 || tail -3 "$work/demo-$1-$2.log"
done
for pair in "cpu-8 cuda-auto" "cuda-1 cuda-auto"; do
  set -- $pair
  python3 - parity/e2e "$work/demo-$1" "$work/demo-$2" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import compare
compare.RUN_SPECIFIC.add("config.device")
for k in ("config.batch_size", "config.batch_sizes"):
    compare.RUN_SPECIFIC.add(k)
problems, notes = compare.compare_dirs(sys.argv[2], sys.argv[3], {})
problems = [p for p in problems if not p.startswith("goeval_timing.")]  # work done differs by design
print("%s vs %s: %d differences, %d near-tie notes" % (sys.argv[2].rsplit("/", 1)[-1], sys.argv[3].rsplit("/", 1)[-1], len(problems), len(notes)))
for p in problems[:5]:
    print("  DIFF:", p[:300])
EOF
done
fi

if want 6; then
step "6. decode throughput; TF32 against full float32"
model05
timeout 120 $G bench generate --model "$m" --device cuda --batches 1,32,128 --prompt-len 128 --steps 32 2>&1 | grep -v '^I[0-9]'
[[ -f $work/hf.jsonl ]] || timeout 120 python3 bench/peers/hf_bench.py --model "$m" --requests "$work/req.jsonl" --batch-size 64 --device cuda --out "$work/hf.jsonl"
GOEVAL_CUDA_TF32=1 timeout 120 $G score --model "$m" --device cuda --batch-size 64 <"$work/req.jsonl" >"$work/ge_tf32.jsonl"
echo "with TF32 (GOEVAL_CUDA_TF32=1) vs transformers: $(maxdiff "$work/hf.jsonl" "$work/ge_tf32.jsonl")"
GOEVAL_CUDA_TF32=1 timeout 120 $G bench score --model "$m" --device cuda --requests 512 --batch-size 64 2>&1 | grep -v '^I[0-9]' | tail -1
fi

if want 7; then
step "7. packing, shared prefixes, fixed prefill shapes and compiles ahead on cuda (engine tests)"
(cd engine && GOEVAL_TEST_DEVICE=cuda timeout 240 "$B/engine.test" -test.v -test.count=1 \
  -test.run 'TestCompileAhead|TestGeneratePrefixShared|TestPackedExact|TestPrefixCacheExact|TestGenBatchAuto' 2>&1 | grep -E '^(--- |    --- |PASS|FAIL|ok)|floor|Δ|graphs_test' | head -60)
fi

if want 8; then
step "8. this machine's CPU on 2 cores: goeval's matrix kernels, scoring with --device cpu"
grep -m1 'model name' /proc/cpuinfo
cpu2=(taskset -c 0,1 env GOMAXPROCS=2)
(cd internal/gemm && "${cpu2[@]}" timeout 120 "$B/gemm.test" -test.v -test.count=1 2>&1 | grep -E '^(--- |PASS|FAIL|ok)|kernel' | head -30)
(cd internal/gemm && "${cpu2[@]}" timeout 120 "$B/gemm.test" -test.run '^$' -test.bench 'MatMul' -test.benchtime 4x 2>&1 | grep -E 'Benchmark|kernel' | head -20)
model05
for k in avx512 avx2; do
  GOEVAL_GEMM_KERNEL=$k "${cpu2[@]}" timeout 150 $G bench score --model "$m" --device cpu 2>&1 | grep -v '^I[0-9]' | tail -1
done
head -16 "$work/req.jsonl" >"$work/req16.jsonl"
"${cpu2[@]}" timeout 150 python3 bench/peers/hf_bench.py --model "$m" --requests "$work/req16.jsonl" --batch-size 8 --threads 2 --device cpu 2>&1 | tail -1
fi
step "done"
