"""goeval.evaluate's python and python_timeout: goeval run's --python and
--python-timeout, for task files whose functions are Python."""
from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

import goeval
from goeval._evaluate import run_flags

TASK = """dataset_path: json
dataset_kwargs:
  data_files:
    test: data.jsonl
test_split: test
output_type: multiple_choice
doc_to_text: !function hooks.{fn}
doc_to_choice: "{{{{opts}}}}"
doc_to_target: label
task: {name}
metric_list:
  - metric: acc
"""
HOOKS = """import time


def text(doc):
    return "Q: " + doc["q"]


def slow(doc):
    time.sleep(30)
    return doc["q"]
"""


@pytest.fixture()
def hooks(tmp_path: Path) -> Path:
    d = tmp_path / "hooks"
    d.mkdir()
    (d / "good.yaml").write_text(TASK.format(fn="text", name="pygood"))
    (d / "slow.yaml").write_text(TASK.format(fn="slow", name="pyslow"))
    (d / "hooks.py").write_text(HOOKS)
    rows = [{"q": "Capital of France?", "opts": ["Paris", "Rome"], "label": 0}]
    (d / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return d


def test_python_flags_on_the_command_line() -> None:
    args = run_flags("fake", "t", {"python": Path("/opt/py/bin/python3"), "python_timeout": 1.5})
    assert "--python=/opt/py/bin/python3" in args and "--python-timeout=1.5s" in args
    assert "--python-timeout=2m" in run_flags("fake", "t", {"python_timeout": "2m"})
    assert not any(a.startswith("--python") for a in run_flags("fake", "t", {}))
    with pytest.raises(TypeError, match="python_timeout"):
        run_flags("fake", "t", {"python_timeout": [1]})


def test_python_runs_the_hooks(hooks: Path, tmp_path: Path) -> None:
    log = tmp_path / "started"
    wrapper = tmp_path / "logpy.sh"
    wrapper.write_text(f"#!/bin/sh\necho started >> '{log}'\nexec '{sys.executable}' \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    res = goeval.evaluate(model="fake", tasks=["pygood"], include_path=hooks, python=wrapper, progress=False)
    assert res["results"]["pygood"]["sample_len"] == 1
    assert log.exists(), "the task's Python function did not run with the given interpreter"
    with pytest.raises(goeval.BadInputError, match="goeval cannot run Python"):
        goeval.evaluate(model="fake", tasks=["pygood"], include_path=hooks, python="none", progress=False)


def test_python_timeout_stops_a_hook(hooks: Path) -> None:
    with pytest.raises(goeval.BadInputError, match=r"no answer within 1s"):
        goeval.evaluate(model="fake", tasks=["pyslow"], include_path=hooks, python=sys.executable,
                        python_timeout=1, progress=False)
