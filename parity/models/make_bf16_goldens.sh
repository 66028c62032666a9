#!/usr/bin/env bash
# Regenerates the weight-only bfloat16 goldens in models/testdata/hf-bf16/:
# for each tiny model below, stored in bf16, synth_args.txt (the 'goeval
# synth model' flags, without --out), requests.jsonl (seeded random token
# ids) and reference_f32.jsonl: transformers in float32 on the bf16 weights
# (hf_logprobs.py; widened exactly), which goeval's --dtype bfloat16 on the
# pure-Go backend (bf16 weights, f32 compute) must match to the float32
# bound. Against transformers in bfloat16 goeval is held by the dtype
# goldens (make_goldens.sh, dtype_test.go). The weights are not stored: the
# Go test (bf16parity_test.go) re-synthesizes them.
#
# Usage: parity/models/make_bf16_goldens.sh [--check]
# --check writes them into a temporary folder and fails unless each equals the
# committed file byte for byte (make parity).
# Needs .venv (parity/requirements.txt) and Go.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
py="$root/.venv/bin/python"
here="$root/parity/models"
out="$root/models/testdata/hf-bf16"
[[ -x "$py" ]] || { echo "make_bf16_goldens.sh: $py missing: create .venv from parity/requirements.txt" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
check=0
if [[ "${1:-}" == --check ]]; then
  check=1
  committed="$out"
  out="$work/check"
fi
goeval="$work/goeval"
go build -o "$goeval" ./cmd/goeval

# name | synth flags | longest request (tokens) | request seed
models=(
  "qwen2-tied|--arch qwen2 --hidden 64 --layers 2 --heads 4 --kv-heads 2 --intermediate 128 --vocab 512 --tie --rope-theta 1000000 --dtype bf16 --seed 21|96|201"
  "llama|--arch llama --hidden 64 --layers 2 --heads 4 --kv-heads 2 --intermediate 128 --vocab 512 --dtype bf16 --seed 22|96|202"
)

for entry in "${models[@]}"; do
  IFS='|' read -r name flags longest seed <<<"$entry"
  dir="$out/$name"
  mkdir -p "$dir"
  printf '%s\n' "$flags" >"$dir/synth_args.txt"
  # shellcheck disable=SC2086 # flags are words
  "$goeval" synth model $flags --out "$work/$name" 2>/dev/null
  vocab="$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["vocab_size"])' "$work/$name/config.json")"
  "$py" "$here/make_requests.py" --vocab "$vocab" --seed "$seed" --max-total "$longest" --out "$dir/requests.jsonl"
  "$py" "$here/hf_logprobs.py" --model "$work/$name" --requests "$dir/requests.jsonl" --out "$dir/reference_f32.jsonl" 2>"$work/$name.log" \
    || { cat "$work/$name.log" >&2; exit 1; }
  echo "make_bf16_goldens.sh: $name: $(wc -l <"$dir/requests.jsonl") requests"
done

if ((check)); then
  if diff -r "$committed" "$out" >&2; then
    echo "make_bf16_goldens.sh: goldens identical to the live references"
  else
    echo "make_bf16_goldens.sh: goldens differ from the live references (above)" >&2
    exit 1
  fi
fi
