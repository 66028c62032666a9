#!/usr/bin/env python3
"""Compares two golden folders written by make_goldens.sh.

Usage: compare_goldens.py WANT_DIR GOT_DIR [--tol 2e-5]

synth_args.txt, requests.jsonl and requests_greedy.jsonl must be
byte-identical; reference.jsonl
must have the same lines with every number within --tol and every boolean
and id equal; reference_bfloat16.jsonl and reference_float16.jsonl within
the half-precision drift of parity/reftol.py (dtype_differences). Prints
one line per difference and exits 1 if there is any.

The default tolerance, 2e-5, is the reference's own drift: the same f32
reference computed on AVX2 and AVX-512 machines differs by up to ~5e-6 on a
log-prob sum (different matmul kernels). It is 5x below the 1e-4 that the Go
tests hold goeval to, so a golden inside it changes no test outcome.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from reftol import EPS, dtype_differences  # noqa: E402


def diff_values(want, got, tol, where, out):
    """Appends to out a description of each difference between two JSON values."""
    if isinstance(want, bool) or isinstance(got, bool) or isinstance(want, int) and isinstance(got, int):
        if want != got:
            out.append(f"{where}: want {want!r}, got {got!r}")
    elif isinstance(want, float) or isinstance(got, float):
        if not isinstance(got, (int, float)) or abs(want - got) > tol:
            out.append(f"{where}: want {want!r}, got {got!r} (tolerance {tol})")
    elif isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            out.append(f"{where}: length {len(want)} vs {len(got)}")
            return
        for i, (a, b) in enumerate(zip(want, got)):
            diff_values(a, b, tol, f"{where}[{i}]", out)
    elif isinstance(want, dict) and isinstance(got, dict):
        if set(want) != set(got):
            out.append(f"{where}: keys {sorted(want)} vs {sorted(got)}")
            return
        for k in want:
            diff_values(want[k], got[k], tol, f"{where}.{k}", out)
    elif want != got:
        out.append(f"{where}: want {want!r}, got {got!r}")


def compare_dir(want_dir, got_dir, tol):
    """Returns the list of differences between one model's golden folders."""
    out = []
    for name in ("synth_args.txt", "requests.jsonl", "requests_greedy.jsonl"):
        with open(os.path.join(want_dir, name), "rb") as a, open(os.path.join(got_dir, name), "rb") as b:
            if a.read() != b.read():
                out.append(f"{os.path.join(want_dir, name)}: differs from the regenerated file")
    want_f = os.path.join(want_dir, "reference.jsonl")
    with open(want_f) as a, open(os.path.join(got_dir, "reference.jsonl")) as b:
        want, got = a.read().splitlines(), b.read().splitlines()
    if len(want) != len(got):
        return out + [f"{want_f}: {len(want)} lines, regenerated {len(got)}"]
    for i, (a, b) in enumerate(zip(want, got), 1):
        diff_values(json.loads(a), json.loads(b), tol, f"{want_f}:{i}", out)
    for dtype in sorted(EPS):
        out += compare_dtype(want_dir, got_dir, dtype)
    return out


def compare_dtype(want_dir, got_dir, dtype):
    """The differences between one model's reference_<dtype>.jsonl files."""
    want_f = os.path.join(want_dir, f"reference_{dtype}.jsonl")
    with open(want_f) as a, open(os.path.join(got_dir, f"reference_{dtype}.jsonl")) as b:
        want, got = a.read().splitlines(), b.read().splitlines()
    if len(want) != len(got):
        return [f"{want_f}: {len(want)} lines, regenerated {len(got)}"]
    out = []
    for i, (a, b) in enumerate(zip(want, got), 1):
        out += dtype_differences(json.loads(a), json.loads(b), dtype, f"{want_f}:{i}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("want")
    ap.add_argument("got")
    ap.add_argument("--tol", type=float, default=2e-5)  # see the module docstring
    args = ap.parse_args()
    names = sorted(os.listdir(args.want))
    if names != sorted(os.listdir(args.got)):
        print(f"{args.want}: models {names} vs regenerated {sorted(os.listdir(args.got))}")
        return 1
    problems = []
    for n in names:
        problems += compare_dir(os.path.join(args.want, n), os.path.join(args.got, n), args.tol)
    for p in problems[:50]:
        print(p)
    if problems:
        print(f"{len(problems)} difference(s)")
        return 1
    print(f"{len(names)} models match (tolerance {args.tol})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
