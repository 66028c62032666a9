"""Regenerate metrics/mathverify/testdata/corpus.jsonl.gz: (gold, prediction)
pairs with the math-verify package's verdicts, for goeval's Go port.

Usage: python parity/mathverify/golden.py [--check] [--sdist DIR]

The corpus holds
  - the package's own test cases (read from its sdist, fetched with
    `pip download math-verify==<pinned> --no-binary :all:` unless --sdist
    names an unpacked one), each under the configuration its test uses and
    under lm-eval's minerva_math configuration, and
  - generated variants (cases.py): MATH-style answers written in equal
    forms, near misses and malformed LaTeX, inside solution and generation
    texts the way minerva_math and leaderboard math see them.

Each line after the header is {"c": config, "g": gold, "p": pred, "v": 0|1}.
A config is "G|P|rounding|strict|setrel": the gold's and the prediction's
extraction targets (L = LatexExtractionConfig(), B = LatexExtractionConfig(
boxed_match_priority=0), E = ExprExtractionConfig()), verify's float_rounding,
strict and allow_set_relation_comp. lm-eval's minerva_math is "LE|LE|6|1|0".

With --check, the verdicts are recomputed and compared with the committed
file; exit 1 on any difference.
"""
import argparse
import glob
import gzip
import importlib
import json
import multiprocessing
import os
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import cases  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "metrics", "mathverify", "testdata", "corpus.jsonl.gz")
LMEVAL = "LE|LE|6|1|0"


def pinned(name):
    with open(os.path.join(HERE, "requirements.lock")) as f:
        for line in f:
            if line.lower().startswith(name.lower() + "=="):
                return line.split("==")[1].strip()
    raise SystemExit(f"{name} is not pinned in requirements.lock")


def sdist_tests(sdist):
    """The unpacked sdist's folder (downloaded when sdist is None)."""
    if sdist:
        return sdist
    tmp = tempfile.mkdtemp()
    ver = pinned("math-verify")
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                    f"math-verify=={ver}", "-d", tmp], check=True)
    tar = glob.glob(os.path.join(tmp, "math_verify-*.tar.gz"))[0]
    with tarfile.open(tar) as t:
        t.extractall(tmp, filter="data")
    return glob.glob(os.path.join(tmp, "math_verify-*/"))[0]


# How each of the package's tests calls compare_strings (tests/test_all.py):
# match types and precision; everything else uses latex+expr, 6.
TEST_TARGETS = {
    "test_number_extraction": "E",
    "test_latex_notation": "B",
    "test_latex_notation_math": "B",
    "test_relations_math": "B",
    "test_matrix_extraction": "B",
    "test_set_rel_assymetry": "B",
}
TEST_PRECISION = {"test_float_precision": 5, "test_sqrt_precision": 5, "test_symbols": 5}


def fake_pytest():
    """A stand-in for pytest where it is not installed: the package's test
    modules only need pytest.mark.parametrize (recorded as pytest does, on
    fn.pytestmark) and pytest.raises at import time."""
    import contextlib
    import types

    class Mark:
        def __init__(self, name, args):
            self.name, self.args = name, args

    def parametrize(*args, **kwargs):
        def deco(fn):
            fn.pytestmark = getattr(fn, "pytestmark", []) + [Mark("parametrize", args)]
            return fn
        return deco

    mod = types.ModuleType("pytest")
    mod.mark = types.SimpleNamespace(parametrize=parametrize)
    mod.raises = lambda *a, **k: contextlib.nullcontext()
    mod.fixture = lambda *a, **k: (a[0] if a and callable(a[0]) else (lambda f: f))
    sys.modules["pytest"] = mod


def package_cases(root):
    """(config, gold, pred) from the parametrized tests that compare two strings."""
    try:
        import pytest  # noqa: F401
    except ImportError:
        fake_pytest()
    sys.path.insert(0, root)
    out = []
    for path in sorted(glob.glob(os.path.join(root, "tests", "test_*.py"))):
        mod = importlib.import_module("tests." + os.path.basename(path)[:-3])
        for name in sorted(dir(mod)):
            fn = getattr(mod, name)
            if not name.startswith("test_") or not hasattr(fn, "pytestmark"):
                continue
            for mark in fn.pytestmark:
                if mark.name != "parametrize":
                    continue
                names = [n.strip() for n in mark.args[0].split(",")] if isinstance(mark.args[0], str) else list(mark.args[0])
                if names[:2] != ["gold", "pred"]:
                    continue
                for vals in mark.args[1]:
                    row = dict(zip(names, vals))
                    out.extend(test_configs(mod.__name__, name, row))
    return out


def test_configs(module, name, row):
    g, p = row["gold"], row["pred"]
    if module == "tests.test_yujianll":  # plain parse/verify
        return [(LMEVAL, g, p)]
    t = TEST_TARGETS.get(name, "BE")
    prec = row.get("precision", TEST_PRECISION.get(name, 6))
    strict = int(row.get("strict", True))
    setrel = int(row.get("allow_set_relation_comp", False))
    cfg = f"{t}|{t}|{prec}|{strict}|{setrel}"
    return [(cfg, g, p), (LMEVAL, g, p)] if cfg != LMEVAL else [(cfg, g, p)]


def targets(spec):
    from math_verify import ExprExtractionConfig, LatexExtractionConfig
    m = {"L": LatexExtractionConfig(), "B": LatexExtractionConfig(boxed_match_priority=0), "E": ExprExtractionConfig()}
    return [m[c] for c in spec]


def verdict(item):
    cfg, g, p = item
    from math_verify import parse, verify
    gt, pt, rnd, strict, setrel = cfg.split("|")
    gold = parse(g, targets(gt))
    pred = parse(p, targets(pt))
    return int(verify(gold, pred, float_rounding=int(rnd), strict=strict == "1",
                      allow_set_relation_comp=setrel == "1"))


def build(sdist):
    items = package_cases(sdist_tests(sdist)) + cases.generate()
    seen, uniq = set(), []
    for it in items:
        if it not in seen:
            seen.add(it)
            uniq.append(it)
    with multiprocessing.Pool(max(1, min(4, os.cpu_count() or 1)), maxtasksperchild=2000) as pool:
        vs = pool.map(verdict, uniq, chunksize=64)
    return [dict(c=c, g=g, p=p, v=v) for (c, g, p), v in zip(uniq, vs)]


def header():
    return {"math-verify": pinned("math-verify"), "latex2sympy2_extended": pinned("latex2sympy2_extended"),
            "sympy": pinned("sympy"), "antlr4-python3-runtime": pinned("antlr4-python3-runtime")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--sdist", help="an unpacked math-verify sdist (default: pip download the pinned one)")
    args = ap.parse_args()
    rows = build(args.sdist)
    if args.check:
        with gzip.open(OUT, "rt", encoding="utf-8") as f:
            old = [json.loads(l) for l in f][1:]
        diff = [(a, b) for a, b in zip(old, rows) if a != b]
        if len(old) != len(rows) or diff:
            print(f"corpus differs: {len(old)} vs {len(rows)} rows, {len(diff)} changed")
            for a, b in diff[:20]:
                print(" committed:", json.dumps(a)[:300], "\n live:     ", json.dumps(b)[:300])
            sys.exit(1)
        print(f"corpus ok: {len(rows)} pairs")
        return
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write((json.dumps(header()) + "\n").encode())
        for r in rows:
            gz.write((json.dumps(r, ensure_ascii=False) + "\n").encode())
    ones = sum(r["v"] for r in rows)
    print(f"wrote {OUT}: {len(rows)} pairs, {ones} equal")


if __name__ == "__main__":
    main()
