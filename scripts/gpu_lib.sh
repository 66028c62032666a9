# Shared by scripts/gpu_check.sh and scripts/gpu_compile_probe.sh (sourced):
# the set-up of a run on a GPU machine without Go, from the bundle that
# scripts/gpu_bundle.sh builds, and gpu_check's step budgets, notes and
# device memory sampler.

# gpu_setup NAME [BUNDLE_DIR] [OUT_DIR]: goes to the repository root, copies
# all later output to OUT_DIR/NAME.log (default $OUT, else /tmp/NAME) and
# unpacks the bundle's binaries (default .gpu) into a new temporary $work.
# Sets root, bundle, out, work, B (the binaries) and G (goeval).
gpu_setup() {
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  cd "$root" || exit 2
  bundle="$(cd "${2:-.gpu}" && pwd)"
  out="${3:-${OUT:-/tmp/$1}}"
  mkdir -p "$out"
  exec > >(tee "$out/$1.log") 2>&1
  work="$(mktemp -d)"
  tar xzf "$bundle/bin.tgz" -C "$work"
  B="$work/bin" G="$work/bin/goeval"
}

# synth05 DIR [FLAGS...]: a random Qwen2.5-0.5B-shaped f32 model with the
# Qwen3 tokenizer in DIR; FLAGS override the preset (e.g. --layers 6).
synth05() {
  local dir=$1
  shift
  mkdir -p "$dir"
  zcat models/tokenizer/testdata/qwen3/tokenizer.json.gz >"$dir/tokenizer.json"
  zcat models/tokenizer/testdata/qwen3/tokenizer_config.json.gz >"$dir/tokenizer_config.json"
  $G synth model --preset qwen2.5-0.5b "$@" --tokenizer "$dir" --out "$dir" >/dev/null
}

# synth_llama DIR PRESET [FLAGS...]: a random bfloat16 checkpoint of a
# Llama preset (llama3.2-1b, llama3.1-8b) with Llama 3's tokenizer in DIR.
synth_llama() {
  local dir=$1 preset=$2
  shift 2
  mkdir -p "$dir"
  zcat models/tokenizer/testdata/llama3/tokenizer.json.gz >"$dir/tokenizer.json"
  zcat models/tokenizer/testdata/llama3/tokenizer_config.json.gz >"$dir/tokenizer_config.json"
  $G synth model --preset "$preset" --dtype bf16 "$@" --tokenizer "$dir" --out "$dir" >/dev/null
}

# Step budgets: the run has $budget seconds from its start (SECONDS); a
# step gets at most its cap, less when the run has less left, and is
# skipped when under 15 s would be left for it. t CAP is a command's
# timeout: CAP, or what is left of the step.
step_end=0
begin() { # NAME CAP
  local left=$((budget - SECONDS))
  local cap=$(($2 < left ? $2 : left))
  if ((cap < 15)); then
    echo
    echo "== $1: skipped, ${left} s of the ${budget} s budget left"
    note "$1" "skipped" "budget spent"
    return 1
  fi
  step_end=$((SECONDS + cap))
  echo
  echo "== $1 [$(date +%T), ${SECONDS} s, at most ${cap} s]"
}
t() { # CAP
  local left=$((step_end - SECONDS))
  ((left < 1)) && left=1
  echo $(($1 < left ? $1 : left))
}

# note STEP WHAT VALUE: one row of the summary table printed at the end.
note() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$out/summary.tsv"; }

# summary prints the notes as a table (also when the run stops early).
summary() {
  echo
  echo "== summary [${SECONDS} s of ${budget} s]"
  echo "| step | what | value |"
  echo "| --- | --- | --- |"
  [[ -f $out/summary.tsv ]] && awk -F'\t' '{ printf "| %s | %s | %s |\n", $1, $2, $3 }' "$out/summary.tsv"
}

# gpumem CMD...: runs CMD while sampling the GPU's used memory every 200
# ms; prints "peak_device_mib=N" on stderr afterwards (nothing without
# nvidia-smi). CMD's exit status is kept.
gpumem() {
  if ! command -v nvidia-smi >/dev/null; then
    "$@"
    return
  fi
  local f rc
  f=$(mktemp)
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 >"$f" 2>/dev/null &
  local pid=$!
  "$@"
  rc=$?
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  echo "peak_device_mib=$(sort -n "$f" | tail -1)" >&2
  rm -f "$f"
  return $rc
}
