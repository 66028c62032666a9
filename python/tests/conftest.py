"""Fixtures: the installed goeval binary, and a generated tiny Qwen2 model
(tokenizer, checkpoint) with synthetic datasets, made once per session."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

import goeval


def pytest_configure(config: Any) -> None:
    # make python-test checks the installed wheel, not the source tree.
    if os.environ.get("PYTHON_TEST_INSTALLED") == "1":
        where = Path(goeval.__file__).resolve()
        assert "site-packages" in where.parts, f"goeval imported from {where}, not from the installed wheel"


@pytest.fixture(scope="session")
def goeval_bin() -> str:
    return goeval.binary_path()


@pytest.fixture(scope="session")
def tiny(tmp_path_factory: pytest.TempPathFactory, goeval_bin: str) -> dict[str, Path]:
    """model/ (a Qwen2 checkpoint transformers loads) and data/ (synthetic
    datasets), under one folder."""
    root = tmp_path_factory.mktemp("tiny")
    model, data = root / "model", root / "data"

    def synth(*args: str) -> None:
        subprocess.run([goeval_bin, "synth", *args], check=True, capture_output=True)

    synth("tokenizer", "--out", str(model), "--vocab", "512")
    synth("model", "--arch", "qwen2", "--hidden", "64", "--layers", "2", "--heads", "4", "--kv-heads", "2",
          "--intermediate", "128", "--tokenizer", str(model), "--seed", "1", "--out", str(model))
    synth("data", "--task", "arc_easy,hellaswag,gsm8k,mmlu", "--out", str(data))
    return {"root": root, "model": model, "data": data}


WALL_CLOCK = ("date", "total_evaluation_time_seconds")
TIMING_SECONDS = ("compile_seconds", "forward_seconds", "peak_rss_mb")  # measured, not computed


def without_wall_clock(res: dict[str, Any]) -> dict[str, Any]:
    """res less the keys that differ between two runs of the same
    evaluation: its dates and the measured seconds and memory in
    goeval_timing."""
    out = {k: v for k, v in res.items() if k not in WALL_CLOCK}
    if "goeval_timing" in out:
        out["goeval_timing"] = {k: v for k, v in out["goeval_timing"].items() if k not in TIMING_SECONDS}
    return out


def goeval_run(goeval_bin: str, out: Path, *args: str, cwd: Path | None = None) -> dict[str, Any]:
    """Runs goeval run with --output-path out and loads the results file it
    wrote (with its samples)."""
    r = subprocess.run([goeval_bin, "run", f"--output-path={out}", *args], cwd=cwd, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    written = [ln[len("results written to "):] for ln in r.stderr.splitlines() if ln.startswith("results written to ")]
    assert len(written) == 1, r.stderr
    return read_run((cwd or Path.cwd()) / written[0])


def read_run(results: Path) -> dict[str, Any]:
    """A results file and its samples files, read here rather than by
    goeval.load_results (which the tests check)."""
    res: dict[str, Any] = json.loads(results.read_text(encoding="utf-8"))
    date = results.name[len("results_"):-len(".json")]
    samples = {f.name[len("samples_"):-len(f"_{date}.jsonl")]: [json.loads(ln) for ln in f.read_text().splitlines()]
               for f in results.parent.glob(f"samples_*_{date}.jsonl")}
    if samples:
        res["samples"] = samples
    return res
