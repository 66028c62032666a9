#!/usr/bin/env bash
# goeval on an NVIDIA GPU: XLA through JAX's pip-installed CUDA PJRT plugin,
# on a machine with PyTorch, transformers and JAX but no Go (the binaries
# and lm-eval's wheels come from scripts/gpu_bundle.sh). Not part of CI.
#
# The default run (steps 1 4 9) fits in 9.75 minutes of an H100 or H200
# (GPU_CHECK_BUDGET, 585 s: step 1 takes at most 60 s, 4 410 s, 9 165 s,
# each command within its step a cap of its own; a step is skipped when
# under 15 s are left) and ends with a summary table. On an H200
# (2026-11-30) lm-eval's side of step 4 took 112-115 s a dtype and
# goeval's 35-48 s cold, which the earlier 110 s cap cut short; step 10
# then no longer fits the default run (GPU_CHECK_STEPS="1 10"):
#   1. device resolution (--device auto must pick cuda) and a first forward;
#   4. whole runs, bench/peers/run_vs_lmeval.sh at the Qwen2.5-0.5B shape,
#      goeval run against lm_eval --model hf on the same GPU, both sides in
#      bfloat16 and both in float32: wall times, goeval/lm-eval, goeval's
#      compile share and shapes; per sample, float32 within 1e-4
#      (parity/e2e/compare.py), bfloat16 the same metrics on ≥ 99 % of the
#      documents, every difference listed with both log-likelihood margins
#      (parity/e2e/agree.py); then goeval's bfloat16 runs again on the
#      compile cache the first ones filled (GOEVAL_COMPILE_CACHE, fresh per
#      check): wall time, shapes compiled and loaded;
#   9. bfloat16 at the Llama-3.2-1B and Llama-3.1-8B shapes: scoring model
#      FLOP utilisation against the GPU's dense bf16 peak measured with
#      torch (a matmul loop), scoring tokens/s against transformers (sdpa,
#      batch 64), decode tokens/s at 1, 32 and 128 rows against
#      transformers' generate(); peak device memory (nvidia-smi);
#  10. goeval run --batch-size auto at the 8B shape: the batches it used,
#      its out-of-memory back-offs, peak device memory.
# The earlier checks, by number (GPU_CHECK_STEPS="all" runs every step,
# with a larger GPU_CHECK_BUDGET: each of these may take up to 300 s):
#   2. log-probs against the transformers goldens (parity/models: 5 models;
#      engine TestArchsThroughEngine: Phi, Phi-3, Gemma 2, Gemma 3), ≤ 1e-4;
#   3. a Qwen2.5-0.5B-shaped model: 'goeval score' against transformers on
#      the same GPU (same requests), and scoring throughput of both;
#   5. a tiny model's run on cuda (batch auto and 1) against the pure-Go
#      backend, per sample;
#   6. decode throughput; TF32 (GOEVAL_CUDA_TF32=1) against full precision;
#   7. engine packing/shared-prefix/cached-prefix exactness on cuda, and the shapes a
#      call needs compiled ahead, several at once; 4-bit weights packed (dequantized in
#      the graph) against --dequantize-4bit: scores, tokens, decode and peak memory;
#   8. the machine's CPU, 2 cores: goeval's matrix kernels (AVX-512 where it
#      has it) checked against the reference, and scoring with --device cpu
#      per kernel;
#  11. where bf16 compile time goes (bf16 graphs compiled about twice as
#      slowly as f32 ones on the H200): bf16 scoring and decode at the 0.5B
#      shape under XLA flag sets (GEMM autotuning off, command buffers off;
#      goeval already turns Triton GEMMs off on CUDA), their
#      compile times and speed, and the log-probs of each against the
#      default flags'. About 3 minutes: GPU_CHECK_STEPS="1 11".
#
# Usage: scripts/gpu_check.sh [BUNDLE_DIR] [OUT_DIR]   (defaults .gpu, $OUT)
# GPU_CHECK_STEPS="1 4 7" runs only those steps (step 1, which finds the
# plugin, always runs). With GPU_CHECK_SERIAL=1 step 4 also reruns goeval's
# float32 scoring runs compiling one shape at a time. GPU_CHECK_DEVICE=cpu and
# GPU_CHECK_QUICK=1 dry-run the logic of steps 1, 4, 9 and 10 on a CPU:
# the pure-Go backend and torch's CPU, tiny shapes and a few documents.
set -uo pipefail
source "$(dirname "$0")/gpu_lib.sh"
gpu_setup gpu_check "$@"
export HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1
export GOEVAL_COMPILE_CACHE="$work/xla-cache" # cold at the start: step 4's warm run reads what its cold runs saved
steps=" ${GPU_CHECK_STEPS:-1 4 9} "
[[ $steps == " all " ]] && steps=" 1 2 3 4 5 6 7 8 9 10 11 "
budget=${GPU_CHECK_BUDGET:-585} D=${GPU_CHECK_DEVICE:-cuda} quick=${GPU_CHECK_QUICK:-0}
step() { echo; echo "== $1 [$(date +%T), ${SECONDS} s]"; }
# tests BIN STEP: the test binary BIN is in the bundle (scripts/gpu_bundle.sh
# --tests, which leaves no room for the wheels of steps 4 and 5), else a note.
tests() {
  [[ -x $B/$1 ]] && return 0
  echo "-- $1 is not in the bundle: build it with scripts/gpu_bundle.sh --tests"
  note "$2" "$1" "not in the bundle (scripts/gpu_bundle.sh --tests)"
  return 1
}
want() { [[ $steps == *" $1 "* ]]; }
trap summary EXIT

# Quick (a dry run of the logic on a CPU): tiny shapes, few documents.
if [[ $quick == 1 ]]; then
  small05=(--layers 2 --hidden 64 --heads 4 --kv-heads 2 --intermediate 128)
  smallllama=(--layers 2 --hidden 128 --heads 4 --kv-heads 2 --intermediate 256)
  rvl_sizes=(--docs 12 --limit 8 --mmlu-limit 1 --gsm8k-limit 2 --lmeval-batch-size 8)
  nreq=16 gen_batches=1,4,8 prompt_len=16 gen_steps=8 auto_limit=4
  cap4=1200 rvl_cap=600 # lm-eval on 2 shared CPU cores: minutes
else
  small05=() smallllama=()
  rvl_sizes=(--docs 80 --limit 80 --mmlu-limit 3 --gsm8k-limit 16 --lmeval-batch-size 32)
  nreq=512 gen_batches=1,32,128 prompt_len=128 gen_steps=32 auto_limit=16
  cap4=410 rvl_cap=175
fi

step "environment"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c 'import importlib.metadata as m
for p in ["jax", "jax-cuda13-plugin", "jax-cuda13-pjrt", "torch", "transformers", "lm_eval"]:
    try: print(p, m.version(p))
    except Exception: print(p, "missing")'
if [[ -d "$bundle/whl" ]]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$bundle"/whl/*.whl \
    && export PYTHONPATH=/tmp/site && python3 -c 'import lm_eval, datasets; print("lm_eval", lm_eval.__version__, "datasets", datasets.__version__)'
fi
note env "device, budget" "$D, ${budget} s$([[ $quick == 1 ]] && echo ', quick')"

begin "1. device auto and a first forward (tiny model)" 60 || exit 1
tiny="$work/tiny"
$G synth tokenizer --out "$tiny" --vocab 512 >/dev/null
$G synth model --arch qwen2 --hidden 64 --layers 2 --heads 4 --kv-heads 2 --intermediate 128 \
  --tokenizer "$tiny" --seed 1 --out "$tiny" >/dev/null
probe() { timeout "$(t 50)" $G bench score --model "$tiny" --device auto -v 2>&1 | grep -v '^I[0-9]' | tail -12 | tee "$work/probe.txt"; }
if ! probe || ! grep -q "device=$D" "$work/probe.txt"; then
  [[ $D == cuda ]] || { echo "device auto did not pick $D: stopping"; exit 1; }
  sp=$(python3 -c 'import site; print(site.getsitepackages()[0])')
  libs=$(ls -d "$sp"/nvidia/*/lib "$sp"/nvidia/cu13/lib 2>/dev/null | tr '\n' ':')
  export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:-}"
  echo "-- retry with LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  probe || { echo "-- retry with GOEVAL_CUDA_PREALLOCATE=1"; export GOEVAL_CUDA_PREALLOCATE=1; probe; } || { echo "cuda does not start: stopping"; exit 1; }
fi
note 1 "--device auto" "$(grep -o 'device=[a-z-]*' "$work/probe.txt" | head -1)"

# The Llama-3.2-1B and Llama-3.1-8B shapes in bfloat16 (2.5 and 16 GB),
# written in the background on 8 cores while steps 1 and 4 run.
if want 9 || want 10; then
  (export GOMAXPROCS=8; synth_llama "$work/m1b" llama3.2-1b "${smallllama[@]}" &&
    synth_llama "$work/m8b" llama3.1-8b "${smallllama[@]}") >"$work/synth_big.log" 2>&1 &
  big=$!
fi
# wait_big waits for those models (once).
wait_big() {
  [[ -n ${big:-} ]] || return 0
  wait "$big" || echo "-- writing the 1B/8B models failed: $(tail -3 "$work/synth_big.log")"
  big=
}

# model05: the Qwen2.5-0.5B-shaped model ($m, in run_vs_lmeval's work
# folder) and 512 scoring requests for it, made once.
rvl="$work/rvl" m="$work/rvl/model"
model05() {
  [[ -f "$m/model.safetensors" ]] && return
  synth05 "$m" "${small05[@]}"
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

if want 2 && begin "2. log-probs on cuda vs transformers goldens" 300; then
tests hfparity.test 2 && (cd parity/models && GOEVAL_BINARY="$G" GOEVAL_HFPARITY_DEVICE=cuda timeout 150 "$B/hfparity.test" -test.v -test.count=1 2>&1 |
  grep -E '^(=== RUN|--- |PASS|FAIL|ok)|Δ|max' | grep -v '=== RUN')
tests engine.test 2 && (cd engine && GOEVAL_TEST_DEVICE=cuda timeout 150 "$B/engine.test" -test.v -test.count=1 -test.run 'TestArchsThroughEngine' 2>&1 |
  grep -E '^(--- |PASS|FAIL|ok)|Δ|greedy' )
fi

if want 3 && begin "3. 0.5B shape: goeval score vs transformers on the GPU, scoring throughput" 300; then
model05
timeout 120 python3 bench/peers/hf_bench.py --model "$m" --requests "$work/req.jsonl" --batch-size 64 --device cuda --out "$work/hf.jsonl"
timeout 120 $G score --model "$m" --device cuda --batch-size 64 <"$work/req.jsonl" >"$work/ge.jsonl"
echo "goeval score (cuda) vs transformers (cuda, f32): $(maxdiff "$work/hf.jsonl" "$work/ge.jsonl")"
for b in 16 64; do
  timeout 120 $G bench score --model "$m" --device cuda --requests 512 --batch-size $b 2>&1 | grep -v '^I[0-9]' | tail -1
  timeout 120 python3 bench/peers/hf_bench.py --model "$m" --requests "$work/req.jsonl" --batch-size $b --device cuda 2>&1 | tail -1
done
fi

if want 4 && begin "4. whole runs, goeval run vs lm_eval --model hf on the $D (0.5B shape), bfloat16 and float32" "$cap4"; then
model05
[[ -d $rvl/data ]] || $G synth data --task hellaswag,arc_challenge,gsm8k,mmlu_stem --n "${rvl_sizes[1]}" --out "$rvl/data" >/dev/null
rvl_args=(--goeval-bin "$G" --python python3 --lmeval-device "$D" --device "$D" "${rvl_sizes[@]}" --summary "$work/rvl.jsonl")
for dt in bfloat16 float32; do
  mkdir -p "$rvl/$dt"
  ln -sfn "$m" "$rvl/$dt/model"
  ln -sfn "$rvl/data" "$rvl/$dt/data"
  echo "-- $dt"
  timeout "$(t "$rvl_cap")" bench/peers/run_vs_lmeval.sh "${rvl_args[@]}" --dtype "$dt" --work "$rvl/$dt" || echo "-- $dt: stopped (exit $?)"
done
(cd "$rvl" && find . -name 'results_*.json' | tar czf "$out/run_vs_lmeval_results.tgz" -T - 2>/dev/null)
grep -h "compiled" "$rvl"/*/goeval-*/*.log >"$out/compiles.log" 2>/dev/null
python3 scripts/gpu_summary.py runs "$work/rvl.jsonl" "$out/summary.tsv"
echo "-- bfloat16 again, goeval only, on the compile cache the runs above filled"
mkdir -p "$rvl/bfloat16-warm"
ln -sfn "$m" "$rvl/bfloat16-warm/model"
ln -sfn "$rvl/data" "$rvl/bfloat16-warm/data"
timeout "$(t 60)" bench/peers/run_vs_lmeval.sh --goeval-bin "$G" --python python3 --device "$D" "${rvl_sizes[@]}" \
  --dtype bfloat16 --work "$rvl/bfloat16-warm" --skip-lmeval --summary "$work/rvl_warm.jsonl" || echo "-- warm: stopped (exit $?)"
python3 scripts/gpu_summary.py warm "$work/rvl_warm.jsonl" "$work/rvl.jsonl" "$out/summary.tsv"
if [[ ${GPU_CHECK_SERIAL:-0} == 1 ]]; then
  echo "-- goeval again on the scoring runs, compiling one shape at a time (GOEVAL_COMPILE_WORKERS=1)"
  GOEVAL_COMPILE_WORKERS=1 GOEVAL_COMPILE_CACHE=off timeout "$(t 200)" bench/peers/run_vs_lmeval.sh "${rvl_args[@]}" --dtype float32 --work "$rvl/float32" --skip-lmeval --runs mc,mmlu5
fi
fi

if want 5 && begin "5. tiny model: cuda (batch auto, batch 1) vs pure Go, per sample" 300; then
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

if want 6 && begin "6. decode throughput; TF32 against full float32" 300; then
model05
timeout 120 $G bench generate --model "$m" --device cuda --batches 1,32,128 --prompt-len 128 --steps 32 2>&1 | grep -v '^I[0-9]'
[[ -f $work/hf.jsonl ]] || timeout 120 python3 bench/peers/hf_bench.py --model "$m" --requests "$work/req.jsonl" --batch-size 64 --device cuda --out "$work/hf.jsonl"
GOEVAL_CUDA_TF32=1 timeout 120 $G score --model "$m" --device cuda --batch-size 64 <"$work/req.jsonl" >"$work/ge_tf32.jsonl"
echo "with TF32 (GOEVAL_CUDA_TF32=1) vs transformers: $(maxdiff "$work/hf.jsonl" "$work/ge_tf32.jsonl")"
GOEVAL_CUDA_TF32=1 timeout 120 $G bench score --model "$m" --device cuda --requests 512 --batch-size 64 2>&1 | grep -v '^I[0-9]' | tail -1
fi

if want 7 && begin "7. packing, shared prefixes, fixed prefill shapes and compiles ahead on cuda (engine tests)" 300; then
tests engine.test 7 && (cd engine && GOEVAL_TEST_DEVICE=cuda timeout 240 "$B/engine.test" -test.v -test.count=1 \
  -test.run 'TestCompileAhead|TestCompileCache|TestGeneratePrefixShared|TestPackedExact|TestPrefixCacheExact|TestGenBatchAuto' 2>&1 | grep -E '^(--- |    --- |PASS|FAIL|ok)|floor|Δ|graphs_test' | head -60)
# 4-bit weights kept packed and dequantized in the graph vs dequantized at load (--dequantize-4bit): the
# engine test (scores within 1e-4, same tokens), then a Llama-3.2-1B-shaped nf4 checkpoint's decode and peak memory both ways.
tests engine.test 7 && (cd engine && GOEVAL_TEST_DEVICE=cuda timeout 120 "$B/engine.test" -test.v -test.count=1 -test.run 'TestQ4PackedOnXLA' 2>&1 | grep -E '^(--- |    --- |PASS|FAIL|ok)' | head -10)
[[ -f $work/nf4-1b/config.json ]] || python3 bench/q4/synth_nf4.py --out "$work/nf4-1b" --preset llama3.2-1b >/dev/null
for f in "" --dequantize-4bit; do echo "-- nf4 1B ${f:-packed}"; gpumem timeout 100 $G bench generate --model "$work/nf4-1b" --device cuda --dtype bfloat16 --batches 1,32 --prompt-len 128 --steps 32 $f 2>&1 | grep -v '^I[0-9]' | tail -3; done
fi

if want 8 && begin "8. this machine's CPU on 2 cores: goeval's matrix kernels, scoring with --device cpu" 300; then
grep -m1 'model name' /proc/cpuinfo
cpu2=(taskset -c 0,1 env GOMAXPROCS=2)
tests gemm.test 8 && (cd internal/gemm && "${cpu2[@]}" timeout 120 "$B/gemm.test" -test.v -test.count=1 2>&1 | grep -E '^(--- |PASS|FAIL|ok)|kernel' | head -30)
tests gemm.test 8 && (cd internal/gemm && "${cpu2[@]}" timeout 120 "$B/gemm.test" -test.run '^$' -test.bench 'MatMul' -test.benchtime 4x 2>&1 | grep -E 'Benchmark|kernel' | head -20)
model05
for k in avx512 avx2; do
  GOEVAL_GEMM_KERNEL=$k "${cpu2[@]}" timeout 150 $G bench score --model "$m" --device cpu 2>&1 | grep -v '^I[0-9]' | tail -1
done
head -16 "$work/req.jsonl" >"$work/req16.jsonl"
"${cpu2[@]}" timeout 150 python3 bench/peers/hf_bench.py --model "$m" --requests "$work/req16.jsonl" --batch-size 8 --threads 2 --device cpu 2>&1 | tail -1
fi
if want 9 && begin "9. bfloat16 at the Llama-3.2-1B and Llama-3.1-8B shapes: MFU, scoring and decode against transformers" 165; then
peak=$(timeout "$(t 40)" python3 scripts/gpu_summary.py peak "$D" "$quick")
echo "torch bfloat16 dense matmul: ${peak:-?} TFLOP/s ($D)"
note 9 "torch bf16 dense matmul peak" "${peak:-?} TFLOP/s"
wait_big
for size in 1b 8b; do
  md="$work/m$size"
  [[ -f $md/config.json ]] || { note 9 "$size" "no model (see $work/synth_big.log)"; continue; }
  python3 bench/peers/random_requests.py "$md/config.json" "$nreq" 120 8 >"$work/req$size.jsonl"
  echo "-- $size: goeval bench score, transformers (scoring and generate), goeval bench generate"
  gpumem timeout "$(t 45)" $G bench score --model "$md" --device "$D" --dtype bfloat16 --batch-size 64 --requests "$nreq" \
    >"$work/score$size.txt" 2>"$work/score$size.err"
  timeout "$(t 75)" python3 bench/peers/hf_bench.py --model "$md" --requests "$work/req$size.jsonl" --batch-size 64 \
    --device "$D" --dtype bfloat16 --attn sdpa --generate-batches "$gen_batches" --prompt-len "$prompt_len" --steps "$gen_steps" \
    >"$work/hf$size.jsonl" 2>"$work/hf$size.err"
  gpumem timeout "$(t 55)" $G bench generate --model "$md" --device "$D" --dtype bfloat16 --batches "$gen_batches" \
    --prompt-len "$prompt_len" --steps "$gen_steps" >"$work/gen$size.txt" 2>"$work/gen$size.err"
  cat "$work/score$size.txt" "$work/hf$size.jsonl" "$work/gen$size.txt"
  grep -h -v '^I[0-9]' "$work/score$size.err" "$work/hf$size.err" "$work/gen$size.err" | grep -v 'Loading weights' | tail -6
  python3 scripts/gpu_summary.py bench "$size" "$peak" "$work" "$out/summary.tsv"
done
fi

if want 10 && begin "10. goeval run --batch-size auto at the 8B shape (bfloat16)" 50; then
wait_big
d10="$rvl/data"
[[ -d $d10 ]] || { d10="$work/data10"; $G synth data --task hellaswag,gsm8k --n 32 --out "$d10" >/dev/null; }
gpumem timeout "$(t 48)" $G run --model "$work/m8b" --data-dir "$d10" --tasks hellaswag,gsm8k --limit "$auto_limit" \
  --gen-kwargs max_gen_toks=32 --device "$D" --dtype bfloat16 --batch-size auto --output-path "$work/auto8b" >"$work/auto8b.log" 2>&1
grep -v '^I[0-9]' "$work/auto8b.log" | tail -6
python3 scripts/gpu_summary.py auto "$work/auto8b" "$work/auto8b.log" "$out/summary.tsv"
fi

if want 11 && begin "11. bfloat16 compile time under XLA flag sets (0.5B shape): scoring and decode" 240; then
model05
head -64 "$work/req.jsonl" >"$work/req64.jsonl"
export GOEVAL_COMPILE_CACHE=off # compile times, not loads (step 11 runs last)
for flags in "" --xla_gpu_autotune_level=0 --xla_gpu_enable_command_buffer= "--xla_gpu_autotune_level=0 --xla_gpu_enable_command_buffer="; do
  tag=${flags:-default}
  tag=${tag// /_}
  echo "-- XLA_FLAGS=${flags:-none (goeval adds its defaults)}"
  XLA_FLAGS="$flags" timeout "$(t 40)" $G bench score --model "$m" --device "$D" --dtype bfloat16 --batch-size 64 --requests 512 2>&1 |
    grep -o 'tokens/s=[0-9.]*\|compile_ms=[0-9.]*\|graphs=[0-9]*' | tr '\n' ' '
  echo
  XLA_FLAGS="$flags" timeout "$(t 40)" $G bench generate --model "$m" --device "$D" --dtype bfloat16 --batches 1,32 \
    --prompt-len 128 --steps 32 2>&1 | grep -v '^I[0-9]' | tail -2
  XLA_FLAGS="$flags" timeout "$(t 30)" $G score --model "$m" --device "$D" --dtype bfloat16 --batch-size 64 \
    <"$work/req64.jsonl" >"$work/c11-$tag.jsonl" 2>/dev/null
  [[ $tag == default ]] || python3 - "$work/c11-default.jsonl" "$work/c11-$tag.jsonl" <<'EOF'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
d = max((abs(x["logprob"] - y["logprob"]) for x, y in zip(a, b)), default=float("nan"))
print(f"log-probs against the default flags: {len(b)} of {len(a)} requests, max |Δ| {d:.3g}")
EOF
done
fi
echo
echo "== done [$(date +%T), ${SECONDS} s]"
