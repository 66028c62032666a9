"""Runs a LLaMA-Factory training config with goeval's GoevalCallback.

The YAML file is LLaMA-Factory's (``llamafactory-cli train`` reads the same
keys) plus a ``goeval:`` section with GoevalCallback's arguments, which is
removed before LLaMA-Factory parses the rest. Every checkpoint (a LoRA
adapter with ``finetuning_type: lora``) is evaluated in a background goeval
process; the scores go to the run's loggers at the checkpoint's step and
into ``<output_dir>/goeval/checkpoint-<step>/``.

Usage: python llamafactory_goeval.py CONFIG.yaml
"""
from __future__ import annotations

import sys
from typing import Any

import yaml
from llamafactory.train.tuner import run_exp

from goeval.callback import GoevalCallback


def main(path: str) -> None:
    with open(path, encoding="utf-8") as f:
        cfg: dict[str, Any] = yaml.safe_load(f)
    opts = dict(cfg.pop("goeval", None) or {})
    tasks = opts.pop("tasks")
    run_exp(args=cfg, callbacks=[GoevalCallback(tasks, **opts)])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
