"""GoevalCallback in a plain transformers Trainer, on the CPU in a minute:
LoRA (peft) on a generated tiny Qwen2 model and synthetic text, every saved
adapter scored by goeval in the background.

    pip install goeval transformers peft torch
    python trainer_lora_tiny.py WORKDIR

WORKDIR gets model/ and data/ (goeval synth), out/checkpoint-*/ (the
adapters), out/goeval/checkpoint-*/ (goeval's results per checkpoint),
out/goeval/sweep.png and out/goeval/logs/. With a real model, pass your own
model folder, tasks and datasets instead; TRL's trainers take the callback
the same way.
"""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import peft
import torch
import transformers

import goeval
from goeval.callback import GoevalCallback

TASKS = ["arc_easy", "hellaswag", "piqa"]


def synth(work: Path) -> None:
    """A tokenizer, a tiny random Qwen2 checkpoint and synthetic datasets."""
    exe = goeval.binary_path()
    model = str(work / "model")
    subprocess.run([exe, "synth", "tokenizer", "--out", model], check=True, capture_output=True)
    subprocess.run([exe, "synth", "model", "--arch", "qwen2", "--hidden", "64", "--layers", "2", "--heads", "4",
                    "--kv-heads", "2", "--intermediate", "128", "--tokenizer", model, "--seed", "1", "--out", model],
                   check=True, capture_output=True)
    subprocess.run([exe, "synth", "data", "--task", ",".join(TASKS), "--out", str(work / "data")], check=True,
                   capture_output=True)


def text_dataset(tok: transformers.PreTrainedTokenizerBase, n: int = 32) -> list[dict[str, list[int]]]:
    words = "the answer is a short sentence about physics and the everyday world".split()
    rng = random.Random(0)
    rows = []
    for _ in range(n):
        ids = tok(" ".join(rng.choice(words) for _ in range(40)))["input_ids"][:24]
        rows.append({"input_ids": ids, "attention_mask": [1] * len(ids), "labels": list(ids)})
    return rows


def main(work: Path) -> None:
    synth(work)
    torch.manual_seed(0)
    tok = transformers.AutoTokenizer.from_pretrained(work / "model")
    model = transformers.AutoModelForCausalLM.from_pretrained(work / "model", dtype=torch.float32)
    model = peft.get_peft_model(model, peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"],
                                                       task_type="CAUSAL_LM"))
    args = transformers.TrainingArguments(output_dir=str(work / "out"), max_steps=6, save_steps=2,
                                          per_device_train_batch_size=4, learning_rate=5e-2, logging_steps=2,
                                          report_to="none", use_cpu=True, disable_tqdm=True)
    cb = GoevalCallback(TASKS, limit=20, data_dir=work / "data")  # device="cpu" by default
    trainer = transformers.Trainer(model=model, args=args, train_dataset=text_dataset(tok),
                                   data_collator=transformers.default_data_collator, processing_class=tok,
                                   callbacks=[cb])
    trainer.train()
    scores = [h for h in trainer.state.log_history if any(k.startswith("eval_goeval/") for k in h)]
    print(json.dumps(scores, indent=1))
    print("sweep folder:", work / "out" / "goeval", "errors:", {s: e.line for s, e in cb.errors.items()})


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(Path(sys.argv[1]).resolve())
