# Shared by scripts/gpu_check.sh and scripts/gpu_compile_probe.sh (sourced):
# the set-up of a run on a GPU machine without Go, from the bundle that
# scripts/gpu_bundle.sh builds.

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

# synth05 DIR [LAYERS]: a random Qwen2.5-0.5B-shaped f32 model (LAYERS
# decoder layers, default the preset's 24) with the Qwen3 tokenizer in DIR.
synth05() {
  mkdir -p "$1"
  zcat models/tokenizer/testdata/qwen3/tokenizer.json.gz >"$1/tokenizer.json"
  zcat models/tokenizer/testdata/qwen3/tokenizer_config.json.gz >"$1/tokenizer_config.json"
  $G synth model --preset qwen2.5-0.5b ${2:+--layers "$2"} --tokenizer "$1" --out "$1" >/dev/null
}
