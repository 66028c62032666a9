#!/usr/bin/env bash
# A whole evaluation, goeval against lm-eval: `goeval run` (once per
# device) and `lm_eval --model hf` on the same synthetic model (random f32
# weights of --preset's shape with Qwen3's real tokenizer), the same
# synthetic documents (goeval synth data, read by lm-eval through
# parity/e2e/lmeval_synth.py) and the same tasks, one engine at a time in
# this run. Prints each engine's wall time, goeval's speed-up over lm-eval,
# what goeval's engine computed (goeval_timing), and whether the results
# and per-sample files agree: within 1e-4 in float32 (parity/e2e/compare.py),
# per document in --dtype bfloat16 (parity/e2e/agree.py: the same metrics
# on at least 99 % of documents, each difference listed with both
# engines' log-likelihood margins).
#
# Usage: bench/peers/run_vs_lmeval.sh [--preset qwen2.5-0.5b] [--layers N]
#          [--limit N] [--mmlu-limit N] [--gsm8k-limit N] [--runs mc,gsm8k,mmlu5]
#          [--batch-size B|auto] [--lmeval-batch-size B] [--device auto[,cpu]]
#          [--skip-lmeval] [--work DIR] [--lmeval-device cpu|cuda]
#          [--goeval-bin PATH] [--python PY] [--docs N]
#          [--dtype float32|bfloat16] [--summary FILE]
# --docs: synthetic documents per task (and mmlu subtask) written once per
# --work folder. --goeval-bin and --python serve machines without Go or .venv (a GPU
# machine: scripts/gpu_check.sh). goeval runs with its defaults
# (--batch-size auto) unless told otherwise; lm-eval with --batch_size 8
# (its default is 1). --dtype is both engines' compute dtype (lm-eval's
# dtype= model argument, goeval's --dtype) over the same float32 weights.
# --summary appends one JSON line per engine and run (wall seconds,
# goeval's compile seconds and shapes, the comparison's outcome) to FILE.
# Three invocations per engine: hellaswag + arc_challenge (--limit each),
# gsm8k with its own 5 shots (--gsm8k-limit) and mmlu_stem with
# --num_fewshot 5 (its 19 subtasks, --mmlu-limit each). Needs .venv (make
# venv) and Go.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
py="$root/.venv/bin/python"
preset=qwen2.5-0.5b layers="" limit=40 mmlu_limit=4 gsm8k_limit=8 batch=auto lmeval_batch=8 devices=auto
only="mc,gsm8k,mmlu5"
skip_lmeval=0 work="" lmeval_device=cpu goeval_bin="" docs=60 dtype=float32 summary=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --preset) preset="$2"; shift 2 ;;
    --layers) layers="$2"; shift 2 ;;
    --limit) limit="$2"; shift 2 ;;
    --mmlu-limit) mmlu_limit="$2"; shift 2 ;;
    --gsm8k-limit) gsm8k_limit="$2"; shift 2 ;;
    --batch-size) batch="$2"; shift 2 ;;
    --lmeval-batch-size) lmeval_batch="$2"; shift 2 ;;
    --runs) only="$2"; shift 2 ;;
    --device) devices="$2"; shift 2 ;;
    --skip-lmeval) skip_lmeval=1; shift ;;
    --work) work="$2"; shift 2 ;;
    --lmeval-device) lmeval_device="$2"; shift 2 ;;
    --goeval-bin) goeval_bin="$2"; shift 2 ;;
    --python) py="$2"; shift 2 ;;
    --docs) docs="$2"; shift 2 ;;
    --dtype) dtype="$2"; shift 2 ;;
    --summary) summary="$2"; shift 2 ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    *) echo "run_vs_lmeval.sh: unknown flag '$1' (see --help)" >&2; exit 2 ;;
  esac
done
command -v "$py" >/dev/null || { echo "run_vs_lmeval.sh: $py is missing: run 'make venv' first (or pass --python)" >&2; exit 2; }
case "$dtype" in float32|bfloat16) ;; *) echo "run_vs_lmeval.sh: --dtype $dtype: use float32 or bfloat16" >&2; exit 2 ;; esac
if [[ -z "$work" ]]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
bin="$work/goeval"
if [[ -n "$goeval_bin" ]]; then
  cp "$goeval_bin" "$bin"
else
  (cd "$root" && go build -o "$bin" ./cmd/goeval)
fi

m="$work/model" d="$work/data"
if [[ ! -f "$m/model.safetensors" ]]; then
  mkdir -p "$m"
  zcat "$root/models/tokenizer/testdata/qwen3/tokenizer.json.gz" >"$m/tokenizer.json"
  zcat "$root/models/tokenizer/testdata/qwen3/tokenizer_config.json.gz" >"$m/tokenizer_config.json"
  "$bin" synth model --preset "$preset" ${layers:+--layers "$layers"} --tokenizer "$m" --out "$m" >/dev/null
fi
[[ -d "$d" ]] || "$bin" synth data --task hellaswag,arc_challenge,gsm8k,mmlu_stem --n "$docs" --out "$d" >/dev/null

# The invocations: name, tasks, extra arguments (lm-eval spelling).
all_runs=("mc|hellaswag,arc_challenge|--limit $limit"
      "gsm8k|gsm8k|--limit $gsm8k_limit"
      "mmlu5|mmlu_stem|--num_fewshot 5 --limit $mmlu_limit")
runs=()
for r in "${all_runs[@]}"; do
  [[ ",$only," == *",${r%%|*},"* ]] && runs+=("$r")
done

# secs CMD...: runs CMD, prints its wall time in seconds on fd 3.
secs() { local t0 t1; t0=$(date +%s.%N); "$@"; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >&3; }

# note JSON: appends one line to --summary's file (nothing without it).
note() { [[ -z $summary ]] || echo "$1" >>"$summary"; }

declare -A total=()
run_engine() { # engine-name out-prefix command-builder
  local name="$1" t=0 s
  for r in "${runs[@]}"; do
    IFS='|' read -r rn tasks extra <<<"$r"
    local out="$work/$name/$rn"
    rm -rf "$out"
    mkdir -p "$work/$name"
    s=$( { "run_$2" "$rn" "$tasks" "$extra" "$out" 3>&1 >"$out.log" 2>&1; } ) || { echo "$name $rn failed; log: $out.log" >&2; tail -5 "$out.log" >&2; exit 1; }
    echo "  $name $rn: ${s%.*} s"
    t=$(awk -v a="$t" -v b="$s" 'BEGIN { print a + b }')
    note "{\"engine\": \"$name\", \"run\": \"$rn\", \"dtype\": \"$dtype\", \"seconds\": $s}"
  done
  total[$name]=$t
}

run_lmeval() { # run-name tasks extra out
  secs env HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false \
    "$py" "$root/parity/e2e/lmeval_synth.py" --synth-dir "$d" --model hf \
    --model_args "pretrained=$m,dtype=$dtype" --device "$lmeval_device" --batch_size "$lmeval_batch" \
    --tasks "$2" $3 --log_samples --output_path "$4"
}

goeval_device=auto
run_goeval() { # run-name tasks extra out
  secs "$bin" run --model "$m" --data-dir "$d" --device "$goeval_device" --batch-size "$batch" --dtype "$dtype" \
    --tasks "$2" ${3//_/-} --log-samples --output-path "$4"
}

echo "model: $preset${layers:+ with $layers layers}, Qwen3 tokenizer, $dtype; goeval batch $batch, lm-eval batch $lmeval_batch; runs $only; limit $limit (mmlu_stem $mmlu_limit per subtask, 5-shot); $(nproc) cores; work $work"
if [[ $skip_lmeval == 0 ]]; then
  run_engine lm-eval lmeval
fi
IFS=',' read -ra devs <<<"$devices"
for dev in "${devs[@]}"; do
  goeval_device="$dev"
  run_engine "goeval-$dev" goeval
  for r in "${runs[@]}"; do
    rn="${r%%|*}"
    "$py" - "$work/goeval-$dev/$rn" "$summary" "$dtype" <<'PY'
import glob, json, sys
f = sorted(glob.glob(sys.argv[1] + "/**/results_*.json", recursive=True))[-1]
t = json.load(open(f))["goeval_timing"]
print("    %s: scoring computed %d of %d requested tokens (%.3f); %d prefilled, %d decoded; %d forwards, %d shapes, %.1f s compiling"
      % (sys.argv[1].rsplit("/", 2)[-2:], t["scoring_tokens_computed"], t["scoring_tokens_requested"],
         t.get("scoring_computed_ratio", 0), t["prefill_tokens"], t["decoded_tokens"], t["forward_passes"],
         t["shapes_compiled"], t["compile_seconds"]))
if sys.argv[2]:
    with open(sys.argv[2], "a") as out:
        out.write(json.dumps({"engine": sys.argv[1].rsplit("/", 2)[-2], "run": sys.argv[1].rsplit("/", 1)[-1],
                              "dtype": sys.argv[3], "goeval_timing": t}) + "\n")
PY
    if [[ $skip_lmeval == 0 && $dtype != float32 ]]; then
      "$py" "$root/parity/e2e/agree.py" "$work/lm-eval/$rn" "$work/goeval-$dev/$rn" ${summary:+--json "$summary"} | sed 's/^/    /' || true
    elif [[ $skip_lmeval == 0 ]]; then
      "$py" - "$root/parity/e2e" "$work/lm-eval/$rn" "$work/goeval-$dev/$rn" "$summary" <<'PY' || true
import json, sys
sys.path.insert(0, sys.argv[1])
import compare
compare.RUN_SPECIFIC.add("config.device")  # cpu (torch) against goeval's device
problems, notes = compare.compare_dirs(sys.argv[2], sys.argv[3], {})
print("    compare with lm-eval: %d differences, %d near-tie notes" % (len(problems), len(notes)))
for p in problems[:5]:
    print("      DIFF:", p[:300])
if sys.argv[4]:
    with open(sys.argv[4], "a") as out:
        out.write(json.dumps({"lmeval": sys.argv[2], "goeval": sys.argv[3], "compare_differences": len(problems),
                              "near_ties": len(notes), "first": problems[:5]}) + "\n")
PY
    fi
  done
done
echo
echo "| engine | wall s | goeval's speed-up |"
echo "| --- | ---: | ---: |"
for k in "${!total[@]}"; do
  ratio=""
  if [[ -n "${total[lm-eval]:-}" && $k != lm-eval ]]; then ratio=$(awk -v a="${total[lm-eval]}" -v b="${total[$k]}" 'BEGIN { printf "%.2f", a / b }'); fi
  printf '| %s | %.0f | %s |\n' "$k" "${total[$k]}" "${ratio:+${ratio}×}"
done
