#!/usr/bin/env python3
"""Checks goeval's checkpoint writer and `goeval synth model` against the
Python references.

Usage:
    check_synth.py golden --out models/safetensors/testdata [--check]
        Writes python_writer.safetensors with the Python safetensors library
        (the Go test TestPythonWriterGolden writes the same tensors with
        safetensors.Write and requires identical bytes). --check compares
        with the committed file instead of writing it, failing on any
        difference.
    check_synth.py hf --goeval BIN
        Runs `BIN synth model` for llama, mistral, qwen2, qwen3 (f32, bf16,
        f16, sharded, tied/untied, llama3 rope scaling, qwen3 head_dim) and
        loads each with transformers' AutoModelForCausalLM.from_pretrained:
        fails on any missing, unexpected or mismatched key, on a forward
        pass with non-finite logits, or on degenerate log-probabilities.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import torch
from safetensors.torch import save_file

GOLDEN = "python_writer.safetensors"


def golden_tensors():
    """The fixed tensors both writers serialise."""
    return {
        "b.bf16": torch.tensor([1.0, -3.0, 0.333984375, 2.5], dtype=torch.bfloat16),
        "a.f32": (torch.arange(6, dtype=torch.float32) * 0.5 - 1).reshape(2, 3),
        "c.f16": torch.tensor([1.0, -2.0, 0.5], dtype=torch.float16),
        "d.i64": torch.tensor([7, -1], dtype=torch.int64),
    }


def golden(out, check):
    path = os.path.join(out, GOLDEN)
    with tempfile.TemporaryDirectory() as tmp:
        fresh = os.path.join(tmp, GOLDEN)
        save_file(golden_tensors(), fresh, metadata={"format": "pt"})  # one key: Rust orders a map at random
        data = open(fresh, "rb").read()
    if check:
        if open(path, "rb").read() != data:
            sys.exit(f"{path}: differs from the Python safetensors writer's output")
        print(f"{path}: matches")
    else:
        open(path, "wb").write(data)
        print(f"wrote {path}")


VARIANTS = [
    ["--arch", "llama", "--seed", "1"],
    ["--arch", "llama", "--seed", "2", "--tie", "--kv-heads", "1", "--rope-scaling", "llama3", "--rope-theta", "500000"],
    ["--arch", "mistral", "--seed", "3", "--dtype", "bf16", "--sliding-window", "16"],
    ["--arch", "qwen2", "--seed", "4", "--tie", "--shards", "3"],
    ["--arch", "qwen3", "--seed", "5", "--hidden", "48", "--head-dim", "16", "--dtype", "f16", "--tie"],
]


def hf(goeval):
    import transformers
    transformers.logging.set_verbosity_error()
    failures = 0
    for args in VARIANTS:
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([goeval, "synth", "model", *args, "--out", out], check=True, capture_output=True)
            model, info = transformers.AutoModelForCausalLM.from_pretrained(
                out, output_loading_info=True, torch_dtype=torch.float32)
            bad = {k: v for k, v in info.items() if v}
            ids = torch.arange(1, 17).unsqueeze(0) % model.config.vocab_size
            with torch.no_grad():
                logits = model(ids).logits.double()
            lp = torch.log_softmax(logits, -1)
            spread = lp.std(-1).mean().item()
            ok = not bad and torch.isfinite(logits).all() and spread > 0.05
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {' '.join(args)}: {type(model).__name__}, "
                  f"loading problems {bad or 'none'}, mean log-prob sd {spread:.3f}")
    if failures:
        sys.exit(f"{failures} synth variants failed")


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("golden")
    g.add_argument("--out", required=True)
    g.add_argument("--check", action="store_true")
    h = sub.add_parser("hf")
    h.add_argument("--goeval", required=True)
    a = p.parse_args()
    if a.cmd == "golden":
        golden(a.out, a.check)
    else:
        hf(a.goeval)


if __name__ == "__main__":
    main()
