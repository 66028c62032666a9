#!/usr/bin/env bash
# Regenerates the Hugging Face transformers goldens in models/testdata/hf/:
# for each tiny model below, synth_args.txt (the 'goeval synth model' flags,
# without --out), requests.jsonl (seeded random token ids), reference.jsonl
# (transformers' log-probabilities in float32, parity/models/hf_logprobs.py),
# requests_greedy.jsonl (each distinct context with the float32 model's 4
# greedy tokens) and reference_bfloat16.jsonl, reference_float16.jsonl (the
# model loaded in that dtype, on requests.jsonl then requests_greedy.jsonl;
# parity/models/dtype_test.go). The model weights are not stored: the Go
# tests re-synthesize them from synth_args.txt.
#
# Usage: parity/models/make_goldens.sh [--check]
#   --check  regenerate into a temporary folder and fail on any difference
#            (compare_goldens.py: files byte-identical, float32 numbers within
#            2e-5, half-precision ones within parity/reftol.py's dtype_tol).
# Needs .venv (parity/requirements.txt) and Go.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
py="$root/.venv/bin/python"
here="$root/parity/models"
golden="$root/models/testdata/hf"
check=0
case "${1:-}" in
  "") ;;
  --check) check=1 ;;
  *) echo "make_goldens.sh: unknown argument '$1' (use --check or nothing)" >&2; exit 2 ;;
esac
[[ -x "$py" ]] || { echo "make_goldens.sh: $py missing: create .venv from parity/requirements.txt" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
goeval="$work/goeval"
go build -o "$goeval" ./cmd/goeval

out="$golden"
[[ $check == 1 ]] && out="$work/golden"
mkdir -p "$out"

# name | synth flags | longest request (tokens) | request seed
models=(
  "llama|--arch llama --hidden 64 --layers 2 --heads 4 --kv-heads 2 --intermediate 128 --vocab 512 --seed 11|96|101"
  "mistral-swa|--arch mistral --hidden 64 --layers 2 --heads 4 --kv-heads 2 --intermediate 128 --vocab 512 --sliding-window 16 --seed 12|96|102"
  "qwen2|--arch qwen2 --hidden 32 --layers 2 --heads 4 --kv-heads 2 --intermediate 96 --vocab 512 --tie --rope-theta 1000000 --seed 13|96|103"
  "qwen3|--arch qwen3 --hidden 48 --layers 2 --heads 4 --kv-heads 2 --head-dim 16 --intermediate 144 --vocab 512 --rope-theta 1000000 --seed 14|96|104"
  "llama3-rope|--arch llama --hidden 64 --layers 2 --heads 4 --kv-heads 1 --intermediate 128 --vocab 512 --tie --rope-theta 500000 --rope-scaling llama3 --rope-factor 8 --rope-low 1 --rope-high 4 --rope-original 64 --max-positions 4096 --seed 15|300|105"
)

for entry in "${models[@]}"; do
  IFS='|' read -r name flags longest seed <<<"$entry"
  dir="$out/$name"
  mkdir -p "$dir"
  printf '%s\n' "$flags" >"$dir/synth_args.txt"
  # shellcheck disable=SC2086 # flags are words
  "$goeval" synth model $flags --out "$work/$name.a" 2>/dev/null
  # shellcheck disable=SC2086
  "$goeval" synth model $flags --out "$work/$name.b" 2>/dev/null
  if ! diff -r "$work/$name.a" "$work/$name.b" >/dev/null; then
    echo "make_goldens.sh: $name: 'goeval synth model $flags' is not byte-deterministic" >&2
    exit 1
  fi
  vocab="$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["vocab_size"])' "$work/$name.a/config.json")"
  "$py" "$here/make_requests.py" --vocab "$vocab" --seed "$seed" --max-total "$longest" --out "$dir/requests.jsonl"
  hf() { "$py" "$here/hf_logprobs.py" --model "$work/$name.a" "$@" 2>"$work/$name.log" || { cat "$work/$name.log" >&2; exit 1; }; }
  hf --requests "$dir/requests.jsonl" --out "$dir/reference.jsonl"
  hf --requests "$dir/requests.jsonl" --greedy-requests 4 --out "$dir/requests_greedy.jsonl"
  cat "$dir/requests.jsonl" "$dir/requests_greedy.jsonl" >"$work/$name.all.jsonl"
  for dtype in bfloat16 float16; do
    hf --requests "$work/$name.all.jsonl" --dtype "$dtype" --out "$dir/reference_$dtype.jsonl"
  done
  echo "make_goldens.sh: $name: $(wc -l <"$dir/requests.jsonl") requests"
done

if [[ $check == 1 ]]; then
  "$py" "$here/compare_goldens.py" "$golden" "$out"
fi
