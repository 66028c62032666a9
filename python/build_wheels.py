#!/usr/bin/env python3
"""Builds goeval's wheels: the goeval binary plus the Python package.

Each wheel is ``goeval-VERSION-py3-none-PLATFORM.whl`` and holds the
``goeval`` package (python/goeval/) and the binary as a script
(``goeval-VERSION.data/scripts/goeval``), which pip and uv install onto
PATH, as ruff's and uv's own wheels do. The binary is cross-compiled by
``go build`` with the Makefile's link-time commit stamp:

- linux x86_64 and aarch64: cgo on, with ``zig cc`` (PyPI's ziglang)
  targeting glibc 2.17, so the wheels are manylinux2014 and keep the XLA
  backend (the PJRT plugins are loaded through cgo);
- macOS arm64 and x86_64, Windows x86_64: ``CGO_ENABLED=0``, the pure-Go
  backend only (no PJRT plugin is pinned for them).

The version comes from ``git describe`` (``vX.Y.Z`` tags): the tag itself
on a tagged clean commit, else a PEP 440 dev release of the next patch,
``X.Y.(Z+1).devN+gHASH[.dirty]``; with no tag, ``0.0.0.devN+gHASH``.

Usage: python build_wheels.py --out dist [--platforms linux-x86_64,...]
       [--git-hash HASH] [--version V] [--zig "python -m ziglang"]
prints the path of each wheel written. Only the standard library is
needed, and zig for the linux targets.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import os
import re
import shlex
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIR = ROOT / "python" / "goeval"
MODULE = "github.com/goeval/goeval"


@dataclass(frozen=True)
class Target:
    """One wheel platform: Go's GOOS/GOARCH, the wheel's platform tags and
    the zig target for a cgo build (None: CGO_ENABLED=0)."""

    name: str
    goos: str
    goarch: str
    tags: tuple[str, ...]
    zig: str | None

    @property
    def exe(self) -> str:
        return "goeval.exe" if self.goos == "windows" else "goeval"


# Go 1.26 needs macOS 12 and Linux 3.2; zig links against glibc 2.17.
TARGETS = {
    t.name: t
    for t in [
        Target("linux-x86_64", "linux", "amd64",
               ("manylinux_2_17_x86_64", "manylinux2014_x86_64"), "x86_64-linux-gnu.2.17"),
        Target("linux-aarch64", "linux", "arm64",
               ("manylinux_2_17_aarch64", "manylinux2014_aarch64"), "aarch64-linux-gnu.2.17"),
        Target("macos-arm64", "darwin", "arm64", ("macosx_12_0_arm64",), None),
        Target("macos-x86_64", "darwin", "amd64", ("macosx_12_0_x86_64",), None),
        Target("windows-x86_64", "windows", "amd64", ("win_amd64",), None),
    ]
}


def git(*args: str) -> str:
    """Runs git in the repository; "" when it fails (no checkout)."""
    r = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""


def pep440_version(describe: str, commits: str, short_hash: str, dirty: bool) -> str:
    """The wheel version from ``git describe --tags --long``'s output
    (``v1.2.3-5-gabc1234``), the commit count, the short hash and whether
    the tree has changes; with no tag (describe is "") a dev release of
    0.0.0 numbered by the commit count."""
    local = f"+g{short_hash}" + (".dirty" if dirty else "") if short_hash else ""
    m = re.fullmatch(r"v?(\d+(?:\.\d+)*)((?:a|b|rc)(\d+))?-(\d+)-g([0-9a-f]+)", describe)
    if not m:
        return f"0.0.0.dev{int(commits or 0)}{local}"
    release, pre, pre_n, distance = m.group(1), m.group(2), m.group(3), int(m.group(4))
    if distance == 0 and not dirty:
        return release + (pre or "")
    if pre:  # the next pre-release: 1.3.0rc1 -> 1.3.0rc2.devN
        nxt = release + pre[: -len(pre_n)] + str(int(pre_n) + 1)
    else:  # the next patch: 1.2.3 -> 1.2.4.devN
        parts = release.split(".")
        parts[-1] = str(int(parts[-1]) + 1)
        nxt = ".".join(parts)
    return f"{nxt}.dev{distance}{local}"


def version_from_git() -> str:
    dirty = git("status", "--porcelain", "--untracked-files=no") != ""
    describe = git("describe", "--tags", "--long", "--abbrev=7", "--match", "v[0-9]*")
    return pep440_version(describe, git("rev-list", "--count", "HEAD"),
                          git("rev-parse", "--short=7", "HEAD"), dirty)


def go_build(t: Target, out: Path, git_hash: str, version: str, zig: list[str]) -> Path:
    """Cross-compiles cmd/goeval for t into out/ (stamped with the commit and
    the wheel's version, which `goeval --version` prints) and returns the binary."""
    out.mkdir(parents=True, exist_ok=True)
    exe = out / t.exe
    env = dict(os.environ, GOOS=t.goos, GOARCH=t.goarch, CGO_ENABLED="1" if t.zig else "0")
    if t.zig:
        env["CC"] = shlex.join([*zig, "cc", "-target", t.zig])
        env["CXX"] = shlex.join([*zig, "c++", "-target", t.zig])
    ldflags = (f"-s -w -X {MODULE}/internal/buildinfo.gitHash={git_hash}"
               f" -X {MODULE}/internal/buildinfo.version={version}")
    cmd = ["go", "build", "-trimpath", "-ldflags", ldflags, "-o", str(exe), "./cmd/goeval"]
    print(f"build_wheels: {t.name}: CGO_ENABLED={env['CGO_ENABLED']} GOOS={t.goos} GOARCH={t.goarch}"
          + (f" CC='{env['CC']}'" if t.zig else ""), file=sys.stderr)
    subprocess.run(cmd, cwd=ROOT, env=env, check=True)
    return exe


def metadata(version: str) -> str:
    readme = (ROOT / "python" / "README.md").read_text(encoding="utf-8")
    return "\n".join([
        "Metadata-Version: 2.1",
        "Name: goeval",
        f"Version: {version}",
        "Summary: Evaluate language models the way lm-evaluation-harness does, with a native Go engine: "
        "the goeval command, a Python API and a training callback",
        "Requires-Python: >=3.9",
        "Provides-Extra: progress",
        "Requires-Dist: tqdm; extra == \"progress\"",
        "Provides-Extra: train",
        "Requires-Dist: transformers; extra == \"train\"",
        "Description-Content-Type: text/markdown",
        "",
        readme,
    ])


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def zip_time() -> tuple[int, int, int, int, int, int]:
    """Entries' timestamp: SOURCE_DATE_EPOCH, else the commit's time, so a
    rebuild of the same commit gives the same wheel."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH") or git("log", "-1", "--format=%ct") or "315532800"
    return time.gmtime(max(int(epoch), 315532800))[:6]  # zip cannot hold dates before 1980


def package_files() -> list[tuple[str, bytes]]:
    files = sorted(p for p in PACKAGE_DIR.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return [(f"goeval/{p.relative_to(PACKAGE_DIR).as_posix()}", p.read_bytes()) for p in files]


def write_wheel(t: Target, version: str, binary: Path, out: Path) -> Path:
    """Writes the wheel of t: the package, the binary as a script, and the
    .dist-info (METADATA, WHEEL, RECORD)."""
    out.mkdir(parents=True, exist_ok=True)
    plat = ".".join(t.tags)
    name = f"goeval-{version}-py3-none-{plat}.whl"
    data_dir, info_dir = f"goeval-{version}.data", f"goeval-{version}.dist-info"
    wheel_txt = "Wheel-Version: 1.0\nGenerator: goeval python/build_wheels.py\nRoot-Is-Purelib: false\n"
    wheel_txt += "".join(f"Tag: py3-none-{tag}\n" for tag in t.tags)
    entries = package_files() + [
        (f"{data_dir}/scripts/{t.exe}", binary.read_bytes()),
        (f"{info_dir}/METADATA", metadata(version).encode()),
        (f"{info_dir}/WHEEL", wheel_txt.encode()),
    ]
    record = "\n".join([record_line(n, d) for n, d in entries] + [f"{info_dir}/RECORD,,", ""])
    entries.append((f"{info_dir}/RECORD", record.encode()))
    stamp = zip_time()
    path = out / name
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for n, d in entries:
            zi = zipfile.ZipInfo(n, date_time=stamp)
            zi.compress_type = zipfile.ZIP_DEFLATED
            mode = 0o755 if n.startswith(f"{data_dir}/scripts/") else 0o644
            zi.external_attr = (0o100000 | mode) << 16
            z.writestr(zi, d)
    return path


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="dist", help="folder for the wheels (default dist)")
    ap.add_argument("--platforms", default=",".join(TARGETS), help="comma-separated: " + ", ".join(TARGETS))
    ap.add_argument("--git-hash", default="",
                    help="the commit stamped into the binary (default: git describe, as make build)")
    ap.add_argument("--version", default="", help="the wheel version (default: from git describe)")
    ap.add_argument("--zig", default=f"{sys.executable} -m ziglang", help="the zig command for the cgo (linux) builds")
    ap.add_argument("--build-dir", default="build/wheels", help="folder for the binaries")
    a = ap.parse_args(argv)
    names = [p.strip() for p in a.platforms.split(",") if p.strip()]
    unknown = [p for p in names if p not in TARGETS]
    if unknown or not names:
        print(f"build_wheels: unknown platform(s) {unknown}; use {', '.join(TARGETS)}", file=sys.stderr)
        return 2
    version = a.version or version_from_git()
    git_hash = a.git_hash or git("describe", "--always", "--dirty", "--abbrev=40", "--match=NONE")
    for n in names:
        t = TARGETS[n]
        binary = go_build(t, ROOT / a.build_dir / n, git_hash, version, shlex.split(a.zig))
        whl = write_wheel(t, version, binary, Path(a.out).resolve())
        print(f"build_wheels: wrote {whl} ({whl.stat().st_size / 2**20:.1f} MiB)", file=sys.stderr)
        print(whl)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
