"""Reference for goeval's group aggregation: lm-eval 0.4.13's own results on
synthetic tasks and groups.

Writes testdata/lmeval_groups/:
  tasks/*.yaml, tasks/*.jsonl  four tiny tasks on local documents and groups
                               over them: filter_list (a list, a name, absent:
                               discovered), weight_by_size true and false,
                               groups of groups, inline members ({task: …}
                               with overrides, a new {task: …}, inline
                               {group: …}), a registered group with overrides,
                               group-level task overrides;
  index.json                   lm-eval's TaskIndex of tasks/: name → kind;
  answers.json                 the stand-in model's answer to every request
                               (deterministic hashes of the request), which
                               goeval's test model replays;
  results/<case>.json          what lm-eval's simple_evaluate writes for each
                               case (a list of --tasks): results, groups,
                               group_subtasks, versions, n-shot,
                               higher_is_better, n-samples.

Usage (from the repo root):
  .venv/bin/python parity/lmeval/group_golden.py          # rewrite
  .venv/bin/python parity/lmeval/group_golden.py --check  # fail on any difference
"""

import hashlib
import json
import os
import shutil
import sys
import tempfile

from lm_eval import simple_evaluate
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model
from lm_eval.tasks import TaskManager

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(REPO, "testdata", "lmeval_groups")

MC = """task: {name}
dataset_path: json
dataset_kwargs:
  data_files: {{test: {name}.jsonl}}
test_split: test
output_type: multiple_choice
doc_to_text: "Q: {{{{question}}}}\\nA:"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: answer
metric_list:
  - metric: acc
  - metric: acc_norm
metadata:
  version: 1.0
"""

GEN = """task: {name}
dataset_path: json
dataset_kwargs:
  data_files: {{test: {name}.jsonl}}
test_split: test
output_type: generate_until
doc_to_text: "Sum {{{{question}}}} ="
doc_to_target: "{{{{answer}}}}"
generation_kwargs:
  until: ["\\n"]
  do_sample: false
filter_list:
{filters}metric_list:
  - metric: exact_match
    ignore_case: true
metadata:
  version: 2.0
"""

STRICT = """  - name: strict-match
    filter:
      - function: regex
        regex_pattern: "#### (\\\\d+)"
      - function: take_first
"""
FLEX = """  - name: flexible-extract
    filter:
      - function: regex
        group_select: -1
        regex_pattern: "(\\\\d+)"
      - function: take_first
"""

GROUPS = {
    # filter_list as a list; weighted by size
    "g_filters": """group: g_filters
task: [gen_a, gen_b]
aggregate_metric_list:
  - metric: exact_match
    filter_list: [strict-match, flexible-extract]
    weight_by_size: true
metadata:
  version: 3
""",
    # filter_list absent (discovered over leaves that have it only in part),
    # a bare name, none over multiple-choice tasks, unweighted
    "g_discover": """group: g_discover
group_alias: Discovered
task: [gen_a, gen_c, mc_a]
aggregate_metric_list:
  - metric: exact_match
  - metric: acc
    filter_list: none
    weight_by_size: false
  - metric: exact_match
    filter_list: strict-match
    weight_by_size: false
""",
    # groups of groups, inline members
    "g_outer": """group: g_outer
task:
  - g_filters
  - group: inner
    group_alias: Inner
    task:
      - mc_a
      - task: mc_b
        task_alias: B renamed
    aggregate_metric_list:
      - metric: acc
      - metric: acc_norm
        weight_by_size: false
  - task: new_task
    dataset_path: json
    dataset_kwargs:
      data_files: {test: mc_b.jsonl}
    test_split: test
    output_type: multiple_choice
    doc_to_text: "New: {{question}}"
    doc_to_choice: "{{choices}}"
    doc_to_target: answer
    metric_list:
      - metric: acc
aggregate_metric_list:
  - metric: acc
    filter_list: [none]
  - metric: exact_match
    filter_list: [flexible-extract, strict-match]
metadata:
  version: 1.5
""",
    # group-level task overrides, a registered group with overrides
    "g_over": """group: g_over
description: "Answer briefly. "
task:
  - mc_a
  - group: g_filters
    target_delimiter: "  "
aggregate_metric_list:
  - metric: acc
  - metric: exact_match
    filter_list: flexible-extract
""",
}

# lm-eval's TaskIndex rules for two files goeval once skipped: a `\/` escape
# in double-quoted strings (PyYAML reads "/"; elsewhere it stays), and a
# class: file with both group: and task: (a Python task, its group: dropped).
OTHER = {
    "esc_gen": GEN.format(name="gen_c", filters=STRICT).replace("task: gen_c", "task: esc_gen").replace(
        'doc_to_text: "Sum {{question}} ="',
        'doc_to_text: "1\\/2 \\\\/ {{\'a\\/b\'}} \\/\n  \\ x Sum {{question}} ="\ndescription: \'A\\/B \'\n'
        'target_delimiter: " "  # "\\/"'),
    "cls_task": "group: g_cls\ntask: cls_task\nclass: !function cls.Task\n",
}

CASES = {
    "filters": ["g_filters"],
    "discover": ["g_discover", "mc_b"],
    "outer": ["g_outer"],
    "over": ["g_over"],
    "escape": ["esc_gen"],
}


def docs():
    mc = lambda n, k: [{"question": f"item {k} {i}", "choices": ["red", "blue", "green"][: 2 + i % 2],
                        "answer": (i * 5 + k) % (2 + i % 2)} for i in range(n)]
    gen = lambda n, k: [{"question": f"{i} + {k}", "answer": str(i + k)} for i in range(n)]
    return {"mc_a": mc(5, 1), "mc_b": mc(8, 2), "gen_a": gen(6, 3), "gen_b": gen(4, 7), "gen_c": gen(3, 1)}


def h(*parts):
    d = hashlib.sha256("\x00".join(map(str, parts)).encode()).digest()
    return int.from_bytes(d[:8], "big") / 2**64


ANSWERS = {}


@register_model("goeval-groups")
class GroupsLM(LM):
    """Answers from hashes of the request, recorded for goeval's replay."""

    def loglikelihood(self, requests, disable_tqdm=False):
        out = []
        for r in requests:
            ctx, cont = r.args
            ll = -4.0 * h("ll", ctx, cont)
            ANSWERS["ll\x00" + ctx + "\x00" + cont] = [ll, ll > -1.0]
            out.append((ll, ll > -1.0))
        return out

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        raise NotImplementedError

    def generate_until(self, requests, disable_tqdm=False):
        out = []
        for r in requests:
            ctx = r.args[0]
            a, b = ctx.rsplit("Sum ", 1)[1][:-len(" =")].split(" + ")
            right = int(a) + int(b)
            x = h("gen", ctx)
            if x < 0.3:
                text = f" {right}\n#### {right}"  # both filters right (the stand-in ignores until)
            elif x < 0.55:
                text = f" it is {right + 1} or {right}"  # flexible right, strict nothing
            elif x < 0.8:
                text = f" #### {right} then {right + 2}"  # strict right, flexible wrong
            else:
                text = f" #### {right + 3}"
            ANSWERS["gen\x00" + ctx] = text
            out.append(text)
        return out


KEYS = ["results", "groups", "group_subtasks", "versions", "n-shot", "higher_is_better", "n-samples"]


def write_inputs(tasks_dir):
    os.makedirs(tasks_dir, exist_ok=True)
    for name, rows in docs().items():
        with open(os.path.join(tasks_dir, name + ".jsonl"), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    files = {n: MC.format(name=n) for n in ("mc_a", "mc_b")}
    files["gen_a"] = GEN.format(name="gen_a", filters=STRICT + FLEX)
    files["gen_b"] = GEN.format(name="gen_b", filters=STRICT + FLEX)
    files["gen_c"] = GEN.format(name="gen_c", filters=STRICT)
    files.update(GROUPS)
    files.update(OTHER)
    for name, text in files.items():
        with open(os.path.join(tasks_dir, name + ".yaml"), "w", encoding="utf-8") as f:
            f.write(text)


def generate(out):
    tasks_dir = os.path.join(out, "tasks")
    write_inputs(tasks_dir)
    os.makedirs(os.path.join(out, "results"), exist_ok=True)
    cwd = os.getcwd()
    os.chdir(tasks_dir)  # data_files are relative
    try:
        for case, names in CASES.items():
            res = simple_evaluate(model="goeval-groups", tasks=names, bootstrap_iters=1000,
                                  task_manager=TaskManager(include_path=tasks_dir, include_defaults=False))
            kept = {k: res[k] for k in KEYS if k in res}
            with open(os.path.join(out, "results", case + ".json"), "w", encoding="utf-8") as f:
                f.write(json.dumps(kept, indent=2, ensure_ascii=False) + "\n")
    finally:
        os.chdir(cwd)
    index = {n: e.kind.name for n, e in sorted(TaskManager(include_path=tasks_dir, include_defaults=False).task_index.items())}
    with open(os.path.join(out, "index.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(index, indent=1) + "\n")
    with open(os.path.join(out, "answers.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(dict(sorted(ANSWERS.items())), indent=1, ensure_ascii=False) + "\n")


def main():
    if "--check" not in sys.argv:
        shutil.rmtree(OUT, ignore_errors=True)
        generate(OUT)
        print("wrote", OUT)
        return
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        bad = []
        for d, _, fs in os.walk(tmp):
            for f in fs:
                rel = os.path.relpath(os.path.join(d, f), tmp)
                want = os.path.join(OUT, rel)
                if not os.path.exists(want) or open(want, "rb").read() != open(os.path.join(d, f), "rb").read():
                    bad.append(rel)
        if bad:
            sys.exit("lm-eval group results differ from testdata/lmeval_groups: " + ", ".join(sorted(bad)))
        print("lm-eval group results identical")


if __name__ == "__main__":
    main()
