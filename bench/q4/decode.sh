#!/usr/bin/env bash
# Packed 4-bit decode benchmark (issue 40): one sequence's greedy decode
# tokens/s at the same shape through goeval's cpu device with bf16-held
# weights, goeval with a bitsandbytes nf4 checkpoint of them kept packed,
# the same through the opt-in VDPBF16PS kernels (GOMLX_BACKEND=gocpu:bf16=dot:
# activations rounded to bf16; where the CPU has AVX512_BF16), and llama.cpp
# (node-llama-cpp) on a Q4_0 GGUF of them and, with --gguf-bf16-head, on one
# whose embedding and tied head stay bf16 as in the nf4 checkpoint (the same
# bytes per step), with --gguf-preset on the file llama.cpp's own quantizer
# writes for Q4_0 (bench/q4/llama_quantize.py: its tied head Q6_K), and
# goeval's two again reading the whole LM head each
# greedy step (GOMLX_BACKEND=gocpu:screen=off; by default it reads an int8
# screening copy, the same tokens), interleaved round by round so that the
# machine's load hits all alike; prints each run and the median ratios.
#
# Usage: bench/q4/decode.sh --bf16 DIR --nf4 DIR --gguf FILE [--gguf-bf16-head FILE]
#          [--gguf-preset FILE] [--rounds 3] [--prompt-len 64] [--steps 32] [--threads 2] (llama.cpp's
#          threads; goeval uses every core)
# Making the inputs (a Llama-3.2-1B shape): goeval synth model --preset
# llama3.2-1b --dtype bf16 --seed 1 --out BF16; bench/q4/bnb_quantize.py
# --model BF16 --out NF4 (--quantize-lm-head: the LM head 4-bit too, as
# llama.cpp's Q4_0 file has it); a copy of BF16 with a Llama 3 tokenizer.json
# through bench/peers/hf_to_gguf.py (f32 GGUF), then bench/q4/q4_0_gguf.py
# (with --embd-type bf16 for --gguf-bf16-head; bench/q4/llama_quantize.py
# --pure writes the same tensors as its default) and, for --gguf-preset,
# bench/q4/llama_quantize.py without --pure.
# goeval runs with --dtype bfloat16 (weight-only bf16: the embedding and
# tied LM head bf16 in both). GOEVAL_GEMM_KERNEL=avx2 in the environment
# times goeval's AVX2 kernels (then without the bf16=dot column); llama.cpp
# picks its own. Needs Go, .venv, node and bench/peers'
# node_modules.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bf16="" nf4="" gguf="" gguf16="" ggufp="" rounds=3 plen=64 steps=32 threads=2
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bf16) bf16="$2"; shift 2 ;;
    --nf4) nf4="$2"; shift 2 ;;
    --gguf) gguf="$2"; shift 2 ;;
    --gguf-bf16-head) gguf16="$2"; shift 2 ;;
    --gguf-preset) ggufp="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --prompt-len) plen="$2"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    -h|--help) sed -n '2,31p' "$0"; exit 0 ;;
    *) echo "decode.sh: unknown flag '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n "$bf16" && -n "$nf4" && -n "$gguf" ]] || { echo "decode.sh: --bf16, --nf4 and --gguf are required" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/goeval" ./cmd/goeval)
dot=""
if grep -q avx512_bf16 /proc/cpuinfo 2>/dev/null && [[ "${GOEVAL_GEMM_KERNEL:-avx512}" == avx512 ]]; then dot=1; fi
goeval_tps() { # model dir [backend spec] → decode tokens/s
  GOMLX_BACKEND="${2:-}" "$work/goeval" bench generate --model "$1" --device cpu --dtype bfloat16 \
    --batches 1 --batch-size 1 --prompt-len "$plen" --steps "$steps" | sed -n 's/.*decode_tok_per_s=\([0-9.]*\).*/\1/p'
}
llama_tps() { # gguf → decode tokens/s
  (cd "$root/bench/peers" && node llamacpp_decode.mjs --model "$1" --prompt-len "$plen" \
    --steps "$steps" --threads "$threads") | "$root/.venv/bin/python" -c 'import json,sys; print("%.3f" % json.loads(sys.stdin.read())["decode_tokens_per_s"])'
}
echo "decode tok/s, prompt $plen, $steps steps, $threads threads, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
  a="$(goeval_tps "$bf16")" b="$(goeval_tps "$nf4")" d=0 c="$(llama_tps "$gguf")" e=0
  if [[ -n "$dot" ]]; then d="$(goeval_tps "$nf4" gocpu:bf16=dot)"; fi
  if [[ -n "$gguf16" ]]; then e="$(llama_tps "$gguf16")"; fi
  p=0
  if [[ -n "$ggufp" ]]; then p="$(llama_tps "$ggufp")"; fi
  f="$(goeval_tps "$bf16" gocpu:screen=off)" g="$(goeval_tps "$nf4" gocpu:screen=off)"
  echo "round $r: goeval bf16 $a, goeval nf4 packed $b, nf4 bf16=dot ${d/#0/-}, llama.cpp Q4_0 $c, Q4_0 bf16 head ${e/#0/-}, Q4_0 preset ${p/#0/-}; whole LM head read (screen=off): bf16 $f, nf4 $g"
  echo "$a $b $c $d $e $f $g $p" >>"$work/runs"
done
"$root/.venv/bin/python" - "$work/runs" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
def med(i, j):
    return statistics.median(r[i] / r[j] for r in rows)
print(f"median ratio nf4 packed / bf16 = {med(1, 0):.2f}x, nf4 packed / llama.cpp Q4_0 = {med(1, 2):.2f}x")
if rows[0][3] > 0:
    print(f"median ratio nf4 bf16=dot / bf16 = {med(3, 0):.2f}x, nf4 bf16=dot / llama.cpp Q4_0 = {med(3, 2):.2f}x")
if rows[0][4] > 0:
    print(f"median ratio nf4 packed / llama.cpp Q4_0 bf16 head = {med(1, 4):.2f}x", end="")
    print(f", nf4 bf16=dot / llama.cpp Q4_0 bf16 head = {med(3, 4):.2f}x" if rows[0][3] > 0 else "")
if rows[0][7] > 0:
    print(f"median ratio nf4 packed / llama.cpp Q4_0 preset = {med(1, 7):.2f}x", end="")
    print(f", nf4 bf16=dot / llama.cpp Q4_0 preset = {med(3, 7):.2f}x" if rows[0][3] > 0 else "")
print(f"median ratio screened / whole head: bf16 {med(0, 5):.2f}x, nf4 {med(1, 6):.2f}x; "
      f"screen=off nf4 / bf16 = {med(6, 5):.2f}x, nf4 / llama.cpp Q4_0 = {med(6, 2):.2f}x")
PY
