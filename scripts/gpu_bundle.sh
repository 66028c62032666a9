#!/usr/bin/env bash
# Builds what scripts/gpu_check.sh runs on a GPU machine that has no Go:
# the goeval binary (every step; with --tests also the engine,
# transformers-parity and gemm test binaries of steps 2, 7 and 8),
# stripped, in DIR/bin.tgz, and lm-eval with the dependencies a PyTorch +
# JAX image lacks as CPython 3.12 wheels in DIR/whl (steps 4 and 5; pip;
# sdists are built into wheels here). The versions are the parity venv's
# (make venv). Everything else the check runs is in the repository: its
# Python peers (bench/peers, parity/e2e, scripts/gpu_summary.py) and the
# tokenizers it gives the synthetic models (models/tokenizer/testdata).
#
# The device tool carries the working tree and DIR together, at most 64
# MiB: the tracked files are about 37 MB, goeval's tgz 15 MB and the wheels
# 13 MB, which fit; the test binaries add 17 MB more and do not, so --tests
# is for a run that drops the wheels (GPU_CHECK_STEPS without 4 and 5:
# rm -r DIR/whl). The script prints the total and fails over 64 MiB.
#
# Usage: scripts/gpu_bundle.sh [--tests] [DIR]   (default .gpu, which
#        .git/info/exclude should ignore)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
tests=0
[[ ${1:-} == --tests ]] && { tests=1; shift; }
dir=${1:-.gpu}
mkdir -p "$dir/bin" "$dir/whl"
flags=(-trimpath -ldflags=-s\ -w)
go build "${flags[@]}" -o "$dir/bin/goeval" ./cmd/goeval
if ((tests)); then
	go test -c "${flags[@]}" -o "$dir/bin/engine.test" ./engine
	go test -c "${flags[@]}" -o "$dir/bin/hfparity.test" ./parity/models
	go test -c "${flags[@]}" -o "$dir/bin/gemm.test" ./internal/gemm
fi
tar cf - -C "$dir" bin | gzip -9 >"$dir/bin.tgz"
rm -rf "${dir:?}/bin"

py=.venv/bin/python
[[ -x $py ]] || { echo "gpu_bundle.sh: $py missing: run make venv first (it pins lm-eval's version)" >&2; exit 2; }
wheels=(lm_eval datasets evaluate dill multiprocess more_itertools pytablewriter DataProperty
	mbstrdecoder pathvalidate tabledata tcolorpy typepy chardet nltk)
sdists=(rouge_score sqlitedict word2number)
pins() { for p in "$@"; do echo "$p==$("$py" -m pip show "$p" | awk '/^Version/ {print $2}')"; done; }
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
	--platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform any \
	-d "$dir/whl" $(pins "${wheels[@]}")
python3 -m pip wheel -q --no-deps -w "$dir/whl" $(pins "${sdists[@]}")
du -sh "$dir/bin.tgz" "$dir/whl"
tracked=$(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
total=$((tracked + $(du -sb "$dir" | cut -f1)))
echo "carried: $((total / 1048576)) MiB of the device tool's 64 (tracked files $((tracked / 1048576)) MiB)"
((total <= 64 << 20)) || { echo "gpu_bundle.sh: over 64 MiB: leave out --tests or the wheels" >&2; exit 1; }
