"""Parity of repeats, majority votes, pass@k and reasoning answers with
lm-eval, on the same generations.

Sampled generations cannot be identical across engines (lm-eval draws every
token of a run from one torch generator seeded once; goeval seeds each answer
on its own, see seeds.go), so this compares everything after them: `goeval
run` generates (a tiny synthesized model, sampling, repeats), and lm-eval
(parity/reason/lmeval_replay.py: HFLM with generate_until replaced by
goeval's recorded answers) filters, scores and aggregates those same answers.
The two results and samples files must agree as parity/e2e/compare.py
requires (answers, filtered answers, per-sample metrics, aggregates and
stderrs; keys and order).

Without --check, lm-eval's outputs are written as goldens to
parity/reason/testdata/<run>/ (read by the root package's
e2e_reason_test.go, which runs goeval in-process and compares). With --check
the fresh outputs must also equal the committed goldens.

Usage (from the repo root):
  .venv/bin/python parity/reason/reason.py [--check] [--work DIR] [--runs a,b] --code-eval DIR

DIR is huggingface/evaluate's metrics/code_eval folder (git clone
https://github.com/huggingface/evaluate): lm-eval's code tasks load that
metric from the Hub, which these runs do not reach.
"""
import argparse
import collections
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "e2e"))
import compare  # noqa: E402
import e2e  # noqa: E402

GOLDEN = os.path.join(HERE, "testdata")
RUNS = [
    # lm-eval's own self-consistency task (64 sampled answers per question;
    # score-first, maj@64, maj@8 through take_first_k) on its synthetic
    # documents; the tiny model's answers never hold "The answer is N", so
    # every vote is "[invalid]": it checks the plumbing, not the votes.
    {"name": "self_consistency", "limit": 2, "include_path": "tasks/testdata/lmeval_yaml/tasks",
     "data_dir": "tasks/testdata/lmeval_yaml/data", "tasks": ["gsm8k_platinum_cot_self_consistency"],
     "gen_kwargs": "max_gen_toks=16"},
    # parity/reason/tasks/reason_vote.yaml: 8 sampled answers whose first
    # vowel varies, so the votes, take_first_k and the list-valued
    # exact_match (every-sample) differ by document and filter.
    {"name": "vote", "include_path": "parity/reason/tasks", "data_dir": "parity/reason/data",
     "tasks": ["reason_vote"]},
    # parity/reason/tasks/reason_first.yaml: 4 sampled answers and no
    # filter_list, so lm-eval's default filter (take_first) scores the first.
    {"name": "first", "include_path": "parity/reason/tasks", "data_dir": "parity/reason/data",
     "tasks": ["reason_first"]},
    # lm-eval's code tasks (parity/reason/tasks/humaneval and mbpp, its own
    # files) on code_data.py's problems, both engines replaying its answers
    # (code_answers.json): correct, wrong, crashing, looping, exiting,
    # printing, network; pass@1 through lm-eval's code_eval and goeval's
    # sandbox. humaneval_64: 64 answers per problem, pass@2..pass@64.
    {"name": "code", "include_path": "parity/reason/tasks", "data_dir": "parity/reason/data",
     "tasks": ["humaneval", "humaneval_plus", "humaneval_instruct", "mbpp", "mbpp_plus", "mbpp_instruct"],
     "replay": "parity/reason/code_answers.json", "confirm_run_unsafe_code": True},
    {"name": "pass_at_k", "limit": 3, "include_path": "parity/reason/tasks", "data_dir": "parity/reason/data",
     "tasks": ["humaneval_64"], "replay": "parity/reason/code_answers.json", "confirm_run_unsafe_code": True},
    # A reasoning model's raw answers (think_answers.json), cut by lm-eval's
    # own postprocess_generated_text (HFLM's think_end_token) before its
    # filters; e2e_reason_test.go replays the same raw answers to goeval
    # with Options.Thinking.
    {"name": "think", "include_path": "parity/reason/tasks", "data_dir": "parity/reason/data",
     "tasks": ["reason_think"], "replay": "parity/reason/think_answers.json", "think_end_token": "</think>"},
]


def replay_file(go_dir, path):
    """goeval's answers, {task: {doc_id: resps}}, from its samples files."""
    out = {}
    for p in glob.glob(os.path.join(go_dir, "**", "samples_*.jsonl"), recursive=True):
        for line in open(p, encoding="utf-8"):
            row = json.loads(line)
            task = os.path.basename(p)[len("samples_"):].rsplit("_", 1)[0]
            out.setdefault(task, {}).setdefault(str(row["doc_id"]), row["resps"])
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False)


def known_differences(gdir):
    """Rewrites, in a golden folder's results.json, what goeval writes
    differently on purpose: a Python hook's source code (lm-eval's configs
    hold inspect.getsource of a metric function, str() of a filter
    function; goeval's hooks are Go, so it writes "!function NAME" as it
    does for every hook), and the metric function's own name in
    higher_is_better (lm-eval keeps "pass_at_k" there beside the pass@k it
    expands to; goeval lists the metrics it reports)."""
    path = os.path.join(gdir, "results.json")
    with open(path, encoding="utf-8") as f:
        res = json.load(f, object_pairs_hook=collections.OrderedDict)
    for task, cfg in res.get("configs", {}).items():
        hooks = set()
        for m in cfg.get("metric_list", []):
            src = m.get("metric", "")
            if src.startswith("def "):
                name = src[4:src.index("(")]
                m["metric"] = "!function utils." + name
                hooks.add(name)
        fs = cfg.get("fewshot_config", {})
        if str(fs.get("samples", "")).startswith("<function "):
            fs["samples"] = "!function utils." + fs["samples"][len("<function "):-1]
        for fl in cfg.get("filter_list", []):
            for step in fl.get("filter", []):
                fn = step.get("filter_fn", "")
                if fn.startswith("<function "):
                    step["filter_fn"] = "!function utils." + fn[len("<function "):-1]
        hib = res.get("higher_is_better", {}).get(task, {})
        for name in hooks:
            if name in hib and not any(k.startswith(name) for k in res["results"][task] if "," in k):
                del hib[name]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(res, f, indent=2, ensure_ascii=False)
        f.write("\n")


def run_lmeval(work, m, run, replay, code_eval):
    """lm_eval over the replayed answers, with e2e.run_lmeval's arguments."""
    out = os.path.join(work, "lmeval_" + run["name"])
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false",
               HF_ALLOW_CODE_EVAL="1")
    data = ["--yaml-data-dir", run["data_dir"]]
    extra = []
    if run.get("confirm_run_unsafe_code"):
        if not code_eval:
            sys.exit(f"run {run['name']} needs --code-eval DIR (huggingface/evaluate's metrics/code_eval)")
        extra = ["--confirm_run_unsafe_code"]
    e2e.sh([sys.executable, os.path.join(HERE, "lmeval_replay.py"), "--replay", replay,
            *(["--code-eval", code_eval] if code_eval else []),
            *(["--think-end", run["think_end_token"]] if run.get("think_end_token") else []), *data, "--model", "hf",
            "--model_args", f"pretrained={m},dtype=float32" + run.get("model_args", ""), "--device", "cpu",
            "--tasks", ",".join(run["tasks"]), "--log_samples", "--output_path", out,
            "--include_path", run["include_path"],
            *(["--gen_kwargs", run["gen_kwargs"]] if run.get("gen_kwargs") else []),
            *e2e.prompt_args(run, "_"), *extra],
           log=out + ".log", env=env, cwd=ROOT)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="compare fresh lm-eval outputs with the goldens too")
    ap.add_argument("--work", help="keep intermediate files here (default: a temp dir)")
    ap.add_argument("--runs", default="", help="comma-separated run names (default: all)")
    ap.add_argument("--code-eval", help="a copy of huggingface/evaluate's metrics/code_eval folder (the code runs)")
    a = ap.parse_args()
    work = os.path.abspath(a.work or tempfile.mkdtemp(prefix="goeval-reason-"))
    os.makedirs(work, exist_ok=True)
    runs = [r for r in RUNS if not a.runs or r["name"] in a.runs.split(",")]
    exe, models, _ = e2e.synth(work)
    m = models["M"]
    problems, fresh = [], os.path.join(work, "golden")
    for run in runs:
        for side in ("goeval_", "lmeval_"):  # a reused --work folder: one results file per run
            shutil.rmtree(os.path.join(work, side + run["name"]), ignore_errors=True)
        if run.get("replay"):  # committed answers: e2e_reason_test.go replays them to goeval
            lm = run_lmeval(work, m, run, os.path.join(ROOT, run["replay"]), a.code_eval)
            e2e.write_golden(lm, run, m, fresh)
            known_differences(os.path.join(fresh, run["name"]))
            continue
        go = e2e.run_goeval(work, exe, m, run["data_dir"], {**run, "model": "M"})
        replay = os.path.join(work, f"replay_{run['name']}.json")
        replay_file(go, replay)
        lm = run_lmeval(work, m, run, replay, a.code_eval)
        p, notes = compare.compare_dirs(lm, go, paths={m: "MODEL"})
        problems += [f"[{run['name']}] {x}" for x in p]
        for x in notes:
            print(f"note: [{run['name']}] {x}")
        e2e.write_golden(lm, run, m, fresh)
    if a.check:
        problems += compare.diff_golden_dirs(GOLDEN, fresh, [r["name"] for r in runs])
    else:
        for run in runs:
            shutil.rmtree(os.path.join(GOLDEN, run["name"]), ignore_errors=True)
            shutil.copytree(os.path.join(fresh, run["name"]), os.path.join(GOLDEN, run["name"]))
        with open(os.path.join(GOLDEN, "runs.json"), "w") as f:
            json.dump({"synth": e2e.synth_hashes(m), "runs": RUNS}, f, indent=1)
            f.write("\n")
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    for x in problems:
        print("DIFF:", x)
    if problems:
        sys.exit(f"reason parity: {len(problems)} difference(s)")
    print(f"reason parity: goeval agrees with lm-eval on {len(runs)} runs over the same answers")


if __name__ == "__main__":
    main()
