"""Regenerate report/testdata/tables.json: lm-eval's printed summary tables.

lm_eval prints make_table(results) and, when the file has groups,
make_table(results, "groups") (lm_eval/_cli/run.py). This runs lm-eval
0.4.13's own make_table (pytablewriter underneath) over
  - every results file committed in the repository (real lm-eval output
    and goeval's), and
  - generated results objects: nested and shared groups, missing
    versions and n-shots, integral, negative, NaN and infinite values,
    ints, bools and None as values, "N/A" stderrs, wide and pipe
    characters in aliases, random tables drawn from those cells, and
    fuzz tables whose aliases, versions, filters and values are short
    strings of digits (Unicode ones too), signs, points, exponents,
    separators, spaces and letters (TABLE_FUZZ of them, default 300;
    3000 passed on 2026-11-29),
and stores what lm_eval would print for each (report's TestSummaryTable
renders the same through goeval's port and compares byte for byte).

Usage (from the repo root):
  .venv/bin/python parity/report/table_golden.py          # rewrite the golden
  .venv/bin/python parity/report/table_golden.py --check  # fail on any difference
  TABLE_FUZZ=3000 .venv/bin/python parity/report/table_golden.py  # a wider search (then rewrite it at 300)
"""

import glob
import json
import math
import os
import random
import sys

from lm_eval.utils import make_table

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(REPO, "report", "testdata", "tables.json")


def printed(results):
    """What lm_eval prints: each table through print()."""
    out = make_table(results) + "\n"
    if "groups" in results:
        out += make_table(results, "groups") + "\n"
    return out


def repo_files():
    pats = ["parity/**/results*.json", "report/testdata/**/results*.json", "testdata/**/results*.json"]
    found = set()
    for p in pats:
        found.update(glob.glob(os.path.join(REPO, p), recursive=True))
    return sorted(os.path.relpath(f, REPO) for f in found)


def entry(alias, metrics):
    e = {"alias": alias}
    e.update(metrics)
    return e


def nested_case():
    """Three levels, a task in two groups, a group with no metrics."""
    r = {
        "results": {
            "suite": entry("suite", {"acc,none": 0.5, "acc_stderr,none": 0.01}),
            "part_a": entry(" - part a", {"acc,none": 0.25, "acc_stderr,none": "N/A"}),
            "part_b": {"alias": "part_b", " ": " "},
            "t1": entry("t1", {"acc,none": 1.0, "acc_stderr,none": 0.0, "acc_norm,none": 0.75,
                               "acc_norm_stderr,none": 0.125}),
            "t2": entry("t2 ｜ 全角", {"exact_match,strict-match": 0.0, "exact_match_stderr,strict-match": 0.0,
                                      "exact_match,flexible-extract": 0.3333333333333333,
                                      "exact_match_stderr,flexible-extract": 0.2}),
            "t3": entry("a|b", {"word_perplexity,none": 12345.678912, "word_perplexity_stderr,none": "N/A",
                                "bits_per_byte,none": -0.5, "bits_per_byte_stderr,none": float("nan")}),
            "loose": entry("loose", {"f1,none": float("nan"), "f1_stderr,none": float("inf")}),
        },
        "groups": {
            "suite": entry("suite", {"acc,none": 0.5, "acc_stderr,none": 0.01}),
            "part_a": entry(" - part a", {"acc,none": 0.25, "acc_stderr,none": "N/A"}),
        },
        "group_subtasks": {"suite": ["part_b", "part_a"], "part_a": ["t2", "t1"], "part_b": ["t1", "t3"], "loose": []},
        "versions": {"suite": 2, "part_a": "1.0", "t1": 1.0, "t2": 2.5, "t3": 0},
        "n-shot": {"t1": 0, "t2": 5, "t3": 0, "loose": 25},
        "higher_is_better": {"t1": {"acc": True, "acc_norm": True}, "t2": {"exact_match": True},
                             "t3": {"word_perplexity": False, "bits_per_byte": None},
                             "suite": {"acc": True}},
    }
    return r


def values_case():
    """Ints, bools, None and integral floats as values; keys without a filter."""
    return {
        "results": {
            "ints": entry("ints", {"count,none": 7, "count_stderr,none": 2, "acc": 0.5, "acc_stderr,": 0.1}),
            "flags": entry("flags", {"ok,none": True, "ok_stderr,none": "N/A", "none,none": None}),
            "whole": entry("whole", {"acc,none": 1.0, "acc_stderr,none": 0.0, "acc_norm,none": 0.0}),
            "tiny": entry("", {"acc,none": 1e-05, "acc_stderr,none": -0.0, "bleu,none": 99.99996}),
        },
        "versions": {"ints": "N/A", "flags": None, "whole": 3.0},
        "n-shot": {"ints": 1.5, "whole": 0},
        "higher_is_better": {},
    }


POOL = [0.0, 1.0, 0.5, 0.25, 0.2368, -0.125, 0.1, 12.5, 100.0, 1234.5678, 1e-05, 2e-07, 0.99999,
        float("nan"), float("inf"), float("-inf"), 0, 1, 3, -2, True, False, None,
        "N/A", "text", "1.0", "0.50", "true", " ", "", "1e3", "1,000", "nan", "-inf", "2.5"]


def random_case(rng, i):
    tasks = {}
    versions, nshot, hib = {}, {}, {}
    for t in range(rng.randint(1, 5)):
        name = f"task{i}_{t}"
        metrics = {}
        for m in rng.sample(["acc", "acc_norm", "f1", "em", "bleu"], rng.randint(1, 3)):
            f = rng.choice(["none", "strict-match", "flexible-extract", "2", "true"])
            metrics[f"{m},{f}"] = rng.choice(POOL)
            if rng.random() < 0.8:
                se = rng.choice([0.0, 0.01, 0.1234, 0.5, 2, float("nan"), "N/A"])
                metrics[f"{m}_stderr,{f}"] = se
            hib.setdefault(name, {})[m] = rng.choice([True, False, None])
        tasks[name] = entry(rng.choice([name, "alias " + name, "別名", name + " | x", "1.5", "0.0000", "nan"]), metrics)
        if rng.random() < 0.8:
            versions[name] = rng.choice([1, 2, 1.0, 2.5, "1.0", "v2", 0])
        if rng.random() < 0.8:
            nshot[name] = rng.choice([0, 5, 25])
    return {"results": tasks, "versions": versions, "n-shot": nshot, "higher_is_better": hib,
            "group_subtasks": {}}


FUZZ_CHARS = "0123456789" * 3 + ".eE-+,_ " * 2 + "abcINfinityNaN" + "全角١٢é|↑"


def fuzz_string(rng):
    """A short string of digits, signs, points, exponents, separators,
    spaces, letters of inf/nan and wide or non-ASCII characters: the
    strings whose typing (integer, real, infinity, NaN, empty or string)
    is hardest to get right."""
    return "".join(rng.choice(FUZZ_CHARS) for _ in range(rng.randint(0, 7)))


def fuzz_case(rng, i):
    """Tables whose aliases, versions, filters and values are fuzz strings."""
    tasks, versions = {}, {}
    for t in range(rng.randint(1, 6)):
        name = f"fz{i}_{t}"
        metrics = {}
        for m in rng.sample(["acc", "f1", "em"], rng.randint(1, 2)):
            f = rng.choice(["none", fuzz_string(rng).replace(",", "")])
            metrics[f"{m},{f}"] = rng.choice([fuzz_string(rng), rng.choice(POOL)])
            if rng.random() < 0.7:
                metrics[f"{m}_stderr,{f}"] = rng.choice([0.5, "N/A", 0.0123])
        tasks[name] = entry(fuzz_string(rng) or name, metrics)
        if rng.random() < 0.7:
            versions[name] = fuzz_string(rng)
    return {"results": tasks, "versions": versions, "n-shot": {}, "higher_is_better": {}, "group_subtasks": {}}


def cases():
    rng = random.Random(20261129)
    out = [("nested", nested_case()), ("values", values_case())]
    out += [(f"random{i}", random_case(rng, i)) for i in range(300)]
    out += [(f"fuzz{i}", fuzz_case(rng, i)) for i in range(int(os.environ.get("TABLE_FUZZ", "300")))]
    return out


def build():
    files = {}
    for rel in repo_files():
        with open(os.path.join(REPO, rel)) as f:
            files[rel] = printed(json.load(f))
    gen = []
    for name, r in cases():
        # the results as a file holds them (a JSON string: NaN is no JSON)
        text = json.dumps(r, ensure_ascii=False)
        try:
            table = printed(json.loads(text))
        except ValueError:  # lm-eval fails too (an integer of over 4300 digits): no golden
            continue
        gen.append({"name": name, "results": text, "table": table})
    return json.dumps({"files": files, "cases": gen}, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main():
    text = build()
    if "--check" in sys.argv:
        with open(OUT) as f:
            if f.read() != text:
                sys.exit(f"{OUT} differs from lm-eval's make_table (rerun without --check and review the diff)")
        print("summary tables: identical")
        return
    with open(OUT, "w") as f:
        f.write(text)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
