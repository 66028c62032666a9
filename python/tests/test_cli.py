"""The installed command, the version, progress, compare and plot."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

import goeval
from goeval._evaluate import run_flags
from goeval._progress import go_duration, parse_progress


def test_command_on_path_and_version(goeval_bin: str) -> None:
    out = subprocess.run([goeval_bin, "--version"], capture_output=True, text=True, check=True).stdout
    m = re.fullmatch(r"goeval (\S+) \(([0-9a-f]{7})(-dirty)?\)\n", out)
    assert m, out  # the commit is stamped, as make build does
    assert m.group(1) == goeval.__version__, (out, goeval.__version__)  # and the wheel's version
    v = Version(goeval.__version__)  # PEP 440
    if v.local:  # a dev build: +g<commit>[.dirty], the binary's commit
        assert v.local.split(".")[0] == "g" + m.group(2), (v, out)
    via_module = subprocess.run([sys.executable, "-m", "goeval", "--version"], capture_output=True, text=True)
    assert via_module.stdout == out


def test_parse_progress() -> None:
    p = parse_progress("progress: loglikelihood 12/44 requests (27.3%), 15 docs, 8637 tok/s, elapsed 1m30s, ETA 4m0s")
    assert p is not None
    assert (p.stage, p.done, p.total, p.docs, p.tokens_per_sec) == ("loglikelihood", 12, 44, 15, 8637.0)
    assert (p.elapsed, p.eta, p.finished) == (90.0, 240.0, False)
    done = parse_progress("progress: generate_until 44/44 requests (100.0%), 15 docs, 10 tok/s, elapsed 1h0m2s, done")
    assert done is not None and done.finished and done.eta is None and done.elapsed == 3602.0
    assert parse_progress("device: cpu (pure-Go backend)") is None
    assert go_duration("250ms") == 0.25
    with pytest.raises(ValueError):
        go_duration("1x")


def test_progress_callback(tiny: dict[str, Path]) -> None:
    seen: list[goeval.Progress] = []
    goeval.evaluate(model=tiny["model"], tasks=["arc_easy", "gsm8k"], limit=3, data_dir=tiny["data"],
                    log_samples=False, progress=seen.append)
    assert seen and seen[-1].finished and seen[-1].done == seen[-1].total > 0
    assert all(a.done <= b.done for a, b in zip(seen, seen[1:]))


def test_progress_without_tqdm_goes_to_stderr(tiny: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm fails
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    goeval.evaluate(model=tiny["model"], tasks=["arc_easy"], limit=2, data_dir=tiny["data"], log_samples=False)
    err = capsys.readouterr().err
    assert re.search(r"^progress: loglikelihood \d+/\d+ requests .* done$", err, re.M), err


def test_progress_with_tqdm(tiny: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tqdm")
    goeval.evaluate(model=tiny["model"], tasks=["arc_easy"], limit=2, data_dir=tiny["data"], log_samples=False)
    err = capsys.readouterr().err
    assert "loglikelihood" in err and "req" in err and "progress:" not in err, err


def test_flags() -> None:
    got = run_flags("m", ["a", "b"], {"adapters": ["x"], "model_args": {"pretrained": "m"}, "limit": 0.5,
                                      "fewshot_as_multiturn": False, "apply_chat_template": True,
                                      "gen_kwargs": "temperature=0", "log_samples": False, "skip_base": True,
                                      "extra_args": ["--prefix-cache-mb=0"]})
    assert got == ["run", "--tasks=a,b", "--model=m", "--adapter=x", '--model-args={"pretrained": "m"}',
                   "--limit=0.5", "--apply-chat-template", "--fewshot-as-multiturn=false",
                   "--gen-kwargs=temperature=0", "--skip-base", "--prefix-cache-mb=0"]


@pytest.fixture(scope="module")
def two_runs(tiny: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    root = tiny["root"]
    goeval.evaluate_all(model="model", tasks=["arc_easy", "hellaswag"], limit=8, data_dir="data", cwd=root,
                        output_path=out, progress=False)
    goeval.evaluate_all(model="model", tasks=["arc_easy", "hellaswag"], limit=8, data_dir="data", cwd=root,
                        output_path=out / "b", num_fewshot=2, progress=False)
    return out


def test_compare(two_runs: Path, goeval_bin: str) -> None:
    a, b = two_runs / "model", two_runs / "b" / "model"
    got: dict[str, Any] = goeval.compare(a, b, seed=7)
    assert [r.split("@")[0] for r in got["runs"]] == ["model", "model"] and len(got["results_files"]) == 2
    rows = {(r["task"], r["metric"]) for r in got["rows"]}
    assert ("arc_easy", "acc") in rows and ("hellaswag", "acc_norm") in rows
    assert all(r["changes"][0]["test"] == "mcnemar" for r in got["rows"])
    with pytest.raises(goeval.BadInputError, match="at least two"):
        goeval.compare(a)
    with pytest.raises(goeval.BadInputError):
        goeval.compare(a, two_runs / "nothing-here")


def test_plot(two_runs: Path, tmp_path: Path) -> None:
    out = goeval.plot(two_runs / "model", two_runs / "b" / "model", output=tmp_path / "s.png", kind="compare")
    assert Path(out).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
