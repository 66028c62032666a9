"""A saved checkpoint as the callback evaluates it: hard links to its files
in the sweep folder (so that the Trainer's checkpoint rotation cannot delete
them mid-evaluation), the tokenizer added when the checkpoint has none, the
base model of a PEFT adapter."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Optional

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "chat_template.jinja")
# Trainer state a checkpoint holds that goeval never reads: not linked.
TRAINING_STATE = ("optimizer.pt", "scheduler.pt", "scaler.pt", "training_args.bin", "trainer_state.json")


def _link_or_copy(src: Path, dst: Path, copy: bool) -> bool:
    """Hard-links src to dst; copies it instead when copy is set (small
    files) and linking fails. False when neither was done."""
    try:
        os.link(src, dst)
        return True
    except OSError:
        if not copy:
            return False
    shutil.copy2(src, dst)
    return True


def stage(ckpt: Path, dest: Path, tokenizer_dir: Optional[Path]) -> Path:
    """Links ckpt's top-level files into dest (a fresh folder named as
    ckpt) and adds tokenizer_dir's tokenizer files the checkpoint lacks.
    Returns dest, or ckpt itself when its weights cannot be linked (another
    file system): then it is evaluated in place."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for f in sorted(ckpt.iterdir()):
        if not f.is_file() or f.name in TRAINING_STATE or f.name.startswith("rng_state"):
            continue
        small = f.stat().st_size < 16 << 20
        if not _link_or_copy(f, dest / f.name, small):
            shutil.rmtree(dest)
            return ckpt
    is_adapter = (dest / "adapter_config.json").is_file()
    if tokenizer_dir is not None and not is_adapter and not (dest / "tokenizer.json").exists():
        for name in TOKENIZER_FILES:
            src = tokenizer_dir / name
            if src.is_file() and not (dest / name).exists():
                shutil.copy2(src, dest / name)
    return dest


def local_dir(name: Any) -> Optional[Path]:
    """name as an absolute folder when it is one, else None (a Hub id)."""
    if not name:
        return None
    p = Path(str(name)).expanduser()
    return p.resolve() if p.is_dir() else None


def adapter_base(ckpt: Path, model: Any) -> Optional[str]:
    """The base model of the PEFT adapter saved in ckpt: the PeftModel's
    own record when model is one, else adapter_config.json's
    base_model_name_or_path. A local folder is made absolute (the
    evaluation runs elsewhere)."""
    base: Any = None
    cfg = getattr(model, "peft_config", None)
    if isinstance(cfg, dict) and cfg:
        active = getattr(model, "active_adapter", None)
        entry = cfg.get(active) if isinstance(active, str) else None
        entry = entry or next(iter(cfg.values()))
        base = getattr(entry, "base_model_name_or_path", None)
    if not base:
        try:
            with open(ckpt / "adapter_config.json", encoding="utf-8") as f:
                base = json.load(f).get("base_model_name_or_path")
        except (OSError, ValueError):
            base = None
    if not base:
        return None
    d = local_dir(base)
    return str(d) if d else str(base)


def model_dir(model: Any) -> Optional[Path]:
    """The local folder model was loaded from (config._name_or_path), for
    its tokenizer; None for a Hub id or no config."""
    base = getattr(model, "base_model", None)
    for m in (model, getattr(base, "model", None)):
        cfg = getattr(m, "config", None)
        d = local_dir(getattr(cfg, "_name_or_path", None))
        if d is not None:
            return d
    return None
