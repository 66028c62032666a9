#!/usr/bin/env python3
"""LoRA goldens from peft: a tiny random llama, random PEFT adapters, and
PeftModel log-probabilities on CPU in float32.

Usage:
    peft_golden.py [--out models/testdata/lora] [--check]

Writes under OUT:
    tiny-llama/               base checkpoint (config.json, model.safetensors)
    <adapter>/                adapter_config.json + adapter_model.safetensors
    requests.jsonl            {"context_ids", "continuation_ids"}
    golden_base.jsonl         base model log-probs
    golden_<adapter>.jsonl    PeftModel (unmerged, in-graph) log-probs

The base and the adapters are random but seeded. With --check, the models
and adapters already under OUT are loaded, the log-probs recomputed, and any
difference from the committed goldens is an error (exit 1); nothing is
written.
"""

import argparse
import json
import math
import os
import sys

import torch
import transformers
import peft

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from hf_logprobs import golden_lines  # noqa: E402  (shared scoring: lm-eval semantics)
from reftol import REF_TOL, same_within  # noqa: E402  (golden drift across CPUs)

ADAPTERS = {
    # name: LoraConfig kwargs
    "all-linear-r8": dict(r=8, lora_alpha=16, target_modules="all-linear"),
    "rslora-r8": dict(r=8, lora_alpha=16, target_modules="all-linear", use_rslora=True),
    "qv-lm-head": dict(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], modules_to_save=["lm_head"]),
}
VOCAB = 256


def base_config():
    """The tiny llama: untied, GQA 4/2 heads, 2 layers."""
    return transformers.LlamaConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
        rms_norm_eps=1e-5, rope_theta=10000.0, tie_word_embeddings=False,
        bos_token_id=1, eos_token_id=2, torch_dtype="float32")


@torch.no_grad()
def randomize(model, gen, skip=()):
    """Replaces every parameter with N(0, 1/fan_in) (norm weights 1 ± 0.2,
    lm_head ×2) so log-probs are far from uniform and a wrong op shows."""
    for name, p in model.named_parameters():
        if any(s in name for s in skip):
            continue
        if p.ndim == 1:
            p.copy_(1 + 0.2 * torch.randn(p.shape, generator=gen))
        elif "embed" in name:
            p.copy_(torch.randn(p.shape, generator=gen))
        else:
            std = 1 / math.sqrt(p.shape[1]) * (2 if "lm_head" in name else 1)
            p.copy_(std * torch.randn(p.shape, generator=gen))


def make_requests(gen):
    """Eight requests: contexts of 1–40 tokens, continuations of 1–6."""
    reqs = []
    for ctx_len, cont_len in [(1, 1), (3, 2), (7, 4), (12, 1), (20, 6), (33, 3), (40, 5), (5, 5)]:
        ids = torch.randint(3, VOCAB, (ctx_len + cont_len,), generator=gen).tolist()
        reqs.append({"context_ids": ids[:ctx_len], "continuation_ids": ids[ctx_len:]})
    return reqs


def create(out):
    """Writes the base model, the adapters and the requests."""
    gen = torch.Generator().manual_seed(1234)
    base = transformers.LlamaForCausalLM(base_config()).eval()
    randomize(base, gen)
    base.save_pretrained(os.path.join(out, "tiny-llama"), safe_serialization=True)
    for name, kw in ADAPTERS.items():
        model = transformers.AutoModelForCausalLM.from_pretrained(os.path.join(out, "tiny-llama"), dtype=torch.float32)
        pm = peft.get_peft_model(model, peft.LoraConfig(task_type="CAUSAL_LM", lora_dropout=0.0, **kw))
        with torch.no_grad():
            for pname, p in pm.named_parameters():
                if "lora_A" in pname or "lora_B" in pname:
                    p.copy_(0.15 * torch.randn(p.shape, generator=gen))
                elif "modules_to_save" in pname:
                    p.add_(0.5 * torch.randn(p.shape, generator=gen))
        pm.save_pretrained(os.path.join(out, name))
        os.remove(os.path.join(out, name, "README.md"))  # peft's model card: noise
    with open(os.path.join(out, "requests.jsonl"), "w") as f:
        for r in make_requests(gen):
            f.write(json.dumps(r) + "\n")


def load(out, adapter):
    """Loads the base strictly, wrapped in PeftModel when adapter is set."""
    model, info = transformers.AutoModelForCausalLM.from_pretrained(
        os.path.join(out, "tiny-llama"), dtype=torch.float32, attn_implementation="eager", output_loading_info=True)
    if any(info.values()):
        raise SystemExit(f"tiny-llama: loading problems: {info}")
    if adapter:
        model = peft.PeftModel.from_pretrained(model, os.path.join(out, adapter))
    return model.eval()


def goldens(out):
    """name → list of result lines, for the base and every adapter."""
    with open(os.path.join(out, "requests.jsonl")) as f:
        reqs = [json.loads(line) for line in f if line.strip()]
    res = {}
    for adapter in [None, *ADAPTERS]:
        model = load(out, adapter)
        res[f"golden_{adapter or 'base'}.jsonl"] = golden_lines(model, reqs)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="models/testdata/lora")
    ap.add_argument("--check", action="store_true", help="recompute and compare with the committed goldens")
    args = ap.parse_args()
    torch.set_num_threads(1)
    if not args.check:
        os.makedirs(args.out, exist_ok=True)
        create(args.out)
    bad = 0
    for fname, lines in goldens(args.out).items():
        path = os.path.join(args.out, fname)
        if not args.check:
            with open(path, "w") as f:
                f.writelines(json.dumps(x) + "\n" for x in lines)
            continue
        with open(path) as f:
            old = [json.loads(x) for x in f if x.strip()]
        diff = max((abs(a["logprob_sum"] - b["logprob_sum"]) for a, b in zip(old, lines)), default=math.inf)
        if not same_within(old, lines):
            print(f"{path}: differs from peft beyond {REF_TOL:g} (max |Δ logprob_sum| = {diff:.3g})")
            bad += 1
        else:
            print(f"{path}: matches peft (max |Δ logprob_sum| = {diff:.3g}, tolerance {REF_TOL:g})")
    if args.check:
        print("peft goldens:", "FAIL" if bad else "match")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
