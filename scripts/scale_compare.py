#!/usr/bin/env python3
"""scale_compare.py A B: the results file of folder A and of folder B are the
same bytes once the keys that differ between two runs of one evaluation are
dropped (date, total_evaluation_time_seconds, goeval_timing), and each
task's samples file is the same bytes (the names differ by date). Prints
what it compared; exits 1 on a difference."""
import glob
import os
import re
import sys

TIMING = re.compile(rb'\n  "date": [^\n]*|\n  "total_evaluation_time_seconds": [^\n]*|\n  "goeval_timing": \{.*?\n  \},?', re.S)


def run_files(folder):
    out = {}
    for path in sorted(glob.glob(os.path.join(folder, "*_*.json*"))):
        name, data = os.path.basename(path), open(path, "rb").read()
        if name.startswith("results_"):
            name, data = "results", TIMING.sub(b"", data)
        elif name.startswith("samples_"):
            name = name.rsplit("_", 1)[0]
        else:
            continue
        if name in out:
            sys.exit(f"{folder} holds two {name} files")
        out[name] = data
    if "results" not in out:
        sys.exit(f"{folder} holds no results file")
    return out


a, b = run_files(sys.argv[1]), run_files(sys.argv[2])
differ = sorted(n for n in set(a) | set(b) if a.get(n) != b.get(n))
lines = sum(d.count(b"\n") for n, d in a.items() if n != "results")
print(f"compared {sys.argv[1]} and {sys.argv[2]}: the results file (timing keys dropped) and "
      f"{len(a) - 1} samples files ({lines} lines): " + ("IDENTICAL" if not differ else "DIFFERENT: " + ", ".join(differ)))
sys.exit(1 if differ else 0)
