"""Run lm-eval's own task objects over goeval's synthetic datasets and dump
what goeval must reproduce byte for byte: for every built-in task and doc,
the processed doc, the target and every request's arguments (contexts,
continuations, generation kwargs) at the task's default num_fewshot with the
default few-shot seed 1234, plus the doc ids that --limit 0.2 selects.

Usage (from the repo root):
  .venv/bin/python parity/lmeval/dump_tasks.py --synth DIR --out tasks/testdata/lmeval
  .venv/bin/python parity/lmeval/dump_tasks.py --check        # regenerate into a temp dir, diff
--check writes the synthetic data itself (go run ./parity/lmeval/synthtasks, the same
code as `goeval synth data --task all --n 24`).
"""
import argparse
import glob
import json
import logging
import math
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
logging.disable(logging.WARNING)

import datasets  # noqa: E402

_real_load_dataset = datasets.load_dataset

N_DOCS = 24  # docs per split in the synthetic data used for the goldens
SYNTH_DIR = None


def local_load_dataset(path=None, name=None, **kwargs):
    """datasets.load_dataset replacement reading goeval's synth layout."""
    root = os.path.join(SYNTH_DIR, path)
    cfg = name or "default"
    sub = "data" if cfg == "default" else cfg
    files = {}
    for f in sorted(glob.glob(os.path.join(root, sub, "*-00000-of-00001.parquet"))):
        split = os.path.basename(f).split("-00000-of-")[0]
        files[split] = f
    if not files:
        raise FileNotFoundError(f"no synthetic data for {path} {cfg} under {root}")
    return _real_load_dataset("parquet", data_files=files)


def task_names():
    out = subprocess.run(["go", "run", "./parity/lmeval/synthtasks", "list"], capture_output=True, text=True,
                         check=True).stdout
    return out.split()


def jsonable(x):
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, dict):
        return {k: jsonable(v) for k, v in x.items()}
    return x


# Extra variants: (task, num_fewshot, chat, fewshot_as_multiturn). They
# exercise the random sampler's k+1 path (few-shot split == eval split),
# first_n, and the chat-template path with a system instruction.
VARIANTS = [(t, 3, False, False) for t in ["hellaswag", "winogrande", "boolq", "piqa", "arc_easy", "openbookqa",
                                          "mmlu_anatomy", "drop", "hendrycks_math_algebra", "lambada_openai"]]
VARIANTS += [(t, 2, True, m) for t in ["mmlu_anatomy", "winogrande", "gsm8k", "hellaswag"] for m in (False, True)]
SYSTEM = "Be brief."


def chat_template(msgs, add_generation_prompt=True):
    """A toy chat template, mirrored by tasks/parity_test.go."""
    out = "".join(f"<|{m['role']}|>{m['content']}<|end|>" for m in msgs)
    return out + ("<|assistant|>" if add_generation_prompt else "")


def variant_name(name, k, chat, multiturn):
    return f"{name}@{k}shot" + ("+chat" if chat else "") + ("+multiturn" if multiturn else "")


def dump_task(task, name, k=None, chat=False, multiturn=False):
    task.set_fewshot_seed(seed=1234)
    if k is not None:
        task.set_config(key="num_fewshot", value=k)
    if task.get_config("num_fewshot") is None:
        task.set_config(key="num_fewshot", value=0)
    kw = {}
    if chat:
        kw = dict(apply_chat_template=True, fewshot_as_multiturn=multiturn, chat_template=chat_template,
                  system_instruction=SYSTEM)
    task.build_all_requests(limit=None, rank=0, world_size=1, **kw)
    by_doc = {}
    for inst in task.instances:
        by_doc.setdefault(inst.doc_id, []).append(inst)
    lines = []
    for doc_id in sorted(by_doc):
        insts = sorted(by_doc[doc_id], key=lambda i: i.idx)
        doc = insts[0].doc
        args = []
        for i in insts:
            a = list(i.arguments)
            args.append([jsonable(v) for v in a])
        rec = {"doc_id": doc_id, "doc": jsonable(doc), "target": str(task.doc_to_target(doc)), "arguments": args}
        lines.append(json.dumps(rec, ensure_ascii=False))
    n = len(task.eval_docs)
    limit_ids = list(range(int(math.ceil(n * 0.2))))
    head = {"task": name, "num_fewshot": task.get_config("num_fewshot"), "n_docs": n, "limit_0.2_doc_ids": limit_ids}
    return json.dumps(head, ensure_ascii=False) + "\n" + "\n".join(lines) + "\n"


def generate(synth, out):
    global SYNTH_DIR
    SYNTH_DIR = synth
    import lm_eval.api.task as api_task
    from lm_eval.tasks import TaskManager, get_task_dict

    api_task.datasets.load_dataset = local_load_dataset
    tm = TaskManager()
    os.makedirs(out, exist_ok=True)
    failed = []
    for name in task_names():
        try:
            td = get_task_dict([name], tm)
            text = dump_task(td[name], name)
        except Exception as e:  # noqa: BLE001
            failed.append(f"{name}: {type(e).__name__}: {e}")
            continue
        with open(os.path.join(out, name + ".jsonl"), "w", encoding="utf-8") as f:
            f.write(text)
    for name, k, chat, multi in VARIANTS:
        vname = variant_name(name, k, chat, multi)
        try:
            td = get_task_dict([name], tm)
            text = dump_task(td[name], vname, k, chat, multi)
        except Exception as e:  # noqa: BLE001
            failed.append(f"{vname}: {type(e).__name__}: {e}")
            continue
        os.makedirs(os.path.join(out, "variants"), exist_ok=True)
        with open(os.path.join(out, "variants", vname + ".jsonl"), "w", encoding="utf-8") as f:
            f.write(text)
    return failed


def diff_dirs(want, got):
    """Names of .jsonl files missing on either side or differing in bytes."""
    names = {os.path.basename(p) for d in (want, got) for p in glob.glob(os.path.join(d, "*.jsonl"))}
    bad = []
    for n in sorted(names):
        pw, pg = os.path.join(want, n), os.path.join(got, n)
        if not (os.path.exists(pw) and os.path.exists(pg)) or open(pw, "rb").read() != open(pg, "rb").read():
            bad.append(n)
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--synth")
    ap.add_argument("--out", default="tasks/testdata/lmeval")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if not a.check:
        failed = generate(a.synth, a.out)
        for f in failed:
            print("lm-eval failed:", f, file=sys.stderr)
        sys.exit(1 if failed else 0)
    with tempfile.TemporaryDirectory() as tmp:
        synth = os.path.join(tmp, "synth")
        subprocess.run(["go", "run", "./parity/lmeval/synthtasks", "synth", synth, str(N_DOCS)], check=True)
        out = os.path.join(tmp, "out")
        failed = generate(synth, out)
        bad = failed + diff_dirs(a.out, out) + diff_dirs(os.path.join(a.out, "variants"), os.path.join(out, "variants"))
        if bad:
            sys.exit("lm-eval dumps differ from the committed goldens: " + ", ".join(bad))
        print(f"lm-eval parity goldens identical ({len(glob.glob(os.path.join(out, '*.jsonl')))} tasks + variants)")


if __name__ == "__main__":
    main()
