#!/usr/bin/env bash
# make python-test: builds this machine's wheel (binary + python/goeval),
# installs it into a new venv (.venv-pytest) with the pinned test tools,
# type-checks the installed package and runs python/tests against it.
# With PYTHON_TEST_TRAINER=1 (the default) the Trainer tests must run: the
# venv borrows torch, transformers, peft and accelerate, read-only, from
# PY_DEPS_VENV (default .venv: make venv, parity/requirements.lock) through
# a .pth file, rather than installing them again (~4 GB, which pip does not
# cache here: 10 min); with 0 they are skipped.
# Env: WHEEL_VENV (the venv with zig, make wheel-venv), GIT_HASH (the commit
# stamp, as make build), PYTHON_TEST_TRAINER, PY_DEPS_VENV.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
wheel_venv="${WHEEL_VENV:-.venv-wheels}"
venv=.venv-pytest
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x86_64 ;;
  Linux-aarch64) platform=linux-aarch64 ;;
  *) echo "python_test.sh: runs on linux x86_64 or aarch64, not $(uname -s)-$(uname -m)" >&2; exit 2 ;;
esac
export PYTHONDONTWRITEBYTECODE=1

rm -rf build/python-test "$venv"
wheel="$("$wheel_venv/bin/python" python/build_wheels.py --out build/python-test --platforms "$platform" \
  --build-dir build/python-test/bin ${GIT_HASH:+--git-hash "$GIT_HASH"})"
python3 -m venv "$venv"
"$venv/bin/pip" install -q "$wheel" -r python/requirements-test.lock
if [[ "${PYTHON_TEST_TRAINER:-1}" == 1 ]]; then
  deps="${PY_DEPS_VENV:-.venv}"
  [[ -x "$deps/bin/python" ]] || { echo "python_test.sh: no venv at $deps (make venv)" >&2; exit 2; }
  purelib() { "$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'; }
  mine="$(purelib "$venv")" theirs="$(purelib "$deps")"
  if [[ "$(basename "$(dirname "$mine")")" != "$(basename "$(dirname "$theirs")")" ]]; then
    echo "python_test.sh: $deps is a venv of another Python ($theirs) than $venv ($mine)" >&2
    exit 2
  fi
  echo "$theirs" > "$mine/goeval-trainer-deps.pth"
  export PYTHON_TEST_REQUIRE_TRAINER=1
fi
echo "python_test.sh: installed $(basename "$wheel"): $("$venv/bin/goeval" --version)"

# From python/tests, so that neither python/ nor the repository is on
# sys.path: the tests and mypy see the installed package only.
cd python/tests
"../../$venv/bin/mypy" --config-file ../mypy.ini --no-incremental -p goeval
PYTHON_TEST_INSTALLED=1 "../../$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
