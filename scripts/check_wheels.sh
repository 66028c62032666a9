#!/usr/bin/env bash
# make wheels-check: every wheel under DIR (default dist) checked with the
# standard tools, and its binary run where this machine can:
#   - size; RECORD's hashes (`wheel unpack`), the filename's tags against
#     the WHEEL file's (`wheel tags`); `auditwheel show` for manylinux,
#     macholib (delocate's Mach-O reader; delocate itself needs otool) for
#     macOS: minimum OS against the tag, system libraries only; `file`;
#   - linux x86_64: run natively; linux aarch64: under qemu-aarch64 (Debian:
#     qemu-user, libc6-arm64-cross); windows: under wine (Debian: wine64),
#     with a ProcessPrng shim built by zig, since Wine 8 has no
#     bcryptprimitives.dll and Go >= 1.24 needs it; macOS: no emulator.
#   Each runnable binary prints --version and evaluates a generated tiny
#   model on arc_easy; its summary table must equal the host's.
# Env: WHEEL_VENV (make wheel-venv: auditwheel, wheel, macholib, zig).
set -euo pipefail
dir="${1:-dist}"
venv="${WHEEL_VENV:-.venv-wheels}"
py="$venv/bin/python"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
shopt -s nullglob
wheels=("$dir"/goeval-*.whl)
((${#wheels[@]})) || { echo "check_wheels.sh: no wheels in $dir (make wheels)" >&2; exit 2; }

# The host's binary makes the tiny model, data and the reference table.
host="$work/host"
"$py" -m wheel unpack -d "$host" "$(ls "$dir"/goeval-*manylinux*_"$(uname -m)".whl)" >/dev/null
hostbin="$(echo "$host"/*/goeval-*.data/scripts/goeval)"
tiny="$work/tiny"
"$hostbin" synth tokenizer --out "$tiny/model" >/dev/null
"$hostbin" synth model --arch qwen2 --hidden 64 --layers 2 --heads 4 --kv-heads 2 --intermediate 128 \
  --tokenizer "$tiny/model" --seed 1 --out "$tiny/model" >/dev/null 2>&1
"$hostbin" synth data --task arc_easy --out "$tiny/data" >/dev/null
evalargs=(run --model model --data-dir data --tasks arc_easy --limit 8 --device cpu)
want="$(cd "$tiny" && "$hostbin" "${evalargs[@]}" 2>/dev/null)"

# run_check NAME CMD…: CMD (a binary, maybe behind an emulator) prints its
# version and evaluates the tiny model; the table must equal the host's.
run_check() {
  local name="$1"; shift
  echo "  $name: $("$@" --version 2>/dev/null | tr -d '\r')"
  local got
  got="$(cd "$tiny" && "$@" "${evalargs[@]}" 2>/dev/null | tr -d '\r')"
  if [[ "$got" != "$want" ]]; then
    printf '  %s: arc_easy table differs from the host'"'"'s:\n%s\n' "$name" "$got" >&2
    return 1
  fi
  echo "  $name: arc_easy (8 docs) scores equal the host's: $(echo "$got" | grep -o 'acc_norm|↑|[0-9.]*')"
}

wine_prefix() {
  export WINEPREFIX="$work/wine" WINEDEBUG=-all
  wineboot -i >/dev/null 2>&1 || true
  printf '%s\n' '#include <windows.h>' \
    'BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len);' \
    '__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE p, SIZE_T n) {' \
    '  for (; n > 0x7fffffff; p += 0x7fffffff, n -= 0x7fffffff) if (!SystemFunction036(p, 0x7fffffff)) return FALSE;' \
    '  return SystemFunction036(p, (ULONG)n); }' > "$work/prng.c"
  "$py" -m ziglang cc -target x86_64-windows-gnu -shared -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
    "$work/prng.c" -ladvapi32
}

fail=0
for whl in "${wheels[@]}"; do
  name="$(basename "$whl")"
  echo "== $name ($(du -m "$whl" | cut -f1) MiB; $(stat -c %s "$whl") bytes)"
  rm -rf "$work/u" && "$py" -m wheel unpack -d "$work/u" "$whl" >/dev/null
  echo "  WHEEL tags: $(grep '^Tag:' "$work"/u/*/goeval-*.dist-info/WHEEL | cut -d' ' -f2 | tr '\n' ' ')"
  # wheel tags fails unless the WHEEL file's tags are the filename's (on a copy:
  # it writes the wheel anew when its sorted tags give another name).
  rm -rf "$work/t" && mkdir "$work/t" && cp "$whl" "$work/t/"
  "$py" -m wheel tags "$work/t/$name" >/dev/null || { echo "  wheel tags: WHEEL and filename disagree" >&2; fail=1; }
  bin="$(echo "$work"/u/*/goeval-*.data/scripts/goeval*)"
  echo "  file: $(file -b "$bin" | cut -d, -f1-3)"
  case "$name" in
    *manylinux*)
      "$venv/bin/auditwheel" show "$whl" | tr -s '\n' ' ' | sed 's/^/  auditwheel: /'; echo ;;
    *macosx*) # delocate needs macOS's otool; its Mach-O reader, macholib, runs here
      "$py" - "$bin" "$name" <<'PY' || fail=1
import re, sys
from macholib import mach_o
from macholib.MachO import MachO
path, name = sys.argv[1:]
for h in MachO(path).headers:
    libs, minos = [], None
    for lc, cmd, data in h.commands:
        if lc.cmd in (mach_o.LC_LOAD_DYLIB, mach_o.LC_LOAD_WEAK_DYLIB):
            libs.append(data.rstrip(b"\0").decode())
        elif lc.cmd == mach_o.LC_BUILD_VERSION:
            minos = (cmd.minos >> 16, (cmd.minos >> 8) & 0xFF)
    tag = tuple(int(x) for x in re.search(r"macosx_(\d+)_(\d+)_", name).groups())
    print(f"  macholib: {mach_o.CPU_TYPE_NAMES.get(h.header.cputype)}, minimum macOS {minos}, wheel tag {tag}; "
          f"links {', '.join(libs)}")
    assert minos is not None and minos <= tag, "the binary needs a newer macOS than its tag says"
    assert all(l.startswith(("/usr/lib/", "/System/Library/")) for l in libs), "links a non-system library"
PY
      ;;
  esac
  case "$name" in
    *manylinux*_"$(uname -m)".whl) run_check native "$bin" || fail=1 ;;
    *manylinux*_aarch64.whl)
      if command -v qemu-aarch64 >/dev/null && [[ -d /usr/aarch64-linux-gnu ]]; then
        run_check qemu-aarch64 qemu-aarch64 -L /usr/aarch64-linux-gnu "$bin" || fail=1
      else echo "  (no qemu-aarch64 with an arm64 libc: not run)"; fi ;;
    *win_amd64.whl)
      if command -v wine >/dev/null; then
        [[ -n "${WINEPREFIX:-}" ]] || wine_prefix
        run_check wine wine "$bin" || fail=1
      else echo "  (no wine: not run)"; fi ;;
    *) echo "  (no emulator for macOS: checked by file and macholib only)" ;;
  esac
done
exit "$fail"
