#!/usr/bin/env bash
# Installs a pinned lock file into a venv with the least disk at its peak.
# pip keeps every wheel it downloads for a command until that command has
# installed them all, so one `pip install -r` of parity/requirements.lock
# holds torch's ~3.5 GB of compressed CUDA wheels beside the ~6.5 GB they
# unpack to. Here the largest pins (torch, triton and the CUDA runtime
# wheels torch needs to import even on a CPU) are installed one per pip
# command, without dependencies, then the whole lock in one command, which
# finds those already satisfied. Same packages, same versions.
# Usage: scripts/pip_install_lock.sh VENV LOCKFILE
set -euo pipefail
venv="$1" lock="$2"
pip=("$venv/bin/pip" install -q --no-cache-dir)
big="$(grep -E '^(torch|triton|nvidia-[a-z0-9-]+|cuda-[a-z-]+)==' "$lock" || true)"
for req in $big; do
  "${pip[@]}" --no-deps "$req"
done
"${pip[@]}" -r "$lock"
