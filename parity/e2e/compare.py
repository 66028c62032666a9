"""Compare an lm-eval output folder with a goeval one (results_*.json and
samples_<task>_*.jsonl), metric by metric. Also run as a script:

  python parity/e2e/compare.py LMEVAL_DIR GOEVAL_DIR

Rules (the same as e2e_test.go):
- JSON keys and their order identical everywhere, except the keys listed in
  EXPECTED_KEY_DIFFS (lm-eval's Python/HF environment, which goeval has not).
- Values identical except run-specific ones (RUN_SPECIFIC) and numbers:
  loglikelihoods (resps, filtered_resps, perplexity sample pairs) within
  LL_ABS absolute; task aggregates within AGG_REL relative when every
  per-sample value is identical, perplexity-type aggregates within PPL_REL.
- A per-sample acc that differs is allowed only on a near-tie (the top two
  log-likelihoods within TIE_ABS); it is reported as a note.
"""
import glob
import json
import math
import os
import re
import sys

LL_ABS = 1e-4
AGG_REL = 1e-12
PPL_REL = 1e-4
TIE_ABS = 1e-3
# Keys only one side writes: lm-eval's Python environment dumps, and
# goeval's own version (where lm-eval writes lm_eval_version) and what its
# engine ran (goeval_timing).
EXPECTED_KEY_DIFFS = {
    ("", "pretty_env_info"), ("", "transformers_version"), ("", "lm_eval_version"), ("", "upper_git_hash"),
    ("", "goeval_version"), ("", "goeval_timing"),
}
# Values that name the engine or the run: timings, dates, commits, the
# model source and type, the batch size given, and the task's config source
# (lm-eval's YAML path; goeval's built-in task).
RUN_SPECIFIC = {"date", "total_evaluation_time_seconds", "git_hash", "model_source", "config.model",
                "config.batch_size", "configs.*.metadata.config_source"}
PPL_METRICS = ("perplexity", "word_perplexity", "byte_perplexity", "bits_per_byte")
FUNC_ADDR = re.compile(r"<function (\S+) at 0x[0-9a-f]+>")
SITE = re.compile(r"\S*/site-packages/lm_eval/")


def load_run(d):
    """The results dict and {task: sample rows} under folder d (any depth)."""
    res = sorted(glob.glob(os.path.join(d, "**", "results_*.json"), recursive=True))
    if len(res) != 1:
        raise SystemExit(f"{d}: want one results_*.json, found {len(res)}")
    with open(res[0], encoding="utf-8") as f:
        results = json.load(f)
    samples = {}
    for p in sorted(glob.glob(os.path.join(os.path.dirname(res[0]), "samples_*.jsonl"))):
        task = re.sub(r"^samples_(.*)_\d{4}-\d\d-\d\dT[\d.-]+\.jsonl$", r"\1", os.path.basename(p))
        with open(p, encoding="utf-8") as f:
            samples[task] = [json.loads(l) for l in f if l.strip()]
    return results, samples


def normalise(v, paths):
    """Replaces local paths (paths: path → placeholder), function addresses
    and lm-eval's install path so that files from different runs compare."""
    if isinstance(v, dict):
        return {k: normalise(x, paths) for k, x in v.items()}
    if isinstance(v, list):
        return [normalise(x, paths) for x in v]
    if isinstance(v, str):
        for p in sorted(paths, key=len, reverse=True):
            v = v.replace(p, paths[p])
            san = p.replace("/", "__")
            v = v.replace(san, paths[p])
        v = FUNC_ADDR.sub(r"<function \1>", v)
        return SITE.sub("LM_EVAL/", v)
    return v


def generic(path):
    """configs.arc_easy.metadata → configs.*.metadata (for EXPECTED_KEY_DIFFS)."""
    parts = path.split(".")
    if len(parts) >= 2 and parts[0] in ("configs", "results", "groups"):
        parts[1] = "*"
    return ".".join(parts)


class Cmp:
    def __init__(self):
        self.problems, self.notes = [], []

    def keys(self, path, a, b):
        """Checks a's and b's keys (order included) modulo expected diffs."""
        g = generic(path)
        ka = [k for k in a if (g, k) not in EXPECTED_KEY_DIFFS]
        kb = [k for k in b if (g, k) not in EXPECTED_KEY_DIFFS]
        if ka != kb:
            self.problems.append(f"{path or '<top>'}: keys differ: lm-eval {ka} goeval {kb}")

    def tree(self, path, a, b, num=None):
        """Recursive structural and value comparison; num(path, x, y) decides
        numbers (None: exact)."""
        if isinstance(a, dict) and isinstance(b, dict):
            self.keys(path, a, b)
            for k in a:
                if k in b:
                    self.tree(f"{path}.{k}" if path else k, a[k], b[k], num)
            return
        if isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                self.problems.append(f"{path}: length {len(a)} vs {len(b)}")
                return
            for i, (x, y) in enumerate(zip(a, b)):
                self.tree(f"{path}[{i}]", x, y, num)
            return
        if path in RUN_SPECIFIC or generic(path) in RUN_SPECIFIC:
            return
        if num and isnumber(a) and isnumber(b):
            num(path, a, b)
            return
        if type(a) is not type(b) or a != b:
            self.problems.append(f"{path}: lm-eval {short(a)} goeval {short(b)}")


def isnumber(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def short(x):
    s = json.dumps(x, ensure_ascii=False)
    return s if len(s) < 120 else s[:117] + "..."


def asfloat(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def compare_samples(c, task, la, ga):
    """Per-sample comparison of one task; returns whether every per-sample
    metric value is identical."""
    if len(la) != len(ga):
        c.problems.append(f"samples {task}: {len(la)} rows vs {len(ga)}")
        return False
    identical = True
    for a, b in zip(la, ga):
        p = f"samples {task} doc {a.get('doc_id')} {a.get('filter')}"
        c.keys(p, a, b)
        for k in a:
            if k not in b:
                continue
            if k in ("resps", "filtered_resps"):
                if not lls_close(a[k], b[k]):
                    c.problems.append(f"{p}.{k}: lm-eval {short(a[k])} goeval {short(b[k])}")
            elif k in a.get("metrics", []):
                identical &= metric_value(c, p, k, a, b)
            else:
                c.tree(f"{p}.{k}", a[k], b[k])
    return identical


def lls_close(x, y):
    """resps trees equal, with loglikelihood strings within LL_ABS."""
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(lls_close(u, v) for u, v in zip(x, y))
    fx, fy = asfloat(x), asfloat(y)
    if fx is not None and fy is not None and isinstance(x, str) and "." in x:
        return abs(fx - fy) <= LL_ABS
    return x == y


def metric_value(c, p, k, a, b):
    x, y = a[k], b[k]
    if isinstance(x, list) and isinstance(y, list) and len(x) == 2 == len(y) and isnumber(x[0]):  # (ll, weight)
        if abs(x[0] - y[0]) > LL_ABS or x[1] != y[1]:
            c.problems.append(f"{p}.{k}: lm-eval {x} goeval {y}")
        return False
    if x == y and type(x) is type(y):
        return True
    if k in PPL_METRICS and isnumber(x) and isnumber(y):  # a bare loglikelihood (lambada perplexity)
        if abs(x - y) > LL_ABS:
            c.problems.append(f"{p}.{k}: lm-eval {x} goeval {y}")
        return False
    lls = [asfloat(r[0]) for r in a.get("filtered_resps", []) if isinstance(r, list) and r]
    if lls and all(v is not None for v in lls) and ll_mass(x, y):
        return False
    top = sorted((v for v in lls if v is not None), reverse=True)
    if len(top) >= 2 and top[0] - top[1] <= TIE_ABS:
        c.notes.append(f"{p}.{k}: near-tie flip (top log-likelihoods {top[0]} and {top[1]}): lm-eval {x} goeval {y}")
    else:
        c.problems.append(f"{p}.{k}: lm-eval {x} goeval {y}")
    return False


def ll_mass(x, y):
    """A probability mass over the choices' likelihoods (truthfulqa_mc2's
    acc: a ratio of sums of exp(ll)): floats other than 0 and 1, within the
    relative 2*LL_ABS that log-likelihoods within LL_ABS allow."""
    return (type(x) is float and type(y) is float and x not in (0.0, 1.0)
            and abs(x - y) <= 2 * LL_ABS * max(abs(x), abs(y)))


def compare_runs(lres, lsamp, gres, gsamp):
    c = Cmp()
    if sorted(lsamp) != sorted(gsamp):
        c.problems.append(f"samples files: lm-eval {sorted(lsamp)} goeval {sorted(gsamp)}")
    exact = {t: compare_samples(c, t, lsamp[t], gsamp[t]) for t in lsamp if t in gsamp}

    def num(path, x, y):
        parts = path.split(".")
        if len(parts) == 3 and parts[0] in ("results", "groups") and "," in parts[2]:
            metric = parts[2].split(",")[0].replace("_stderr", "")
            rel = PPL_REL if metric in PPL_METRICS else AGG_REL
            leaves = [parts[1]] if parts[1] in exact else list(lres.get("group_subtasks", {}).get(parts[1], []))
            if not all(exact.get(t, False) for t in leaves) and metric not in PPL_METRICS:
                if x != y:
                    c.notes.append(f"{path}: lm-eval {x} goeval {y} (per-sample values differ, see notes)")
                return
            if abs(x - y) > rel * max(abs(x), abs(y), 1e-300):
                c.problems.append(f"{path}: lm-eval {x!r} goeval {y!r} (rel {abs(x - y) / max(abs(x), abs(y)):.3g})")
            return
        if x != y or type(x) is not type(y):
            c.problems.append(f"{path}: lm-eval {x!r} goeval {y!r}")

    c.tree("", lres, gres, num)
    return c.problems, c.notes


def compare_dirs(lm_dir, go_dir, paths):
    lres, lsamp = load_run(lm_dir)
    gres, gsamp = load_run(go_dir)
    return compare_runs(normalise(lres, paths), normalise(lsamp, paths), normalise(gres, paths),
                        normalise(gsamp, paths))


def load_golden(d):
    """A golden folder: results.json and samples_<task>.jsonl."""
    with open(os.path.join(d, "results.json"), encoding="utf-8") as f:
        res = json.load(f)
    samples = {}
    for name in sorted(os.listdir(d)):
        if name.startswith("samples_") and name.endswith(".jsonl"):
            with open(os.path.join(d, name), encoding="utf-8") as f:
                samples[name[len("samples_"):-len(".jsonl")]] = [json.loads(x) for x in f if x.strip()]
    return res, samples


def diff_golden_dirs(want_root, got_root, names):
    """Differences between committed and fresh goldens, judged as goeval is
    judged against lm-eval: identical documents, prompts and metrics,
    log-likelihoods within LL_ABS. A fresh lm-eval run differs from the
    committed one only by torch's float32 kernels, which vary between
    machines (AVX2 vs AVX-512)."""
    bad = []
    for n in names:
        want, got = os.path.join(want_root, n), os.path.join(got_root, n)
        fw = sorted(os.listdir(want)) if os.path.isdir(want) else []
        fg = sorted(os.listdir(got)) if os.path.isdir(got) else []
        if fw != fg:
            bad.append(f"golden {n}: files {fw} vs fresh {fg}")
            continue
        wres, wsamp = load_golden(want)
        gres, gsamp = load_golden(got)
        problems, _ = compare_runs(wres, wsamp, gres, gsamp)
        bad += [f"golden {n} vs a fresh lm-eval run: {p}" for p in problems]
    return bad

if __name__ == "__main__":
    p, n = compare_dirs(sys.argv[1], sys.argv[2], {})
    for x in n:
        print("note:", x)
    for x in p:
        print("DIFF:", x)
    sys.exit(1 if p else 0)
