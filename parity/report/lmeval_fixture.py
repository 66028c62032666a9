"""Regenerate report/testdata/lmeval: real lm-eval results/samples files.

Runs lm-eval's own simple_evaluate + EvaluationTracker (exactly what
`lm_eval run --output_path DIR --log_samples` does) with a deterministic
stand-in model on three tiny local tasks (multiple choice, generate_until
with two filters, loglikelihood_rolling), for two "models": base and tuned.
The tuned model is biased towards the gold answers on two thirds of the
docs, so compare has real improvements and discordant pairs to test.

Usage (from the repo root):
  .venv/bin/python parity/report/lmeval_fixture.py          # rewrite fixtures
  .venv/bin/python parity/report/lmeval_fixture.py --check  # fail on any difference

Volatile keys (date, timings, environment, git) are replaced by fixed values
before writing or comparing; everything else is byte-for-byte lm-eval output.
"""

import glob
import hashlib
import json
import os
import shutil
import sys
import tempfile

from lm_eval import simple_evaluate
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model
from lm_eval.loggers import EvaluationTracker
from lm_eval.tasks import TaskManager

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(REPO, "report", "testdata", "lmeval")
N_MC, N_GEN, N_PPL = 40, 12, 4

MC_YAML = """task: tiny_mc
dataset_path: json
dataset_kwargs:
  data_files: {test: tiny_mc.jsonl}
test_split: test
output_type: multiple_choice
doc_to_text: "Question: {{question}}\\nAnswer:"
doc_to_choice: "{{choices}}"
doc_to_target: answer
metric_list:
  - metric: acc
  - metric: acc_norm
metadata:
  version: 1.0
"""

GEN_YAML = """task: tiny_gen
dataset_path: json
dataset_kwargs:
  data_files: {test: tiny_gen.jsonl}
test_split: test
output_type: generate_until
doc_to_text: "Question: {{question}}\\nAnswer:"
doc_to_target: "{{answer}}"
generation_kwargs:
  until: ["Question:", "\\n\\n"]
  do_sample: false
  temperature: 0.0
filter_list:
  - name: strict-match
    filter:
      - function: regex
        regex_pattern: "#### (\\\\-?[0-9\\\\.\\\\,]+)"
      - function: take_first
  - name: flexible-extract
    filter:
      - function: regex
        group_select: -1
        regex_pattern: "(-?[$0-9.,]{2,})|(-?[0-9]+)"
      - function: take_first
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
    ignore_case: true
    ignore_punctuation: false
    regexes_to_ignore: [",", "\\\\$", "(?s).*#### ", "\\\\.$"]
metadata:
  version: 3.0
"""

PPL_YAML = """task: tiny_ppl
dataset_path: json
dataset_kwargs:
  data_files: {test: tiny_ppl.jsonl}
test_split: test
output_type: loglikelihood_rolling
doc_to_text: ""
doc_to_target: "{{text}}"
metric_list:
  - metric: word_perplexity
  - metric: byte_perplexity
  - metric: bits_per_byte
metadata:
  version: 2.0
"""

WORDS = ["red", "blue", "green", "tall", "small", "cold", "warm", "über", "naïve", "café"]


def docs():
    mc = [{"question": f"Which word is number {i}? <{WORDS[i % 10]}> & \"q\"",
           "choices": [WORDS[(i + k) % 10] for k in range(4)],
           "answer": (i * 7) % 4, "weight": 0.5 + i / 8} for i in range(N_MC)]
    gen = [{"question": f"What is {i} + {i + 1}?",
            "answer": f"{i} plus {i + 1} makes {2 * i + 1}.\n#### {2 * i + 1}"} for i in range(N_GEN)]
    ppl = [{"text": " ".join(WORDS[(i + k) % 10] for k in range(5 + 3 * i)) + "."} for i in range(N_PPL)]
    return mc, gen, ppl


def h(*parts):
    """A deterministic pseudo-random float in [0, 1) from the parts."""
    d = hashlib.sha256("\x00".join(map(str, parts)).encode()).digest()
    return int.from_bytes(d[:8], "big") / 2**64


@register_model("goeval-fixture")
class FixtureLM(LM):
    """Deterministic stand-in: scores are hashes of the request; 'tuned'
    adds a bonus to gold answers on docs whose index is not a multiple of 3."""

    def __init__(self, pretrained="base", **kwargs):
        super().__init__()
        self.tuned = "tuned" in pretrained
        mc, gen, _ = docs()
        self.gold = {}
        for i, d in enumerate(mc):
            self.gold[("Question: " + d["question"] + "\nAnswer:", " " + d["choices"][d["answer"]])] = i
        self.gen_gold = {"Question: " + d["question"] + "\nAnswer:": (i, d) for i, d in enumerate(gen)}

    def loglikelihood(self, requests, disable_tqdm=False):
        out = []
        for r in requests:
            ctx, cont = r.args
            ll = -1.0 - 3.0 * h("mc", ctx, cont)
            i = self.gold.get((ctx, cont))
            if self.tuned and i is not None and i % 3 != 0:
                ll += 2.5
            out.append((ll, ll > -1.5))
        return out

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        return [-(len(r.args[0]) * (0.9 if self.tuned else 1.1)) - h("ppl", r.args[0]) for r in requests]

    def generate_until(self, requests, disable_tqdm=False):
        out = []
        for r in requests:
            i, d = self.gen_gold[r.args[0]]
            right = (i % 2 == 0) or (self.tuned and i % 3 != 0)
            n = 2 * i + 1 if right else 2 * i
            out.append(f" {i} and {i + 1} is {n}.\n#### {n}")
        return out


VOLATILE = {"date": 1700000000.0, "pretty_env_info": "fixture", "transformers_version": "fixture",
            "lm_eval_version": "fixture", "upper_git_hash": None, "git_hash": "fixture",
            "total_evaluation_time_seconds": "1.0"}


def run(model, workdir, outdir):
    tracker = EvaluationTracker(output_path=outdir)
    res = simple_evaluate(model="goeval-fixture", model_args=f"pretrained={model}",
                          tasks=["tiny_mc", "tiny_gen", "tiny_ppl"], log_samples=True,
                          evaluation_tracker=tracker, bootstrap_iters=1000,
                          task_manager=TaskManager(include_path=workdir))
    samples = res.pop("samples")
    for k, v in VOLATILE.items():
        if k in res:
            res[k] = v
    tracker.general_config_tracker.total_evaluation_time_seconds = "1.0"
    tracker.date_id = None
    tracker.save_results_aggregated(results=res, samples=samples)
    for t in res["configs"]:
        tracker.save_results_samples(task_name=t, samples=samples[t])


def normalize(outdir):
    """Rename date_id-stamped files to fixed names and pin volatile keys."""
    for path in glob.glob(os.path.join(outdir, "*", "*")):
        d, base = os.path.split(path)
        stem, ext = os.path.splitext(base)
        fixed = stem.rsplit("_", 1)[0] + "_2023-11-14T22-13-20.000001" + ext
        if ext == ".json":
            with open(path, encoding="utf-8") as f:
                res = json.load(f)
            for k, v in VOLATILE.items():
                if k in res:
                    res[k] = v
            for cfg in res.get("configs", {}).values():  # temp dir paths
                meta = cfg.get("metadata", {})
                if "config_source" in meta:
                    meta["config_source"] = os.path.basename(meta["config_source"])
            with open(path, "w", encoding="utf-8") as f:
                f.write(json.dumps(res, indent=2, ensure_ascii=False))
        os.rename(path, os.path.join(d, fixed))


def main():
    check = "--check" in sys.argv
    work = tempfile.mkdtemp()
    try:
        mc, gen, ppl = docs()
        for name, rows in [("tiny_mc", mc), ("tiny_gen", gen), ("tiny_ppl", ppl)]:
            with open(os.path.join(work, name + ".jsonl"), "w", encoding="utf-8") as f:
                for r in rows:
                    f.write(json.dumps(r, ensure_ascii=False) + "\n")
        for name, y in [("tiny_mc", MC_YAML), ("tiny_gen", GEN_YAML), ("tiny_ppl", PPL_YAML)]:
            with open(os.path.join(work, name + ".yaml"), "w") as f:
                f.write(y)
        gen_dir = os.path.join(work, "out")
        cwd = os.getcwd()
        os.chdir(work)  # data_files are relative, so configs hold no temp paths
        try:
            for model in ["fixture/base", "fixture/tuned"]:
                run(model, work, gen_dir)
        finally:
            os.chdir(cwd)
        normalize(gen_dir)
        if os.environ.get("KEEP"):
            shutil.copytree(gen_dir, os.environ["KEEP"], dirs_exist_ok=True)
        if check:
            sys.exit(compare(gen_dir, OUT))
        shutil.rmtree(OUT, ignore_errors=True)
        shutil.copytree(gen_dir, OUT)
        print("wrote", OUT)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def compare(got, want):
    bad = 0
    a = sorted(os.path.relpath(p, got) for p in glob.glob(os.path.join(got, "*", "*")))
    b = sorted(os.path.relpath(p, want) for p in glob.glob(os.path.join(want, "*", "*")))
    if a != b:
        print("file lists differ:", a, b)
        return 1
    for rel in a:
        with open(os.path.join(got, rel), "rb") as f1, open(os.path.join(want, rel), "rb") as f2:
            if f1.read() != f2.read():
                print("differs:", rel)
                bad = 1
    print("lmeval fixture check:", "FAIL" if bad else "ok")
    return bad


if __name__ == "__main__":
    main()
