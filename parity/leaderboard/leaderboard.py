"""The Open LLM Leaderboard v2 end to end: `lm_eval --model hf --tasks
leaderboard --apply_chat_template --fewshot_as_multiturn` and `goeval run`
the same on a tiny random chat model (model L: parity/e2e's model C with
4096 positions) and synthetic documents in the leaderboard datasets'
schemas (data.py). Two runs (RUNS):

- "leaderboard": the whole group, goeval running the task files' Python
  functions in its worker (--python; leaderboard_ifeval needs langdetect,
  nltk and immutabledict, lm-eval's ifeval extra, pinned in
  requirements.lock; --ifeval-pkgs DIR adds a `pip install --target DIR`
  of them to PYTHONPATH for an older .venv). nltk's punkt_tab is not
  needed: the synthetic documents' instructions do not split sentences;
- "leaderboard_go": every subgroup but ifeval with --python none, so that
  goeval's Go hooks (tasks/hooks_leaderboard*.go) answer gpqa, musr,
  mmlu_pro and math_hard;
- "truthfulqa_go": truthfulqa_mc1 and truthfulqa_mc2 (its process_results
  a Go hook) with --python none;
- "truthfulqa_gen_go": truthfulqa_gen (process_docs and process_results,
  BLEU and ROUGE, Go hooks: tasks/hooks_truthfulqa*.go) with --python
  none, on all six synthetic documents.

Documents, prompts (arguments), per-sample metrics and the subtask and
group aggregates are compared (parity/e2e/compare.py). lm-eval's configs
hold the source of each Python hook, goeval writes "!function utils.NAME"
(as for every hook); known_differences rewrites the former to the latter.
lm-eval's files, so rewritten, become the goldens under testdata/ (with
the task files copied from lm-eval under testdata/tasks and the data under
testdata/data), which e2e_leaderboard_test.go checks goeval against
in-process: "leaderboard_go" always, "leaderboard" where .venv has lm-eval
and the ifeval packages. --check compares fresh lm-eval files with the
committed goldens too.

Usage (from the repo root):
  .venv/bin/python parity/leaderboard/leaderboard.py [--check] [--work DIR] [--ifeval-pkgs DIR] [--runs NAME,...]
--runs runs (and, without --check, rewrites the goldens of) only the named
runs.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "parity", "e2e"))
import compare  # noqa: E402
import e2e  # noqa: E402

GOLDEN = os.path.join(HERE, "testdata")
TASKS = os.path.join(GOLDEN, "tasks")  # lm-eval's leaderboard folder, copied
DATA = os.path.join(GOLDEN, "data")
SUBGROUPS = ["leaderboard_mmlu_pro", "leaderboard_bbh", "leaderboard_gpqa", "leaderboard_math_hard",
             "leaderboard_musr"]
# max_gen_toks 64 keeps math_hard's and ifeval's answers (1024 and 1280
# tokens) cheap for the Go test; the tiny model rarely stops earlier.
COMMON = {"model": "L", "limit": 2, "apply_chat_template": True, "fewshot_as_multiturn": True,
          "gen_kwargs": "max_gen_toks=64", "include_path": "parity/leaderboard/testdata/tasks",
          "data_dir": "parity/leaderboard/testdata/data"}
RUNS = [dict(COMMON, name="leaderboard", tasks=["leaderboard"], python=True),
        dict(COMMON, name="leaderboard_go", tasks=SUBGROUPS, python=False),
        dict(COMMON, name="truthfulqa_go", tasks=["truthfulqa_mc1", "truthfulqa_mc2"], python=False),
        dict(COMMON, name="truthfulqa_gen_go", tasks=["truthfulqa_gen"], python=False, limit=6)]
MODEL = {"tokenizer": ["--eos", "<|im_end|>"], "model": e2e.MODEL_ARGS + ["--max-positions", "4096"]}
HOOK_SRC = re.compile(r"^def (\w+)\(")
HOOK_REPR = re.compile(r"^<function (\w+)(?: at 0x[0-9a-f]+)?>$")


def lm_eval_leaderboard():
    import lm_eval
    return os.path.join(os.path.dirname(lm_eval.__file__), "tasks", "leaderboard")


def copy_tasks():
    """lm-eval's leaderboard and truthfulqa task files (YAML and Python)
    into TASKS."""
    shutil.rmtree(TASKS, ignore_errors=True)
    for name in ("leaderboard", "truthfulqa"):
        shutil.copytree(os.path.join(os.path.dirname(lm_eval_leaderboard()), name), os.path.join(TASKS, name),
                        ignore=shutil.ignore_patterns("__pycache__", "README.md"))


def synth(work):
    exe = os.path.join(work, "goeval")
    e2e.sh(["go", "build", "-o", exe, "./cmd/goeval"], cwd=ROOT)
    m = os.path.join(work, "L")
    e2e.sh([exe, "synth", "tokenizer", *MODEL["tokenizer"], "--out", m], stdout=subprocess.DEVNULL)
    e2e.sh([exe, "synth", "model", *MODEL["model"], "--tokenizer", m, "--out", m], stdout=subprocess.DEVNULL)
    return exe, m


def hook_name(v):
    """"!function utils.NAME" for lm-eval's record of a hook (its source,
    or its repr), else None."""
    if isinstance(v, str):
        m = HOOK_SRC.match(v) or HOOK_REPR.match(v)
        if m:
            return "!function utils." + m.group(1)
    return None


def rewrite_hooks(v):
    if isinstance(v, dict):
        return {k: rewrite_hooks(x) for k, x in v.items()}
    if isinstance(v, list):
        return [rewrite_hooks(x) for x in v]
    return hook_name(v) or v


def known_differences(lm_dir):
    """Rewrites the hooks in lm-eval's results file's configs in place."""
    res, _ = compare.load_run(lm_dir)
    path = [os.path.join(r, f) for r, _, fs in os.walk(lm_dir) for f in fs if f.startswith("results_")][0]
    res["configs"] = rewrite_hooks(res["configs"])
    with open(path, "w", encoding="utf-8") as f:
        json.dump(res, f, indent=2, ensure_ascii=False)


def run_goeval(work, exe, m, run, env):
    out = os.path.join(work, "goeval_" + run["name"])
    python = sys.executable if run["python"] else "none"
    e2e.sh([exe, "run", "--model", "hf", "--model_args", f"pretrained={m},dtype=float32", "--device", "cpu",
            "--tasks", ",".join(run["tasks"]), "--log_samples", "--output_path", out,
            "--gen_kwargs", run["gen_kwargs"], "--include_path", run["include_path"], "--python", python,
            *e2e.prompt_args(run, "_"), "--data_dir", run["data_dir"], "--batch_size", "4"],
           log=out + ".log", cwd=ROOT, env=env)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="compare fresh lm-eval outputs with the goldens too")
    ap.add_argument("--work", help="keep intermediate files here (default: a temp dir)")
    ap.add_argument("--ifeval-pkgs", help="a folder with langdetect, nltk and immutabledict, if .venv lacks them")
    ap.add_argument("--runs", help="comma-separated run names (default: all)")
    a = ap.parse_args()
    runs = [r for r in RUNS if not a.runs or r["name"] in a.runs.split(",")]
    if not runs:
        sys.exit(f"--runs {a.runs}: no such run (runs: {', '.join(r['name'] for r in RUNS)})")
    work = os.path.abspath(a.work or tempfile.mkdtemp(prefix="goeval-leaderboard-"))
    os.makedirs(work, exist_ok=True)
    if a.ifeval_pkgs:
        pp = os.environ.get("PYTHONPATH", "")
        os.environ["PYTHONPATH"] = os.path.abspath(a.ifeval_pkgs) + (os.pathsep + pp if pp else "")
    if not a.check:
        copy_tasks()
        e2e.sh([sys.executable, os.path.join(HERE, "data.py"), DATA])
    exe, m = synth(work)
    problems, fresh = [], os.path.join(work, "golden")
    for run in runs:
        lm = e2e.run_lmeval(work, m, None, run)
        known_differences(lm)
        go = run_goeval(work, exe, m, run, dict(os.environ))
        p, n = compare.compare_dirs(lm, go, paths={m: "MODEL"})
        problems += [f"[{run['name']}] {x}" for x in p]
        for x in n:
            print(f"note: [{run['name']}] {x}")
        e2e.write_golden(lm, run, m, fresh)
    if a.check:
        problems += compare.diff_golden_dirs(GOLDEN, fresh, [r["name"] for r in runs])
    else:
        for run in runs:
            shutil.rmtree(os.path.join(GOLDEN, run["name"]), ignore_errors=True)
            shutil.copytree(os.path.join(fresh, run["name"]), os.path.join(GOLDEN, run["name"]))
        with open(os.path.join(GOLDEN, "runs.json"), "w") as f:
            json.dump({"synth_leaderboard": e2e.synth_hashes(m), "runs": RUNS}, f, indent=1)
            f.write("\n")
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    for x in problems:
        print("DIFF:", x)
    if problems:
        sys.exit(f"leaderboard parity: {len(problems)} difference(s)")
    print(f"leaderboard parity: goeval agrees with lm-eval on {len(runs)} runs")


if __name__ == "__main__":
    main()
