"""Reading goeval's (and lm-eval's) results and samples files."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Union

Results = dict[str, Any]
"""lm-eval's results dict (see :func:`goeval.evaluate`)."""

_RESULTS = re.compile(r"results_(?P<date>.+)\.json$")


def load_results(path: Union[str, "os.PathLike[str]"], samples: bool = True) -> Results:
    """Reads a results file (``results_<date>.json``, as goeval and lm-eval
    write it) into lm-eval's results dict.

    With samples, the ``samples_<task>_<date>.jsonl`` files beside it are
    read into ``"samples"`` (task -> list of per-document dicts), as
    ``lm_eval.simple_evaluate(log_samples=True)`` returns them; the key is
    absent when there are no such files.
    """
    p = Path(path)
    with open(p, encoding="utf-8") as f:
        res: Results = json.load(f)
    if samples:
        found = read_samples(p)
        if found:
            res["samples"] = found
    return res


def read_samples(results_file: Path) -> dict[str, list[dict[str, Any]]]:
    """The samples files written with results_file, by task name."""
    m = _RESULTS.search(results_file.name)
    if not m:
        return {}
    date = m.group("date")
    suffix = f"_{date}.jsonl"
    out: dict[str, list[dict[str, Any]]] = {}
    for f in sorted(results_file.parent.glob(f"samples_*{suffix}")):
        task = f.name[len("samples_"):-len(suffix)]
        with open(f, encoding="utf-8") as fh:
            out[task] = [json.loads(line) for line in fh if line.strip()]
    return out


def results_paths(stderr: list[str], cwd: Union[str, "os.PathLike[str]", None]) -> list[Path]:
    """The results file of each model a ``goeval run`` evaluated or found
    finished, in order, from its stderr lines (``results written to PATH``,
    ``model NAME: results exist (PATH); skipping``)."""
    base = Path(cwd) if cwd is not None else Path.cwd()
    out: list[Path] = []
    for line in stderr:
        if line.startswith("results written to "):
            path = line[len("results written to "):].strip()
        else:
            m = re.match(r"model .*: results exist \((.+\.json)\); skipping", line)
            if not m:
                continue
            path = m.group(1)
        out.append(base / path)
    return out
