"""End-to-end parity: `lm_eval --model hf` and `goeval run` on the same tiny
synthesized model and synthetic datasets must write results and samples files
that agree metric by metric.

Steps: build goeval; synth the tokenizers, two tiny qwen2 models (MODELS)
and the data; run lm_eval (through lmeval_synth.py, which points every
task's dataset at the synthetic files) and goeval run with the same tasks,
--limit and prompt options (model C's runs give goeval lm-eval's own command
line); compare (compare.py): documents, prompts, log-likelihoods within
1e-4, metrics, and the results files key for key except compare.py's
EXPECTED_KEY_DIFFS and RUN_SPECIFIC. Without --check, the lm-eval outputs are written, trimmed of
run-specific values, as goldens to parity/e2e/testdata/ (read by the root
package's e2e_test.go). With --check, the fresh lm-eval outputs must also
equal the committed goldens; any difference fails.

Usage (from the repo root):
  .venv/bin/python parity/e2e/e2e.py            # regenerate the goldens
  .venv/bin/python parity/e2e/e2e.py --check    # fail on any difference
  .venv/bin/python parity/e2e/e2e.py --work DIR --tasks arc_easy --limit 4   # explore
  .venv/bin/python parity/e2e/e2e.py --skip ll,mmlu,gen   # only model C's runs (nobos, chat_*)
"""
import argparse
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
GOLDEN = os.path.join(HERE, "testdata")
# What the goldens cover (written to testdata/runs.json for e2e_test.go).
# Limits are small so that the Go test stays fast; the generation run caps
# max_gen_toks through --gen-kwargs (which also checks that path).
RUNS = [
    {"name": "ll", "limit": 3, "tasks": ["arc_easy", "arc_challenge", "hellaswag", "piqa", "winogrande", "openbookqa",
                                         "boolq", "lambada_openai", "wikitext"]},
    {"name": "mmlu", "limit": 1, "tasks": ["mmlu_stem"]},
    # A group of groups: mmlu's four categories over its 57 subjects — the
    # nested group_subtasks order, group aggregates and their n-shot and
    # version entries, and the two summary tables lm_eval prints of them.
    {"name": "mmlu_all", "limit": 1, "tasks": ["mmlu"]},
    {"name": "gen", "limit": 2, "tasks": ["gsm8k", "drop", "hendrycks_math_algebra"], "gen_kwargs": "max_gen_toks=32"},
    # Model C (see MODELS): no BOS token, so lm-eval's prefix token is the
    # tokenizer's EOS <|im_end|>, not config.json's bos_token_id; 128
    # positions, so wikitext pages take two rolling windows and 2-shot chat
    # prompts are left-truncated.
    {"name": "nobos", "model": "C", "limit": 3, "tasks": ["lambada_openai", "wikitext", "arc_challenge"]},
    {"name": "chat_inline", "model": "C", "limit": 3, "tasks": ["lambada_openai", "wikitext", "arc_challenge"],
     "num_fewshot": 2, "apply_chat_template": True, "fewshot_as_multiturn": False},
    {"name": "chat_multiturn", "model": "C", "limit": 3, "tasks": ["arc_challenge", "lambada_openai"],
     "num_fewshot": 2, "apply_chat_template": True, "fewshot_as_multiturn": True,
     "system_instruction": "You are a careful grader. Answer with the option text."},
    # --samples (documents by index, keeping their doc_id) and --metadata.
    {"name": "samples", "model": "C", "tasks": ["arc_easy", "wikitext"], "num_fewshot": 1,
     "samples": {"arc_easy": [1, 4], "wikitext": [2]}, "metadata": {"experiment": "e2e"}},
    # lm-eval task YAML files (--include-path; lm-eval's own copies under
    # tasks/testdata/lmeval_yaml/tasks) over their jsonl documents
    # (tasks/testdata/lmeval_yaml/data, read by lmeval_synth.py's
    # --yaml-data-dir and goeval's --data-dir): all four output types, f1 and
    # mcc, few-shot samples, generate_until filters and exact_match kwargs.
    # bootstrap_iters 2000 (two chunks of lm-eval's bootstrap, seeds 0 and 1;
    # lmeval_synth.py passes it to simple_evaluate, lm_eval's CLI has no flag):
    # at the default 100000, lm-eval's sklearn f1 and mcc resamples take
    # about 8 minutes on 2 cores (the tiny model answers "no" to every doc,
    # so both stderrs are 0 anyway).
    {"name": "yaml", "limit": 3, "include_path": "tasks/testdata/lmeval_yaml/tasks",
     "data_dir": "tasks/testdata/lmeval_yaml/data", "bootstrap_iters": 2000,
     "tasks": ["sciq", "rte", "mc_taco", "cola", "swag", "xstorycloze_en", "asdiv", "lambada_standard", "pile_10k",
               "triviaqa", "nq_open", "bbh_fewshot_boolean_expressions", "wmt16-en-de"],
     "gen_kwargs": "max_gen_toks=16"},
    # The README's example task (examples/tasks/capitals/capitals.yaml): a
    # generate_until task on local jsonl files named by relative
    # dataset_kwargs.data_files, first_n 3-shot from the dev split, a regex
    # and a raw filter, exact_match (ignore_case, ignore_punctuation) and
    # corpus chrF (its stderr: lm-eval's min(bootstrap_iters, 100)
    # resamples) over all 12 test documents. datasets resolves the relative
    # files against its working directory: lm_eval runs from the repo root
    # (so that both engines record config_source under it) and
    # lmeval_synth.py's --data-files-dir reads them from data_files_dir;
    # goeval finds them next to the YAML file (its fallback after the
    # working directory).
    {"name": "yaml_example", "include_path": "examples/tasks", "data_files_dir": "examples/tasks/capitals",
     "tasks": ["capitals"]},
    # lm-eval task YAML files with gen_prefix under the chat template (model
    # C): the prompt ends with an assistant turn holding the gen_prefix,
    # which the template continues (transformers' continue_final_message);
    # multiple_choice keeps the target delimiter only after a raw
    # gen_prefix not ending in whitespace. arc_challenge_chat (lm-eval's
    # own, num_fewshot 0 in its YAML; max_gen_toks 100 of the 128 positions
    # left-truncate its prompts to 28 tokens), goeval_custom_genprefix_gen
    # and _mc (their YAML's 2 shots; fewshot_config.gen_prefix, gen_prefix
    # naming a doc field) and sciq as a plain multiple_choice control.
    # Limit 5: genprefix_gen's doc 4 draws the shot with an empty answer
    # (its gen_prefix and no fewshot_delimiter); genprefix_mc's docs 0-2
    # have gen_prefix values "Answer:", "Réponse: " and "=>".
    # fewshot_as_multiturn left out: lm-eval >= 0.4.10's default with chat
    # (true). Every metric is a mean (closed-form stderr), so the default
    # bootstrap_iters costs nothing.
    {"name": "yaml_chat", "model": "C", "limit": 5, "include_path": "tasks/testdata/lmeval_yaml/tasks",
     "data_dir": "tasks/testdata/lmeval_yaml/data", "apply_chat_template": True,
     "tasks": ["arc_challenge_chat", "goeval_custom_genprefix_gen", "goeval_custom_genprefix_mc",
               "goeval_custom_genprefix_mc_space", "sciq"]},
    # The same gen_prefix tasks with the shots inline in the user turn
    # (fewshot_as_multiturn false) and a system instruction.
    {"name": "yaml_chat_inline", "model": "C", "limit": 5, "include_path": "tasks/testdata/lmeval_yaml/tasks",
     "data_dir": "tasks/testdata/lmeval_yaml/data", "apply_chat_template": True, "fewshot_as_multiturn": False,
     "system_instruction": "You are a careful grader. Answer briefly.",
     "tasks": ["arc_challenge_chat", "goeval_custom_genprefix_gen", "goeval_custom_genprefix_mc"]},
]
MODEL_ARGS = ["--arch", "qwen2", "--hidden", "64", "--layers", "2", "--heads", "4", "--kv-heads", "2",
              "--intermediate", "128", "--seed", "1"]
# The synthesized models: M, a Qwen base-style tokenizer (no BOS; EOS = pad =
# <|endoftext|> = config bos_token_id); C, a Qwen chat-style one (no BOS; EOS
# <|im_end|>, pad <|endoftext|> = config bos_token_id) with 128 positions.
MODELS = {"M": {"tokenizer": [], "model": MODEL_ARGS},
          "C": {"tokenizer": ["--eos", "<|im_end|>"], "model": MODEL_ARGS + ["--max-positions", "128"]}}
# runs.json's key for each model's file hashes.
HASH_KEYS = {"M": "synth", "C": "synth_nobos"}


def sh(cmd, log=None, **kw):
    """Runs cmd; with log, its output goes there and is shown on failure."""
    print("+", " ".join(cmd), file=sys.stderr)
    if log is None:
        return subprocess.run(cmd, check=True, **kw)
    with open(log, "w") as f:
        r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, **kw)
    if r.returncode != 0:
        with open(log) as f:
            sys.stderr.write(f.read()[-4000:])
        raise SystemExit(f"{cmd[0]} failed (exit {r.returncode}); log: {log}")
    return r


def synth(work):
    """Builds goeval and writes the models (MODELS, with their tokenizers)
    and data D; returns the binary, {name: model folder} and D."""
    exe = os.path.join(work, "goeval")
    sh(["go", "build", "-o", exe, "./cmd/goeval"], cwd=ROOT)
    models = {}
    for name, a in MODELS.items():
        m = models[name] = os.path.join(work, name)
        sh([exe, "synth", "tokenizer", *a["tokenizer"], "--out", m], stdout=subprocess.DEVNULL)
        sh([exe, "synth", "model", *a["model"], "--tokenizer", m, "--out", m], stdout=subprocess.DEVNULL)
    d = os.path.join(work, "D")
    sh([exe, "synth", "data", "--task", "all", "--out", d], stdout=subprocess.DEVNULL)
    # The synthetic tokenizer uses Qwen2's pre-tokenizer, which transformers
    # imposes on every qwen2 checkpoint, so lm-eval loads it from M as is.
    return exe, models, d


def sha256_file(p):
    with open(p, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def synth_hashes(m):
    """Hashes of the synthesized model files, so that e2e_test.go can tell a
    changed model synthesizer (regenerate the goldens) from a regression.
    (The data files are not hashed: parquet-go writes its build version into
    them; changed data shows as differing docs and doc_hash.)"""
    return {f: sha256_file(os.path.join(m, f))
            for f in ("model.safetensors", "config.json", "tokenizer.json", "tokenizer_config.json")}


def prompt_args(run, dash):
    """The run's few-shot and chat flags, spelled with "_" (lm-eval) or "-"
    (goeval)."""
    out = []
    if "num_fewshot" in run:
        out += [f"--num{dash}fewshot", str(run["num_fewshot"])]
    if run.get("apply_chat_template"):
        out += [f"--apply{dash}chat{dash}template"]
    if "fewshot_as_multiturn" in run:
        v = str(run["fewshot_as_multiturn"]).lower()
        out += ["--fewshot_as_multiturn", v] if dash == "_" else [f"--fewshot-as-multiturn={v}"]
    if run.get("system_instruction"):
        out += [f"--system{dash}instruction", run["system_instruction"]]
    for k in ("samples", "metadata"):
        if k in run:
            out += [f"--{k}", json.dumps(run[k])]
    if "limit" in run:
        out += ["--limit", str(run["limit"])]
    return out


def run_lmeval(work, m, d, run):
    """lm_eval on the run, from the repo root (a run's include_path and
    data_dir are relative to it: the results record the YAML paths)."""
    out = os.path.join(work, "lmeval_" + run["name"])
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    data = ["--synth-dir", d]
    if run.get("data_dir"):
        data = ["--yaml-data-dir", run["data_dir"]]
    if run.get("data_files_dir"):
        data += ["--data-files-dir", run["data_files_dir"]]
    if "bootstrap_iters" in run:  # lm_eval's CLI has no such flag: lmeval_synth.py passes it on
        data += ["--bootstrap-iters", str(run["bootstrap_iters"])]
    sh([sys.executable, os.path.join(HERE, "lmeval_synth.py"), *data, "--model", "hf",
        "--model_args", f"pretrained={m},dtype=float32", "--device", "cpu",
        "--tasks", ",".join(run["tasks"]), "--log_samples", "--output_path", out,
        *(["--include_path", run["include_path"]] if run.get("include_path") else []),
        *(["--gen_kwargs", run["gen_kwargs"]] if run.get("gen_kwargs") else []), *prompt_args(run, "_")],
       log=out + ".log", env=env, cwd=ROOT)
    return out


def run_goeval(work, exe, m, d, run):
    """goeval run on the run; model C's runs use lm-eval's own command line
    (the arguments run_lmeval passes, plus --data_dir and --batch_size),
    which goeval accepts as aliases."""
    out = os.path.join(work, "goeval_" + run["name"])
    gen = ["--gen_kwargs", run["gen_kwargs"]] if run.get("gen_kwargs") else []
    d = run.get("data_dir", d)
    if run.get("include_path"):
        gen += ["--include_path", run["include_path"]]
    if run.get("model") == "C":
        args = ["--model", "hf", "--model_args", f"pretrained={m},dtype=float32", "--device", "cpu",
                "--tasks", ",".join(run["tasks"]), "--log_samples",
                "--output_path", out, *gen, *prompt_args(run, "_"), "--data_dir", d, "--batch_size", "4"]
    else:
        # --device cpu as lm-eval is given: the results files record it.
        args = ["--model", m, "--data-dir", d, "--tasks", ",".join(run["tasks"]), "--device", "cpu",
                "--log-samples", "--output-path", out, "--batch-size", "4",
                *(["--bootstrap-iters", str(run["bootstrap_iters"])] if "bootstrap_iters" in run else []),
                *[a.replace("_", "-") if a.startswith("--") else a for a in gen], *prompt_args(run, "-")]
    sh([exe, "run", *args], log=out + ".log", cwd=ROOT)
    return out


SCRUB = {"date": 0.0, "total_evaluation_time_seconds": "0", "pretty_env_info": "", "git_hash": None,
         "upper_git_hash": None}


def write_golden(lm_dir, run, m, dest):
    """Writes lm-eval's files, normalised (compare.normalise), to dest/run."""
    res, samples = compare.load_run(lm_dir)
    gdir = os.path.join(dest, run["name"])
    shutil.rmtree(gdir, ignore_errors=True)
    os.makedirs(gdir)
    paths = {m: "MODEL"}
    res = compare.normalise(res, paths)
    for k, v in SCRUB.items():  # run-specific: would make every --check differ
        if k in res:
            res[k] = v
    with open(os.path.join(gdir, "results.json"), "w", encoding="utf-8") as f:
        json.dump(res, f, indent=2, ensure_ascii=False)
        f.write("\n")
    for task, rows in samples.items():
        with open(os.path.join(gdir, f"samples_{task}.jsonl"), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(compare.normalise(r, paths), ensure_ascii=False) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="compare fresh lm-eval outputs with the goldens too")
    ap.add_argument("--work", help="keep intermediate files here (default: a temp dir)")
    ap.add_argument("--tasks", help="comma-separated tasks: one exploratory run, no goldens written")
    ap.add_argument("--limit", type=float, default=3)
    ap.add_argument("--skip", default="", help="comma-separated run names to leave out (ll, gen)")
    a = ap.parse_args()
    work = os.path.abspath(a.work or tempfile.mkdtemp(prefix="goeval-e2e-"))
    os.makedirs(work, exist_ok=True)
    runs = [r for r in RUNS if r["name"] not in a.skip.split(",")]
    if a.tasks:
        limit = int(a.limit) if a.limit >= 1 else a.limit
        runs = [{"name": "adhoc", "limit": limit, "tasks": a.tasks.split(",")}]
    exe, models, d = synth(work)
    problems, notes = [], []
    fresh = os.path.join(work, "golden")
    for run in runs:
        m = models[run.get("model", "M")]
        lm = run_lmeval(work, m, d, run)
        go = run_goeval(work, exe, m, d, run)
        p, n = compare.compare_dirs(lm, go, paths={m: "MODEL"})
        problems += [f"[{run['name']}] {x}" for x in p]
        notes += [f"[{run['name']}] {x}" for x in n]
        if not a.tasks:
            write_golden(lm, run, m, fresh)
    for x in notes:
        print("note:", x)
    if not a.tasks:
        if a.check:
            problems += compare.diff_golden_dirs(GOLDEN, fresh, [r["name"] for r in runs])
        else:
            for run in runs:
                shutil.rmtree(os.path.join(GOLDEN, run["name"]), ignore_errors=True)
                shutil.copytree(os.path.join(fresh, run["name"]), os.path.join(GOLDEN, run["name"]))
            with open(os.path.join(GOLDEN, "runs.json"), "w") as f:
                hashes = {HASH_KEYS[n]: synth_hashes(p) for n, p in models.items()}
                json.dump({**hashes, "runs": RUNS}, f, indent=1)
                f.write("\n")
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    for x in problems:
        print("DIFF:", x)
    if problems:
        sys.exit(f"e2e parity: {len(problems)} difference(s)")
    print(f"e2e parity: goeval agrees with lm-eval on {sum(len(r['tasks']) for r in runs)} task/group names")


if __name__ == "__main__":
    main()
