"""goeval.evaluate against goeval run, and its lm-eval spellings."""
from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import goeval_run, without_wall_clock

import goeval

TASKS = ["arc_easy", "hellaswag", "gsm8k", "mmlu_stem"]

# The keys lm_eval.simple_evaluate (lm-eval 0.4.13) returns, but for the
# environment's (add_env_info), which goeval does not have.
SIMPLE_EVALUATE_KEYS = {"results", "groups", "group_subtasks", "configs", "versions", "n-shot", "higher_is_better",
                        "n-samples", "samples", "config", "git_hash", "date", "tokenizer_pad_token",
                        "tokenizer_eos_token", "tokenizer_bos_token", "eot_token_id", "max_length"}
ENV_KEYS = {"pretty_env_info", "transformers_version", "lm_eval_version", "upper_git_hash"}


@pytest.fixture(scope="module")
def evaluated(tiny: dict[str, Path]) -> dict[str, Any]:
    return goeval.evaluate(model="model", tasks=TASKS, limit=3, data_dir="data", device="cpu",
                           num_fewshot=1, cwd=tiny["root"], progress=False)


def test_evaluate_equals_goeval_run(evaluated: dict[str, Any], tiny: dict[str, Path], goeval_bin: str,
                                    tmp_path: Path) -> None:
    want = goeval_run(goeval_bin, tmp_path, "--model=model", "--tasks=" + ",".join(TASKS), "--limit=3",
                      "--data-dir=data", "--device=cpu", "--num-fewshot=1", "--log-samples", cwd=tiny["root"])
    assert without_wall_clock(evaluated) == without_wall_clock(want)
    assert evaluated["date"] != want["date"]  # two runs: the dropped keys really differ


def test_results_have_simple_evaluates_keys(evaluated: dict[str, Any]) -> None:
    assert SIMPLE_EVALUATE_KEYS <= set(evaluated), SIMPLE_EVALUATE_KEYS - set(evaluated)
    assert not ENV_KEYS & set(evaluated)
    assert set(evaluated["samples"]) == set(evaluated["configs"])  # one list per task that ran
    assert evaluated["results"]["arc_easy"]["sample_len"] == 3
    assert "mmlu_stem" in evaluated["groups"]


def test_lm_eval_spellings(evaluated: dict[str, Any], tiny: dict[str, Path]) -> None:
    res = goeval.evaluate(model="hf", model_args={"pretrained": "model", "dtype": "float32"}, tasks=TASKS,
                          limit=3, data_dir="data", num_fewshot=1, batch_size=4, log_samples=False,
                          gen_kwargs={"max_gen_toks": 256}, random_seed=0, fewshot_random_seed=1234,
                          cwd=tiny["root"], progress=False)
    assert res["results"] == evaluated["results"]
    assert res["config"]["model_args"] == {"pretrained": "model", "dtype": "float32"}
    assert res["config"]["batch_size"] == "4"
    assert "samples" not in res


def test_output_path_keeps_files(tiny: dict[str, Path], tmp_path: Path) -> None:
    res = goeval.evaluate(model=tiny["model"], tasks="arc_easy", limit=2, data_dir=tiny["data"],
                          output_path=tmp_path, progress=False)
    files = sorted(p.name for p in tmp_path.rglob("*.json*"))
    assert len(files) == 2 and files[0].startswith("results_") and files[1].startswith("samples_arc_easy_")
    assert res["results"]["arc_easy"]["sample_len"] == 2


def test_evaluate_all_sweep(tiny: dict[str, Path], goeval_bin: str) -> None:
    root = tiny["root"]
    if not (root / "model2").exists():
        subprocess.run([goeval_bin, "synth", "model", "--arch", "qwen2", "--hidden", "64", "--layers", "2",
                        "--heads", "4", "--kv-heads", "2", "--intermediate", "128", "--tokenizer", "model",
                        "--seed", "2", "--out", "model2"], cwd=root, check=True, capture_output=True)
    runs = goeval.evaluate_all(model="model,model2", tasks=["arc_easy"], limit=4, data_dir="data", cwd=root,
                               progress=False)
    assert [r["model_name"] for r in runs] == ["model", "model2"]
    with pytest.raises(goeval.BadInputError, match="evaluate 2 models"):
        goeval.evaluate(model="model,model2", tasks=["arc_easy"], limit=4, data_dir="data", cwd=root,
                        progress=False)
    with pytest.raises(TypeError, match="unexpected keyword"):
        goeval.evaluate_all(model="model", tasks=["arc_easy"], limits=4)


def test_bad_input_raises_bad_input_error(tiny: dict[str, Path]) -> None:
    with pytest.raises(goeval.BadInputError) as e:
        goeval.evaluate(model=tiny["model"], tasks=["arc_esy"], data_dir=tiny["data"], progress=False)
    assert e.value.returncode == 2
    assert e.value.line.startswith("goeval run: unknown task \"arc_esy\"")
    assert isinstance(e.value, ValueError) and isinstance(e.value, goeval.GoevalError)


def test_refused_options(tiny: dict[str, Path]) -> None:
    with pytest.raises(goeval.BadInputError, match="predict_only.*not supported"):
        goeval.evaluate(model=tiny["model"], tasks=["arc_easy"], predict_only=True, progress=False)
    with pytest.raises(TypeError, match="task_manager"):
        goeval.evaluate(model=tiny["model"], tasks=["arc_easy"], task_manager=object())
    with pytest.raises(TypeError, match="Python"):
        goeval.evaluate(model=object(), tasks=["arc_easy"])  # type: ignore[arg-type]


def test_runtime_failure_raises_goeval_error(tiny: dict[str, Path], goeval_bin: str) -> None:
    root = tiny["root"]
    subprocess.run([goeval_bin, "synth", "model", "--arch", "qwen2", "--hidden", "64", "--layers", "2", "--heads",
                    "4", "--kv-heads", "2", "--intermediate", "128", "--tokenizer", "model", "--nan-weights",
                    "--out", "nan"], cwd=root, check=True, capture_output=True)
    with pytest.raises(goeval.GoevalError) as e:
        goeval.evaluate(model="nan", tasks=["arc_easy"], limit=2, data_dir="data", fail_on_nonfinite=True,
                        cwd=root, progress=False)
    assert type(e.value) is goeval.GoevalError and e.value.returncode == 1
    assert e.value.line.startswith("goeval run:") and "non-finite" in e.value.line.lower()


def test_binary_not_found(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GOEVAL_BIN", str(tmp_path / "missing"))
    with pytest.raises(goeval.BinaryNotFoundError, match="GOEVAL_BIN"):
        goeval.binary_path()
