"""Reference data for goeval's Python hooks: lm-eval 0.4.13 task files whose
YAML names Python functions (`!function module.attr`), synthetic documents in
each dataset's Hugging Face schema, and what lm-eval's task objects make of
them: prompts and requests, and per-document metrics and aggregates for canned
model answers. goeval runs the same Python functions in its worker
(internal/pyworker) and must match byte for byte (tasks/pyhooks_parity_test.go).

Under tasks/testdata/lmeval_pyhooks/ it writes
  tasks/<path>.yaml, tasks/<path>.py
                      each task's YAML file and those it includes, and every
                      Python module they name, copied byte for byte from the
                      installed lm_eval/tasks folder;
  data/<dataset_path>/<dataset_name or default>/<split>.jsonl
                      synthetic documents, columns in the real dataset's order;
  golden/<task>.jsonl dump_tasks.py's format (requests at the default few-shot,
                      seed 1234), plus the yaml path in the header;
  golden/scoring/<task>.jsonl
                      per document: the canned responses (one per request), each
                      filter's output and the metrics of process_results as
                      lm-eval's samples file writes them; last line: every
                      metric's aggregate as _compute_task_aggregations computes it.

Usage (from the repo root):
  .venv/bin/python parity/lmeval/dump_pyhook_tasks.py            # (re)write everything
  .venv/bin/python parity/lmeval/dump_pyhook_tasks.py --check    # regenerate into a temp dir, byte-compare
"""
import argparse
import json
import os
import random
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dump_yaml_tasks as dy  # noqa: E402  (sets HF_DATASETS_OFFLINE / HF_HUB_OFFLINE)
from dump_tasks import dump_task, jsonable  # noqa: E402

import yaml  # noqa: E402

OUT = "tasks/testdata/lmeval_pyhooks"

# Each task exercises hooks of other kinds.
TASKS = [
    "truthfulqa_de_mc2",  # process_docs (dataset.map over new keys), process_results returning numpy floats
    "mmlu_prox_de_biology",  # process_docs (dataset.filter, a partial), doc_to_text and fewshot_config doc_to_text (partials)
    "french_bench_fquadv2",  # metric_list metrics that are Python functions (exact, f1) with mean
    "afrixnli_eng_prompt_1",  # doc_to_target hook; f1 aggregated by a Python function (sklearn weighted f1)
    "bbh_zeroshot_date_understanding",  # a Python Filter class (MultiChoiceRegexFilter) in filter_list
    "global_mmlu_full_pl_abstract_algebra",  # process_docs filtering by subject (answered by goeval's Go hook)
    "mmmlu_de_de_abstract_algebra",  # process_docs filtering by a normalised subject (answered by goeval's Go hook)
]
# Files the modules read, copied with them.
EXTRA_FILES = ["openai-mmmlu/subjects.json"]
N_DOCS = 12


# ---------------------------------------------------------------- synthetic documents
# gen(rng, i, split) -> one document, keys in the real dataset's feature order.

def g_mtqa(r, i, s):
    n1, n2 = 2 + i % 3, 3 + i % 3
    return {"id": f"{i}", "question": dy.text(r, i, 7) + ("?" if i % 4 else " [title] [x]"),
            "mc1_targets_choices": dy.choices(r, i, n1), "mc1_targets_labels": [1] + [0] * (n1 - 1),
            "mc2_targets_choices": dy.choices(r, i + 1, n2), "mc2_targets_labels": [1, 1] + [0] * (n2 - 2)}


CATS = ["biology", "law", "biology", "math", "biology", "computer science"]


def g_mmlu_prox(r, i, s):
    n = 10 if i % 3 else 7
    opts = dy.choices(r, i, n)
    k = r.randrange(n)
    d = {"question_id": 1000 + i, "question": dy.text(r, i, 9) + "?"}
    for j in range(10):
        d[f"option_{j}"] = opts[j] if j < n else None
    cat = "biology" if s == "validation" and i < 7 else CATS[i % len(CATS)]
    d.update({"answer": "ABCDEFGHIJ"[k], "answer_index": k,
              "cot_content": "A: Denken wir Schritt für Schritt nach. " + dy.text(r, i + 2, 6)
                             + f" Die Antwort ist ({'ABCDEFGHIJ'[k]}).",
              "category": cat, "src": f"ori_mmlu-{cat}", "question_id_src": i})
    return d


def g_fquad(r, i, s):
    ctx = dy.text(r, i, 16)
    words = ctx.split()
    ans = [] if i % 4 == 3 else [" ".join(words[2:4 + i % 3])]
    return {"title": dy.words(r, 2).title(), "context": ctx, "question": dy.text(r, i + 1, 6) + " ?",
            "answers": {"answer_start": [ctx.find(a) for a in ans], "text": ans}, "is_impossible": not ans}


def g_afrixnli(r, i, s):
    return {"premise": dy.text(r, i, 9), "hypothesis": dy.text(r, i + 1, 5), "label": r.randrange(3)}


def g_bbh_date(r, i, s):
    opts = [f"{r.randrange(1, 13):02d}/{r.randrange(1, 29):02d}/{r.randrange(1990, 2030)}" for _ in range(5 + i % 2)]
    lines = "\n".join(f"({'ABCDEF'[j]}) {o}" for j, o in enumerate(opts))
    k = r.randrange(len(opts))
    return {"input": dy.text(r, i, 8) + " What is the date?\nOptions:\n" + lines, "target": f"({'ABCDEF'[k]})"}


def g_global_mmlu(r, i, s):
    subj = ["abstract_algebra", "anatomy", "abstract_algebra", "astronomy"][i % 4]
    if s == "dev" and i < 7:
        subj = "abstract_algebra"
    c = dy.choices(r, i, 4)
    return {"sample_id": f"{subj}/{s}/{i}", "subject": subj, "subject_category": "STEM",
            "question": dy.text(r, i, 8) + "?", "option_a": c[0], "option_b": c[1], "option_c": c[2],
            "option_d": c[3], "answer": "ABCD"[r.randrange(4)], "required_knowledge": "[]",
            "time_sensitive": "No", "reference": None, "culture": None, "region": None, "country": None,
            "cultural_sensitivity_label": "CA", "is_annotated": bool(i % 2)}


def g_mmmlu(r, i, s):
    # Subject values as the MMMLU configs have them, some with a CSV file name left in.
    subj = ["abstract_algebra", "abstract_algebra_test.csv_de-DE.csv", "anatomy", "abstract_algebra_test-de",
            "astronomy_test.csv"][i % 5]
    c = dy.choices(r, i, 4)
    return {"Unnamed: 0": i, "Question": dy.text(r, i, 8) + "?", "A": c[0], "B": c[1], "C": c[2], "D": c[3],
            "Answer": "ABCD"[r.randrange(4)], "Subject": subj}


DATASETS = {
    ("alexandrainst/m_truthfulqa", "de"): g_mtqa,
    ("li-lab/MMLU-ProX", "de"): g_mmlu_prox,
    ("manu/fquad2_test", None): g_fquad,
    ("masakhane/afrixnli", "eng"): g_afrixnli,
    ("SaylorTwift/bbh", "date_understanding"): g_bbh_date,
    ("CohereForAI/Global-MMLU", "pl"): g_global_mmlu,
    ("openai/MMMLU", "DE_DE"): g_mmmlu,
}


def write_data(tm, out):
    for t in TASKS:
        cfg = tm.task_index[t].cfg
        key, files = dy.data_location(cfg)
        gen = DATASETS[key]
        for split, rel in sorted(files.items()):
            rng = random.Random(f"{key[0]}/{key[1]}/{split}")
            n = N_DOCS + (2 if split in ("train", "validation", "dev") else 0)
            p = os.path.join(out, "data", rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8") as f:
                for i in range(n):
                    f.write(json.dumps(gen(rng, i, split), ensure_ascii=False) + "\n")


# ---------------------------------------------------------------- task files

class _Loader(yaml.SafeLoader):
    pass


_Loader.add_constructor("!function", lambda loader, node: ("!function", loader.construct_scalar(node)))


def functions(v):
    if isinstance(v, tuple) and v and v[0] == "!function":
        yield v[1]
    elif isinstance(v, dict):
        for x in v.values():
            yield from functions(x)
    elif isinstance(v, list):
        for x in v:
            yield from functions(x)


def copy_task_files(src_root, rel, out, seen):
    """rel's YAML, its includes and the Python modules they name."""
    if rel in seen:
        return
    seen.add(rel)
    os.makedirs(os.path.dirname(os.path.join(out, "tasks", rel)), exist_ok=True)
    shutil.copyfile(os.path.join(src_root, rel), os.path.join(out, "tasks", rel))
    with open(os.path.join(src_root, rel), "rb") as f:
        cfg = yaml.load(f, Loader=_Loader)
    for fn in functions(cfg):
        mod = os.path.normpath(os.path.join(os.path.dirname(rel), fn.rsplit(".", 1)[0] + ".py"))
        if mod not in seen:
            seen.add(mod)
            shutil.copyfile(os.path.join(src_root, mod), os.path.join(out, "tasks", mod))
    inc = cfg.get("include")
    for i in inc if isinstance(inc, list) else ([inc] if inc else []):
        copy_task_files(src_root, os.path.normpath(os.path.join(os.path.dirname(rel), i)), out, seen)


# ---------------------------------------------------------------- scoring

def canned(task, inst, rng):
    """A deterministic answer of the request's kind."""
    if inst.request_type != "generate_until":
        return (-round(rng.uniform(0.1, 9.0), 3), rng.random() < 0.3)
    doc = inst.doc
    name = task.config.task
    k = inst.doc_id % 5
    if name.startswith("mmlu_prox"):
        return ["Die Antwort ist (%s)." % doc["answer"], "Die Antwort ist B", "keine Ahnung",
                "Die Antwort ist (C) oder (D)", "die antwort ist (A)"][k]
    if name.startswith("bbh"):
        opts = [line[4:] for line in doc["input"].split("\n") if line[:1] == "("]
        return [doc["target"], "The answer is " + opts[1] + ".", "Answer: B", "I think (" + "ABC"[k % 3] + ") fits",
                "none of these"][k]
    ans = doc["answers"]["text"]
    return [" " + (ans[0] if ans else "Impossible"), "Impossible", (ans[0].upper() + " et plus") if ans else "rien",
            "le " + (ans[0].split()[0] if ans else "x"), ""][k]


def samples_form(v):
    """v as lm-eval's samples file writes it."""
    from lm_eval.utils import handle_non_serializable
    return json.loads(json.dumps(v, default=handle_non_serializable, ensure_ascii=False))


def scoring_golden(task):
    """Canned answers for every request, lm-eval's filters, process_results per
    filter and document, and the aggregates."""
    from lm_eval.evaluator_utils import _compute_task_aggregations  # noqa: F401  (its rules, inlined below)
    rng = random.Random(task.config.task)
    by_doc = {}
    for inst in sorted(task.instances, key=lambda i: (i.doc_id, i.idx)):
        by_doc.setdefault(inst.doc_id, []).append(inst)
        inst.resps = [canned(task, inst, rng)]
    task.apply_filters()
    lines, raw = [], {}
    for doc_id in sorted(by_doc):
        insts = by_doc[doc_id]
        doc = insts[0].doc
        rec = {"doc_id": doc_id, "resps": [jsonable(i.resps) for i in insts], "filtered": {}, "metrics": {}}
        for key in insts[0].filtered_resps:
            rec["filtered"][key] = samples_form([i.filtered_resps[key] for i in insts])
            m = task.process_results(doc, [i.filtered_resps[key] for i in insts])
            rec["metrics"][key] = {k: samples_form(v) for k, v in m.items()}
            for k, v in m.items():
                raw.setdefault((k, key), []).append(v)
        lines.append(json.dumps(rec, ensure_ascii=False))
    agg = {}
    for (metric, key), items in raw.items():
        fn = task.aggregation().get(metric)
        agg[f"{metric},{key}"] = samples_form(fn(items))
    lines.append(json.dumps({"aggregates": agg}, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def golden(task, name, yaml_rel):
    """dump_yaml_tasks.golden, a metric function named by its __name__ (as lm-eval keys it)."""
    saved = task.config.metric_list
    if saved:
        task.config.metric_list = [{**m, "metric": getattr(m["metric"], "__name__", m["metric"])} for m in saved]
    try:
        return dy.golden(task, name, yaml_rel)
    finally:
        task.config.metric_list = saved


README = """# lm-eval task files with Python hooks: parity data

`tasks/` holds task files of EleutherAI lm-evaluation-harness 0.4.13 (MIT
license, copyright EleutherAI) and the Python modules they name with
`!function`, copied byte for byte from the installed `lm_eval/tasks/` folder by
`parity/lmeval/dump_pyhook_tasks.py`, which writes everything here. The
documents under `data/` are synthetic (in each dataset's Hugging Face schema);
`golden/` is what lm-eval's own task objects build from them, and
`golden/scoring/` what they score for canned answers (per-document metrics as
the samples file writes them, then the aggregates).

Regenerate: `.venv/bin/python parity/lmeval/dump_pyhook_tasks.py`; verify:
`.venv/bin/python parity/lmeval/dump_pyhook_tasks.py --check`.
"""


# ---------------------------------------------------------------- run

def generate(out):
    import lm_eval.api.task as api_task
    from lm_eval.tasks import TaskManager, get_task_dict

    tm = TaskManager()
    src_root = os.path.dirname(os.path.abspath(__import__("lm_eval.tasks", fromlist=["x"]).__file__))
    seen = set()
    rels = {}
    for t in TASKS:
        rels[t] = os.path.relpath(str(tm.task_index[t].yaml_path), src_root)
        copy_task_files(src_root, rels[t], out, seen)
    for rel in EXTRA_FILES:
        shutil.copyfile(os.path.join(src_root, rel), os.path.join(out, "tasks", rel))
    write_data(tm, out)
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8") as f:
        f.write(README)
    dy.DATA_DIR = os.path.join(out, "data")
    api_task.datasets.load_dataset = dy.local_load_dataset
    api_task.tqdm = lambda it, *a, **kw: it
    failed = []
    with tempfile.TemporaryDirectory() as cache:
        dy.CACHE_DIR = cache
        for d in ("golden", os.path.join("golden", "scoring")):
            os.makedirs(os.path.join(out, d), exist_ok=True)
        for t in TASKS:
            try:
                td = get_task_dict([t], tm)
                text = golden(td[t], t, rels[t])
                score = scoring_golden(td[t])
            except Exception as e:  # noqa: BLE001
                import traceback
                traceback.print_exc()
                failed.append(f"{t}: {type(e).__name__}: {e}")
                continue
            with open(os.path.join(out, "golden", t + ".jsonl"), "w", encoding="utf-8") as f:
                f.write(text)
            with open(os.path.join(out, "golden", "scoring", t + ".jsonl"), "w", encoding="utf-8") as f:
                f.write(score)
    return failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if not a.check:
        if os.path.isdir(a.out):
            shutil.rmtree(a.out)
        failed = generate(a.out)
        for f in failed:
            print("lm-eval failed:", f, file=sys.stderr)
        sys.exit(1 if failed else 0)
    with tempfile.TemporaryDirectory() as tmp:
        failed = generate(tmp)
        bad = failed + dy.diff_trees(a.out, tmp)
        if bad:
            sys.exit("lm-eval Python-hook task data differ from the committed files: " + ", ".join(bad))
        print(f"lm-eval Python-hook task data identical ({len(TASKS)} tasks)")


if __name__ == "__main__":
    main()
