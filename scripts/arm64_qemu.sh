#!/usr/bin/env bash
# Runs the pure-Go backend's tests as arm64 binaries under qemu user-mode
# emulation, for a check of the non-x86 code paths (internal/gemm's plain-Go
# micro-kernel, vmath's Go kernels, gocpu, and the engine's reference and
# exactness tests on them) on an x86-64 machine. Correctness only: emulated
# timings mean nothing.
#
# Usage: scripts/arm64_qemu.sh [--quick]
#   --quick: the kernel packages only (seconds); the default adds the
#   engine's fixture, batch-invariance and packing tests (~10 min).
# Needs qemu-aarch64 (Debian: apt-get install qemu-user). Not part of CI.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
  *) echo "arm64_qemu.sh: unknown flag '$1' (see --help)" >&2; exit 2 ;;
esac
command -v qemu-aarch64 >/dev/null || {
  echo "arm64_qemu.sh: qemu-aarch64 not found; install it (Debian: apt-get install qemu-user)" >&2
  exit 2
}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# run PKG [ARGS…]: builds PKG's tests for linux/arm64 without cgo and runs
# them under qemu in the package folder (tests read testdata/ relatively).
run() {
  local pkg="$1" bin
  shift
  bin="$work/$(basename "$pkg").test"
  (cd "$root" && GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go test -c -o "$bin" "./$pkg")
  echo "== $pkg (arm64, qemu) $*"
  (cd "$root/$pkg" && qemu-aarch64 "$bin" "$@")
}

run internal/gemm
run internal/vmath
run internal/gocpu
if [[ $quick == 0 ]]; then
  run engine -test.run 'TestFixturesMatchLlamaCpp|TestBatchInvariance|TestPackedExact'
fi
echo "arm64: all passed"
