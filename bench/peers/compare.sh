#!/usr/bin/env bash
# Runs the same scoring work through goeval ('goeval bench score'), Hugging
# Face transformers (CPU torch, hf_bench.py) and llama.cpp (node-llama-cpp,
# llamacpp_score.mjs on an f32 GGUF made by hf_to_gguf.py), one after the
# other in this run, and prints goeval's tokens/s ratio to each peer.
#
# Usage: bench/peers/compare.sh --model DIR [--requests N] [--context C]
#          [--continuation K] [--batch-size B] [--threads T]
#          [--device auto[,cpu,...]] [--skip-goeval] [--skip-hf] [--skip-llamacpp]
# --device takes a comma-separated list: goeval runs once per device (auto,
# the default, installs the XLA CPU plugin on first use), each compared
# with the peers of the same run.
# Every request is C context + K continuation random ids (the shape 'goeval
# bench score' uses; goeval draws its own ids from the same shape, which does
# not change a dense model's work). Tokens = model input positions
# (C + K - 1 per request) for all three. Needs .venv, Go, node and
# 'npm install' in bench/peers (npm 11 rejects 'npm ci' on this lock).
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/bench/peers"
py="$root/.venv/bin/python"
model="" n=16 ctx=120 cont=8 batch=8 threads=2 device=auto
skip_goeval=0 skip_hf=0 skip_llama=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --model) model="$2"; shift 2 ;;
    --requests) n="$2"; shift 2 ;;
    --context) ctx="$2"; shift 2 ;;
    --continuation) cont="$2"; shift 2 ;;
    --batch-size) batch="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --device) device="$2"; shift 2 ;;
    --skip-goeval) skip_goeval=1; shift ;;
    --skip-hf) skip_hf=1; shift ;;
    --skip-llamacpp) skip_llama=1; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown flag '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n "$model" && -f "$model/config.json" ]] || { echo "compare.sh: --model DIR with a config.json is required" >&2; exit 2; }
model="$(cd "$model" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Seeded random requests of the benchmark's shape.
"$py" "$here/random_requests.py" "$model/config.json" "$n" "$ctx" "$cont" >"$work/requests.jsonl"
echo "model $model: $n requests × ($ctx context + $cont continuation), $threads threads, $(nproc) cores"

tps() { "$py" -c 'import json,sys; print("%.2f" % json.loads(sys.stdin.read().strip().splitlines()[-1])["tokens_per_s"])'; }
declare -A goeval_tps=()
hf_tps="" llama_tps=""

if [[ $skip_goeval == 0 ]]; then
  (cd "$root" && go build -o "$work/goeval" ./cmd/goeval)
  IFS=, read -ra devices <<<"$device"
  for d in "${devices[@]}"; do
    line="$("$work/goeval" bench score --model "$model" --device "$d" --batch-size "$batch" \
      --requests "$n" --context "$ctx" --continuation "$cont")"
    echo "goeval ($d): $line"
    goeval_tps[$d]="$(sed -n 's/.*tokens\/s=\([0-9.]*\).*/\1/p' <<<"$line")"
  done
fi
if [[ $skip_hf == 0 ]]; then
  hf_tps="$("$py" "$here/hf_bench.py" --model "$model" --requests "$work/requests.jsonl" \
    --batch-size "$batch" --threads "$threads" 2>"$work/hf.err" | tps)"
  echo "transformers: $(grep 'tokens/s' "$work/hf.err")"
fi
if [[ $skip_llama == 0 ]]; then
  "$py" "$here/hf_to_gguf.py" --model "$model" --out "$work/model.gguf" >/dev/null
  llama_tps="$(cd "$here" && node llamacpp_score.mjs --model "$work/model.gguf" --requests "$work/requests.jsonl" \
    --threads "$threads" --sequences "$batch" 2>"$work/llama.err" | tps)"
  echo "llama.cpp:    $(cat "$work/llama.err")"
fi

ratio() { "$py" -c 'import sys; print("%.3f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$1" "$2"; }
printf '\n%-22s %12s\n' "engine" "tokens/s"
for d in "${!goeval_tps[@]}"; do printf '%-22s %12s\n' "goeval --device $d" "${goeval_tps[$d]}"; done
for e in transformers:$hf_tps llama.cpp:$llama_tps; do
  [[ -n "${e#*:}" ]] && printf '%-22s %12s\n' "${e%%:*}" "${e#*:}"
done
for d in "${!goeval_tps[@]}"; do
  [[ -n "$hf_tps" ]] && echo "goeval ($d) / transformers = $(ratio "${goeval_tps[$d]}" "$hf_tps")×"
  [[ -n "$llama_tps" ]] && echo "goeval ($d) / llama.cpp    = $(ratio "${goeval_tps[$d]}" "$llama_tps")×"
done
exit 0
