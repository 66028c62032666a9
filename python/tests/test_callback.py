"""GoevalCallback in a real transformers Trainer on the CPU: LoRA (peft) and
full fine-tuning of the generated tiny Qwen2 model on synthetic text."""
from __future__ import annotations

import os
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import goeval_run, without_wall_clock

if os.environ.get("PYTHON_TEST_REQUIRE_TRAINER") == "1":  # make python-test: a missing package fails
    import peft
    import torch
    import transformers
else:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    peft = pytest.importorskip("peft")

import goeval  # noqa: E402
from goeval.callback import GoevalCallback, metrics_of  # noqa: E402

TASKS = ["arc_easy", "hellaswag"]
FLAGS = ["--tasks=arc_easy,hellaswag", "--limit=6", "--device=cpu", "--log-samples"]
WORDS = "the a model learns to answer questions about science and everyday physics with short clear words".split()


class Recorder(transformers.TrainerCallback):
    """A logger double: what every callback's on_log receives, with the step."""

    def __init__(self) -> None:
        self.logs: list[tuple[int, dict[str, Any]]] = []

    def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kw: Any) -> None:
        self.logs.append((state.global_step, dict(logs or {})))


def dataset(tok: Any, n: int = 16, length: int = 24) -> list[dict[str, Any]]:
    rng = random.Random(0)
    rows = []
    for _ in range(n):
        ids = tok(" ".join(rng.choice(WORDS) for _ in range(40)))["input_ids"][:length]
        rows.append({"input_ids": ids, "attention_mask": [1] * len(ids), "labels": list(ids)})
    return rows


def train(tiny: dict[str, Path], out: Path, cb: GoevalCallback, lora: bool, **targs: Any) -> tuple[Any, Recorder]:
    """Trains the tiny model (LoRA or full) with cb and a Recorder after it."""
    torch.manual_seed(0)
    tok = transformers.AutoTokenizer.from_pretrained(tiny["model"])
    model = transformers.AutoModelForCausalLM.from_pretrained(tiny["model"], dtype=torch.float32)
    if lora:
        cfg = peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
        model = peft.get_peft_model(model, cfg)
    args = transformers.TrainingArguments(output_dir=str(out), per_device_train_batch_size=4, learning_rate=5e-2,
                                          logging_steps=1, save_strategy="steps", report_to="none", use_cpu=True,
                                          dataloader_num_workers=0, disable_tqdm=True, seed=0, **targs)
    rec = Recorder()
    trainer = transformers.Trainer(model=model, args=args, train_dataset=dataset(tok),
                                   data_collator=transformers.default_data_collator, callbacks=[cb, rec],
                                   processing_class=tok if lora else None)
    trainer.train()
    return trainer, rec


def check_logged(trainer: Any, rec: Recorder, cb: GoevalCallback, steps: list[int]) -> None:
    """Each checkpoint's scores reached every callback's on_log, and the
    log history, at the checkpoint's step (with its epoch)."""
    losses = [s for s, logs in rec.logs if "loss" in logs]
    assert losses == list(range(1, trainer.state.max_steps + 1))  # the Trainer's own logs are all there
    logged = [(s, logs) for s, logs in rec.logs if any(k.startswith("eval_goeval/") for k in logs)]
    assert [s for s, _ in logged] == steps
    for s, logs in logged:
        want = metrics_of(cb.results[s])
        assert "eval_goeval/arc_easy/acc_norm" in want and "eval_goeval/hellaswag/acc" in want
        assert logs == {**want, "epoch": logs["epoch"]}
        assert {**logs, "step": s} in trainer.state.log_history


def test_lora_checkpoints(tiny: dict[str, Path], tmp_path: Path, goeval_bin: str) -> None:
    out = tmp_path / "lora"
    cb = GoevalCallback(TASKS, limit=6, data_dir=tiny["data"])
    trainer, rec = train(tiny, out, cb, lora=True, max_steps=4, save_steps=2)
    assert not cb.errors and sorted(cb.results) == [2, 4]
    check_logged(trainer, rec, cb, [2, 4])
    sweep = out / "goeval"
    for step in (2, 4):
        ckpt = f"checkpoint-{step}"
        got = goeval.load_results(next((sweep / ckpt).glob("results_*.json")))
        assert got["config"]["model_args"]["peft"] == ckpt  # the adapter, on its base
        want = goeval_run(goeval_bin, tmp_path / "direct", f"--model={tiny['model']}", f"--adapter={ckpt}",
                          "--skip-base", f"--data-dir={tiny['data']}", *FLAGS, cwd=out)
        assert without_wall_clock(got) == without_wall_clock(want)
        assert without_wall_clock(cb.results[step]) == without_wall_clock({k: v for k, v in want.items()
                                                                           if k != "samples"})
    assert (sweep / "sweep.png").read_bytes()[:4] == b"\x89PNG"
    assert not any((sweep / ".staging").iterdir())  # staged links removed after each evaluation


def test_full_finetune_with_rotation(tiny: dict[str, Path], tmp_path: Path, goeval_bin: str) -> None:
    out = tmp_path / "full"
    cb = GoevalCallback(TASKS, limit=6, data_dir=tiny["data"], sweep_dir=tmp_path / "sweep")
    trainer, rec = train(tiny, out, cb, lora=False, max_steps=3, save_steps=1, save_total_limit=1)
    # Rotation left only the last checkpoint; the staged links kept the others.
    assert [p.name for p in out.glob("checkpoint-*")] == ["checkpoint-3"]
    assert not cb.errors and sorted(cb.results) == [1, 2, 3]
    assert sorted(p.name for p in (tmp_path / "sweep").glob("checkpoint-*")) == ["checkpoint-1", "checkpoint-2",
                                                                                 "checkpoint-3"]
    check_logged(trainer, rec, cb, [1, 2, 3])
    # Saved without a tokenizer: the callback took the model's; so does this run.
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(tiny["model"] / name, out / "checkpoint-3" / name)
    want = goeval_run(goeval_bin, tmp_path / "direct", "--model=checkpoint-3", f"--data-dir={tiny['data']}",
                      *FLAGS, cwd=out)
    sweep = [goeval.load_results(next((tmp_path / "sweep" / f"checkpoint-{s}").glob("results_*.json")))
             for s in (1, 2, 3)]
    assert without_wall_clock(sweep[2]) == without_wall_clock(want)
    assert without_wall_clock(cb.results[3]) == without_wall_clock({k: v for k, v in want.items() if k != "samples"})
    first, last = sweep[0]["samples"]["arc_easy"][0], sweep[2]["samples"]["arc_easy"][0]
    assert first["resps"] != last["resps"]  # the weights changed between checkpoints
