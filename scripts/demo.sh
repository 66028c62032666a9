#!/usr/bin/env bash
# The embedded default: a generated tokenizer and tiny Qwen2-style model,
# synthetic datasets in the Hugging Face schemas, the default device (auto:
# XLA on the CPU, its plugin installed on first use, else the pure-Go
# backend; the run prints which), and a goeval run over several tasks ending
# in lm-eval's summary table.
set -euo pipefail
bin=${1:-bin/goeval}
dir=${2:-demo}
tasks=${DEMO_TASKS:-arc_easy,hellaswag,piqa,winogrande,boolq,gsm8k,wikitext}
mkdir -p "$dir"
"$bin" synth tokenizer --out "$dir/model" --vocab 512
"$bin" synth model --arch qwen2 --hidden 64 --layers 2 --heads 4 --kv-heads 2 \
	--intermediate 128 --tokenizer "$dir/model" --seed 1 --out "$dir/model"
"$bin" synth data --task all --out "$dir/data"
"$bin" run --model "$dir/model" --data-dir "$dir/data" --tasks "$tasks" \
	--limit 10 --output-path "$dir/results" --log-samples
