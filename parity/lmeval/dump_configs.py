"""Dump lm-eval's "configs" entry (TaskConfig.dump_config()) of every built-in
task into tasks/lmeval_configs.json, which goeval embeds and writes into its
results files exactly as lm-eval does.

The entry is taken as lm-eval's evaluator leaves it at the task's default
few-shot (num_fewshot None → 0), with run-specific values removed: metadata
keeps only what the task YAML sets (model_args and config_source, which
lm-eval adds per run, are dropped; goeval adds its own model_args), and
"<function f at 0x…>" reprs lose their address.

Usage (from the repo root):
  .venv/bin/python parity/lmeval/dump_configs.py            # regenerate tasks/lmeval_configs.json
  .venv/bin/python parity/lmeval/dump_configs.py --check    # fail if the committed file differs
"""
import argparse
import json
import logging
import os
import re
import subprocess
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dump_tasks  # noqa: E402  (sets HF offline env, the local load_dataset)

logging.disable(logging.WARNING)
warnings.filterwarnings("ignore")
OUT = "tasks/lmeval_configs.json"
FUNC_ADDR = re.compile(r"<function (\S+) at 0x[0-9a-f]+>")


def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [clean(x) for x in v]
    if callable(v):
        v = str(v)
    if isinstance(v, str):
        return FUNC_ADDR.sub(r"<function \1>", v)
    return v


def configs(synth):
    import lm_eval.api.task as api_task
    from lm_eval.tasks import TaskManager, get_task_dict

    dump_tasks.SYNTH_DIR = synth
    api_task.datasets.load_dataset = dump_tasks.local_load_dataset
    tm = TaskManager()
    out = {}
    for name in sorted(dump_tasks.task_names()):
        task = get_task_dict([name], tm)[name]
        if task.get_config("num_fewshot") is None:
            task.set_config(key="num_fewshot", value=0)
        cfg = clean(task.dump_config())
        meta = cfg.get("metadata") or {}
        meta.pop("config_source", None)
        cfg["metadata"] = meta
        out[name] = cfg
    return json.dumps(out, indent=1, ensure_ascii=False, default=str) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        synth = os.path.join(tmp, "synth")
        subprocess.run(["go", "run", "./parity/lmeval/synthtasks", "synth", synth, str(dump_tasks.N_DOCS)], check=True)
        text = configs(synth)
    if not a.check:
        with open(OUT, "w", encoding="utf-8") as f:
            f.write(text)
        return
    if open(OUT, encoding="utf-8").read() != text:
        sys.exit(f"{OUT} differs from lm-eval's task configs: regenerate it with parity/lmeval/dump_configs.py")
    print(f"{OUT}: identical to lm-eval's configs")


if __name__ == "__main__":
    main()
