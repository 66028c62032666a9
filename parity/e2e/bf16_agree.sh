#!/usr/bin/env bash
# goeval run against lm_eval --model hf, both in bfloat16 on the CPU: a
# small random Qwen2-shaped model (Qwen3 tokenizer), 200 synthetic
# documents each of hellaswag and arc_challenge. lm-eval takes its
# log-softmax in bf16 and sums in bf16, so near-tied choices tie there;
# goeval rounds the same way by default (engine/lpround.go). Fails unless
# each goeval device (cpu, xla-cpu) gives the same per-document metrics on
# at least 99 % of the documents (parity/e2e/agree.py lists the rest with
# both engines' margins). Part of make parity; needs .venv and Go.
#
# Usage: parity/e2e/bf16_agree.sh [GOEVAL_BINARY]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
py="$root/.venv/bin/python"
bin=${1:-}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [[ -z $bin ]]; then
  bin="$work/goeval"
  go build -o "$bin" ./cmd/goeval
fi
m="$work/model"
mkdir -p "$m"
zcat models/tokenizer/testdata/qwen3/tokenizer.json.gz >"$m/tokenizer.json"
zcat models/tokenizer/testdata/qwen3/tokenizer_config.json.gz >"$m/tokenizer_config.json"
"$bin" synth model --preset qwen2.5-0.5b --layers 2 --hidden 64 --heads 4 --kv-heads 2 --intermediate 128 \
  --tokenizer "$m" --out "$m" >/dev/null
"$bin" synth data --task hellaswag,arc_challenge --n 200 --out "$work/data" >/dev/null
export HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
"$py" parity/e2e/lmeval_synth.py --synth-dir "$work/data" --model hf --model_args "pretrained=$m,dtype=bfloat16" \
  --device cpu --batch_size 32 --tasks hellaswag,arc_challenge --limit 200 --log_samples --output_path "$work/lmeval" \
  >"$work/lmeval.log" 2>&1 || { tail -20 "$work/lmeval.log"; exit 1; }
status=0
for dev in cpu xla-cpu; do
  "$bin" run --model "$m" --data-dir "$work/data" --tasks hellaswag,arc_challenge --limit 200 --dtype bfloat16 \
    --device "$dev" --compile-cache off --log-samples --output-path "$work/goeval-$dev" >"$work/goeval-$dev.log" 2>&1 ||
    { tail -5 "$work/goeval-$dev.log"; exit 1; }
  echo "-- $dev"
  "$py" parity/e2e/agree.py "$work/lmeval" "$work/goeval-$dev" --min 0.99 || status=1
done
exit $status
