#!/usr/bin/env python3
"""Long-row goldens: tiny random Qwen2 and Mistral (sliding window 96)
checkpoints scored by transformers (CPU, float32, eager attention) on
requests of 1,500–3,000 tokens, so that goeval's query-chunked attention
(models/nn: many query chunks, each with its own slice of the mask) is
checked against one unchunked attention over the whole row.

Usage:
    long_golden.py [--out models/testdata/long] [--check]

Writes OUT/requests.jsonl and OUT/<name>/{config.json, model.safetensors,
golden.jsonl}. With --check, the committed checkpoints are rescored and any
difference from golden.jsonl beyond REF_TOL is an error (exit 1).
"""

import argparse
import json
import math
import os
import sys

import torch
import transformers

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from hf_logprobs import golden_lines, load_model  # noqa: E402
from reftol import REF_TOL, same_within  # noqa: E402

VOCAB = 128
COMMON = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, max_position_embeddings=4096,
              bos_token_id=1, eos_token_id=2, pad_token_id=0, num_hidden_layers=2,
              num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-6, tie_word_embeddings=False)
ARCHS = {
    "qwen2": lambda: transformers.Qwen2Config(**COMMON, rope_theta=10000.0),
    "mistral": lambda: transformers.MistralConfig(**COMMON, rope_theta=10000.0, sliding_window=96),
}
LENGTHS = [(1500, 3), (2997, 3)]  # (context, continuation) tokens


@torch.no_grad()
def randomize(model, gen):
    """N(0, 1/fan_in) matrices, N(0, 1) embeddings, norms N(1, 0.2), biases N(0, 0.2)."""
    for name, p in model.named_parameters():
        if p.ndim == 1:
            p.copy_((0.0 if name.endswith("bias") else 1.0) + 0.2 * torch.randn(p.shape, generator=gen))
        elif "embed" in name:
            p.copy_(torch.randn(p.shape, generator=gen))
        else:
            p.copy_(torch.randn(p.shape, generator=gen) / math.sqrt(p.shape[-1]))


def golden(model_dir, reqs):
    return golden_lines(load_model(model_dir), reqs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="models/testdata/long")
    ap.add_argument("--check", action="store_true", help="rescore and compare with the committed goldens")
    args = ap.parse_args()
    torch.set_num_threads(1)
    req_path = os.path.join(args.out, "requests.jsonl")
    if not args.check:
        os.makedirs(args.out, exist_ok=True)
        gen = torch.Generator().manual_seed(41)
        with open(req_path, "w") as f:
            for c, k in LENGTHS:
                ids = torch.randint(3, VOCAB, (c + k,), generator=gen).tolist()
                f.write(json.dumps({"context_ids": ids[:c], "continuation_ids": ids[c:]}) + "\n")
    with open(req_path) as f:
        reqs = [json.loads(x) for x in f if x.strip()]
    bad = 0
    for i, name in enumerate(sorted(ARCHS)):
        d = os.path.join(args.out, name)
        if not args.check:
            torch.manual_seed(300 + i)
            model = transformers.AutoModelForCausalLM.from_config(ARCHS[name](), dtype=torch.float32)
            randomize(model, torch.Generator().manual_seed(400 + i))
            model.save_pretrained(d, safe_serialization=True)
            if os.path.exists(os.path.join(d, "generation_config.json")):
                os.remove(os.path.join(d, "generation_config.json"))
        lines = golden(d, reqs)
        path = os.path.join(d, "golden.jsonl")
        if not args.check:
            with open(path, "w") as f:
                f.writelines(json.dumps(x) + "\n" for x in lines)
            print(f"{name}: wrote {path}; logprob_sums {[round(x['logprob_sum'], 4) for x in lines]}")
            continue
        with open(path) as f:
            old = [json.loads(x) for x in f if x.strip()]
        if not same_within(old, lines):
            print(f"{path}: differs from transformers beyond {REF_TOL:g}")
            bad += 1
    if args.check:
        print("long goldens:", "FAIL" if bad else "match")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
