#!/usr/bin/env python3
"""Goldens for the Phi, Phi-3, Phi-3.5 (LongRoPE), Gemma 2, Gemma 3 and mixture-of-experts
(Mixtral, Qwen2-MoE, Qwen3-MoE, OLMoE) graphs: tiny random checkpoints
and their transformers log-probs (CPU, eager attention; in float32, and
in bfloat16 and float16 for parity/models/dtype_test.go).

Usage:
    arch_golden.py [--out models/testdata/archs] [--check] [NAME ...]
    arch_golden.py --synth bin/goeval

Writes OUT/<name>/{config.json, model.safetensors, golden.jsonl,
requests_greedy.jsonl, golden_bfloat16.jsonl, golden_float16.jsonl} and a
shared OUT/requests.jsonl. requests_greedy.jsonl holds each distinct
context with the float32 model's 4 greedy tokens (hf_logprobs.greedy_requests);
the half-precision goldens answer requests.jsonl then requests_greedy.jsonl
and also hold each token's largest |logit| and two best log-probs
(hf_logprobs.score_detail). A mixture-of-experts checkpoint also gets
router.json: the experts each sparse layer's router chose (top-k, in
transformers' order) for every token of one 48-token stream, read with
forward hooks on the routers. A LongRoPE checkpoint also gets
greedy_cross.jsonl: transformers' greedy generations from prompts just
shorter than original_max_position_embeddings, which cross the switch.
Weights are random but seeded and scaled so that
log-probs are far from uniform. With --check, the committed checkpoints are
reloaded (strictly: no missing or unexpected keys), the log-probs
recomputed, and any difference from golden.jsonl beyond REF_TOL, or from a
half-precision golden beyond reftol.dtype_differences, is an error (exit 1).
A Gemma3ForConditionalGeneration checkpoint (gemma3mm) also gets
text_defaults.json (transformers' Gemma3TextConfig defaults), and is
checked to load in transformers 4.52's tensor layout to the same log-probs.
With --synth, `goeval synth model` writes each architecture (Gemma with a
4-token sliding window, the MoEs and Phi-3.5's LongRoPE with SYNTH_FLAGS), transformers must
load it strictly, and `goeval score` must match transformers' log-probs
to 1e-4.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import torch
import transformers

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from hf_logprobs import golden_lines, greedy_requests, load_model, score_detail  # noqa: E402
from reftol import EPS, REF_TOL, dtype_differences, same_within  # noqa: E402  (golden drift across CPUs)

VOCAB = 128
COMMON = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, max_position_embeddings=128,
              bos_token_id=1, eos_token_id=2, pad_token_id=0)
MOE = {**COMMON, "intermediate_size": 24}  # smaller experts: 8 of them per layer

ARCHS = {
    # Phi-2: parallel attention + MLP, LayerNorm with bias, partial rotary, gelu_new.
    "phi": lambda: transformers.PhiConfig(
        **COMMON, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
        hidden_act="gelu_new", layer_norm_eps=1e-5, partial_rotary_factor=0.5, rope_theta=10000.0,
        tie_word_embeddings=False),
    # Phi-3: fused qkv_proj and gate_up_proj, RMSNorm, SwiGLU, GQA.
    "phi3": lambda: transformers.Phi3Config(
        **COMMON, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
        rms_norm_eps=1e-5, rope_theta=10000.0, sliding_window=None, tie_word_embeddings=False),
    # Phi-3.5 (128k): Phi-3 with LongRoPE; original_max_position_embeddings 16 puts half the requests
    # past it (every token of those takes long_factor) and max_position_embeddings / 16 = 8 sets
    # the attention factor √(1 + ln 8 / ln 16) on cos and sin.
    "phi35": lambda: transformers.Phi3Config(
        **COMMON, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
        rms_norm_eps=1e-5, sliding_window=None, tie_word_embeddings=False, original_max_position_embeddings=16,
        rope_scaling={"rope_type": "longrope", "rope_theta": 10000.0, "short_factor": [1.0, 1.2, 1.9, 3.1],
                      "long_factor": [1.3, 2.7, 6.5, 14.0]}),
    # Gemma 2: (1+w) RMSNorm, pre/post norms, soft-capping, alternating sliding window.
    "gemma2": lambda: transformers.Gemma2Config(
        **COMMON, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
        query_pre_attn_scalar=24, sliding_window=5, attn_logit_softcapping=4.0,
        final_logit_softcapping=8.0, rms_norm_eps=1e-6, rope_theta=10000.0),
    # Gemma 3 (text): q/k norms, local/global rope bases, linear rope scaling on global layers.
    "gemma3": lambda: transformers.Gemma3TextConfig(
        **COMMON, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
        query_pre_attn_scalar=24, sliding_window=5, rms_norm_eps=1e-6,
        layer_types=["sliding_attention", "sliding_attention", "full_attention", "sliding_attention"],
        rope_parameters={"full_attention": {"rope_type": "linear", "factor": 2.0, "rope_theta": 100000.0},
                         "sliding_attention": {"rope_type": "default", "rope_theta": 1000.0}}),
    # Gemma 3 as google/gemma-3-4b-it and larger are: Gemma3ForConditionalGeneration, the text
    # model under text_config (scored text-only, as lm-eval's AutoModelForCausalLM runs it) beside a
    # SigLIP vision tower and projector that text never reaches; saved in the Hub's layout
    # (language_model.model.*), and checked in transformers 4.52's (model.language_model.*) too.
    "gemma3mm": lambda: transformers.Gemma3Config(
        text_config=transformers.Gemma3TextConfig(
            **COMMON, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
            query_pre_attn_scalar=24, sliding_window=5, rms_norm_eps=1e-6,
            layer_types=["sliding_attention", "full_attention", "sliding_attention", "sliding_attention"],
            rope_parameters={"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 100000.0},
                             "sliding_attention": {"rope_type": "default", "rope_theta": 1000.0}}),
        vision_config=transformers.SiglipVisionConfig(
            hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
            image_size=28, patch_size=14),
        mm_tokens_per_image=4),
    # Mixtral: top-2 of 8 experts (block_sparse_moe, w1/w3/w2), always renormalised; sliding window.
    "mixtral": lambda: transformers.MixtralConfig(
        **MOE, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2, num_local_experts=8,
        num_experts_per_tok=2, sliding_window=7, rms_norm_eps=1e-5, rope_theta=1000000.0),
    # Qwen2-MoE: q/k/v biases, top-2 of 8 not renormalised, a gated shared expert, one dense layer.
    "qwen2moe": lambda: transformers.Qwen2MoeConfig(
        **MOE, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, num_experts=8,
        num_experts_per_tok=2, moe_intermediate_size=16, shared_expert_intermediate_size=24,
        mlp_only_layers=[2], norm_topk_prob=False, rms_norm_eps=1e-6, rope_theta=10000.0),
    # Qwen3-MoE: per-head q/k norms, top-3 of 8 renormalised, sparse every 2nd layer.
    "qwen3moe": lambda: transformers.Qwen3MoeConfig(
        **MOE, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=16, num_experts=8,
        num_experts_per_tok=3, moe_intermediate_size=16, decoder_sparse_step=2, norm_topk_prob=True,
        rms_norm_eps=1e-6, rope_theta=10000.0),
    # OLMoE: full-width q/k norms, clip_qkv, top-2 of 8 renormalised.
    "olmoe": lambda: transformers.OlmoeConfig(
        **MOE, num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2, num_experts=8,
        num_experts_per_tok=2, norm_topk_prob=True, clip_qkv=2.0, rms_norm_eps=1e-5, rope_theta=10000.0),
}
MOES = {"mixtral", "qwen2moe", "qwen3moe", "olmoe"}
# Each architecture's seeds come from its place here (the first four as when they were the only ones).
SEED_ORDER = ["gemma2", "gemma3", "phi", "phi3", "mixtral", "olmoe", "qwen2moe", "qwen3moe", "phi35", "gemma3mm"]
# `goeval synth model` flags of the MoE checks (--synth): the rest of the shape as for the others.
SYNTH_FLAGS = {
    "mixtral": ["--sliding-window", "4"],
    "qwen2moe": ["--experts", "8", "--experts-per-token", "2", "--sparse-step", "1"],
    "qwen3moe": ["--experts", "6", "--experts-per-token", "3", "--norm-topk", "--sparse-step", "2"],
    "olmoe": ["--experts", "8", "--experts-per-token", "2", "--norm-topk"],
    "phi35": ["--rope-scaling", "longrope", "--rope-original", "16", "--max-positions", "128"],
}
SYNTH_ARCH = {"phi35": "phi3"}  # --arch of a name goeval synth model does not know
ROUTER_TOKENS = 48
NO_SYNTH = {"gemma3mm"}  # goeval synth model writes text-only checkpoints


@torch.no_grad()
def randomize(model, gen):
    """N(0, 1/fan_in) matrices, N(0,1) embeddings, norm weights and biases
    N(0, 0.2) around 1 (LayerNorm/RMSNorm weights) or 0 (biases, Gemma's
    zero-centred norms)."""
    gemma = "gemma" in model.config.model_type
    for name, p in model.named_parameters():
        if p.ndim == 1:
            centre = 0.0 if (gemma or name.endswith("bias")) else 1.0
            p.copy_(centre + 0.2 * torch.randn(p.shape, generator=gen))
        elif "embed" in name:
            p.copy_(torch.randn(p.shape, generator=gen))
        else:
            p.copy_(torch.randn(p.shape, generator=gen) / math.sqrt(p.shape[-1]))  # fan-in (experts: [E, out, in])


def make_requests(gen):
    """Contexts of 1–60 tokens (past the sliding window), continuations 1–6."""
    reqs = []
    for c, k in [(1, 1), (2, 3), (6, 4), (11, 2), (17, 6), (30, 3), (45, 5), (60, 4)]:
        ids = torch.randint(3, VOCAB, (c + k,), generator=gen).tolist()
        reqs.append({"context_ids": ids[:c], "continuation_ids": ids[c:]})
    return reqs


def golden(model_dir, reqs):
    """transformers log-probs for reqs (one forward per request)."""
    return golden_lines(load_model(model_dir), reqs)


@torch.no_grad()
def router_golden(model_dir, gen):
    """The experts transformers' routers choose for each token of one
    stream: forward hooks on every *TopKRouter (model.layers.<i>.mlp.gate)
    record its top-k indices, [tokens, k] in transformers' order."""
    model = load_model(model_dir)
    seen = {}
    for name, mod in model.named_modules():
        if type(mod).__name__.endswith("TopKRouter"):
            layer = int(name.split(".")[2])
            mod.register_forward_hook(lambda m, i, out, layer=layer: seen.__setitem__(layer, out[2].tolist()))
    tokens = torch.randint(3, VOCAB, (ROUTER_TOKENS,), generator=gen).tolist()
    model(input_ids=torch.tensor([tokens], dtype=torch.long))
    return {"tokens": tokens, "layers": [{"layer": i, "experts": seen[i]} for i in sorted(seen)]}


def write_or_check(path, text, check, what):
    """Writes text to path, or with check compares the file with it;
    returns 1 when it differs (saying so: differs from what)."""
    if not check:
        with open(path, "w") as f:
            f.write(text)
        return 0
    with open(path) as f:
        if f.read() != text:
            print(f"{path}: differs from {what}")
            return 1
    return 0


def router_file(d, check):
    """Writes, or with check compares, d's router.json; returns 1 when it differs."""
    text = json.dumps(router_golden(d, torch.Generator().manual_seed(300))) + "\n"
    return write_or_check(os.path.join(d, "router.json"), text, check, "transformers' router choices")


LONGROPE = {"phi35"}
CROSS_TOKENS = 10  # greedy tokens generated past each prompt


def crossing_golden(d, gen):
    """transformers' greedy generate (its KV cache; Phi-3 recomputes the
    whole sequence with the long factors when it first grows past
    original_max_position_embeddings) for prompts ending just before the
    switch, so their generations cross it."""
    model = load_model(d)
    orig = model.config.original_max_position_embeddings
    out = []
    for n in range(orig - 6, orig + 1):
        ctx = torch.randint(3, VOCAB, (n,), generator=gen).tolist()
        ids = model.generate(torch.tensor([ctx]), attention_mask=torch.ones(1, n, dtype=torch.long),
                             max_new_tokens=CROSS_TOKENS, do_sample=False, eos_token_id=2, pad_token_id=0)
        out.append({"context_ids": ctx, "continuation_ids": ids[0, n:].tolist()})
    return out


def crossing_file(d, check):
    """Writes, or with check compares, d's greedy_cross.jsonl; returns 1
    when it differs."""
    text = "".join(json.dumps(r) + "\n" for r in crossing_golden(d, torch.Generator().manual_seed(400)))
    return write_or_check(os.path.join(d, "greedy_cross.jsonl"), text, check,
                          "transformers' greedy generations across the LongRoPE switch")


NEW_LAYOUT = {"gemma3mm"}
# A Gemma3ForConditionalGeneration's tensor prefixes as the Hub's checkpoints have them (what
# transformers 5 writes too) and as transformers 4.52–4.57 saved them, which transformers 5
# renames at load.
NEW_PREFIXES = [("language_model.model.", "model.language_model."), ("vision_tower.", "model.vision_tower."),
                ("multi_modal_projector.", "model.multi_modal_projector."), ("language_model.lm_head.", "lm_head.")]


def text_defaults_file(d, check):
    """Writes, or with check compares, d's text_defaults.json: transformers'
    Gemma3TextConfig defaults, which goeval fills into a text_config that
    omits them (models/wrapped.go; its test compares its table with this
    file); returns 1 when it differs."""
    cfg = transformers.Gemma3TextConfig().to_dict()
    cfg.pop("transformers_version", None)
    text = json.dumps(cfg, sort_keys=True, indent=1) + "\n"
    return write_or_check(os.path.join(d, "text_defaults.json"), text, check, "transformers' Gemma3TextConfig defaults")


def new_layout_check(d, reqs, want):
    """Copies d with its tensors renamed to transformers 4.52's layout,
    which transformers must load strictly to the same log-probs (goeval's
    test reads the same renaming: models/wrapped_test.go); returns 1 when
    not, or when no tensor was renamed."""
    from safetensors.torch import load_file, save_file
    import shutil
    tensors = load_file(os.path.join(d, "model.safetensors"))
    renamed, moved = {}, 0
    for k, v in tensors.items():
        for old, new in NEW_PREFIXES:
            if k.startswith(old):
                k, moved = new + k[len(old):], moved + 1
                break
        renamed[k] = v
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(d, "config.json"), tmp)
        save_file(renamed, os.path.join(tmp, "model.safetensors"), metadata={"format": "pt"})
        got = golden(tmp, reqs)
    diff = max(abs(a["logprob_sum"] - b["logprob_sum"]) for a, b in zip(got, want))
    print(f"{os.path.basename(d)}: {moved} of {len(tensors)} tensors renamed to transformers 4.52's layout "
          f"load to the same log-probs (max |Δ| = {diff:.3g})")
    return 0 if diff == 0 and moved == len(tensors) else 1


def golden_dtype(model_dir, reqs, dtype):
    """transformers log-probs for reqs with the model loaded in dtype, with
    score_detail's fields."""
    model = load_model(model_dir, dtype)
    out = []
    for r in reqs:
        d = score_detail(model, r["context_ids"], r["continuation_ids"], 1 << 20)
        out.append({"logprob_sum": sum(d["token_logprobs"]), "is_greedy": all(d["token_is_greedy"])} | d)
    return out


def dtype_goldens(d, reqs, check):
    """Writes, or with check compares, d's requests_greedy.jsonl (byte for
    byte) and golden_<dtype>.jsonl for each half-precision dtype (on reqs
    then the greedy requests); returns the number of files that differ."""
    bad = 0
    greedy = "".join(json.dumps(r) + "\n" for r in greedy_requests(load_model(d), reqs, 4, 1 << 20))
    path = os.path.join(d, "requests_greedy.jsonl")
    if check:
        with open(path) as f:
            if f.read() != greedy:
                print(f"{path}: differs from the regenerated greedy requests")
                bad += 1
    else:
        with open(path, "w") as f:
            f.write(greedy)
    reqs = reqs + [json.loads(x) for x in greedy.splitlines()]
    for dtype in sorted(EPS):
        lines, path = golden_dtype(d, reqs, dtype), os.path.join(d, f"golden_{dtype}.jsonl")
        if not check:
            with open(path, "w") as f:
                f.writelines(json.dumps(x) + "\n" for x in lines)
            continue
        with open(path) as f:
            old = [json.loads(x) for x in f if x.strip()]
        problems = [p for i, (a, b) in enumerate(zip(old, lines), 1) for p in dtype_differences(a, b, dtype, f"{path}:{i}")]
        if len(old) != len(lines):
            problems.append(f"{path}: {len(old)} lines, regenerated {len(lines)}")
        for p in problems[:20]:
            print(p)
        bad += bool(problems)
    return bad


def check_synth(goeval, reqs):
    """goeval synth model → transformers (strict) vs goeval score; returns failures."""
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(set(ARCHS) - NO_SYNTH):
            d = os.path.join(tmp, name)
            subprocess.run([goeval, "synth", "model", "--arch", SYNTH_ARCH.get(name, name), "--hidden", "32", "--layers", "3",
                            "--heads", "4", "--kv-heads", "2", "--intermediate", "64", "--vocab", str(VOCAB),
                            "--seed", "5", "--out", d] + (["--sliding-window", "4"] if "gemma" in name else [])
                           + SYNTH_FLAGS.get(name, []),
                           check=True, capture_output=True)
            want = golden(d, reqs)  # load_model fails on any missing/unexpected key
            req_text = "".join(json.dumps(r) + "\n" for r in reqs)
            out = subprocess.run([goeval, "score", "--model", d], input=req_text, text=True,
                                 check=True, capture_output=True).stdout
            got = [json.loads(x) for x in out.splitlines() if x.strip()]
            diff = max(abs(a["logprob"] - b["logprob_sum"]) for a, b in zip(got, want))
            ok = len(got) == len(want) and diff <= 1e-4
            print(f"synth {name}: transformers loads it; goeval score vs transformers max |Δ| = {diff:.3g}"
                  + ("" if ok else "  FAIL"))
            bad += not ok
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="models/testdata/archs")
    ap.add_argument("--check", action="store_true", help="recompute and compare with the committed goldens")
    ap.add_argument("--synth", metavar="GOEVAL", help="check goeval-synthesized checkpoints with this goeval binary")
    ap.add_argument("names", nargs="*", help=f"subset of {sorted(ARCHS)}")
    args = ap.parse_args()
    torch.set_num_threads(1)
    req_path = os.path.join(args.out, "requests.jsonl")
    if args.synth:
        with open(req_path) as f:
            return 1 if check_synth(args.synth, [json.loads(x) for x in f if x.strip()]) else 0
    if not args.check:
        os.makedirs(args.out, exist_ok=True)
        with open(req_path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in make_requests(torch.Generator().manual_seed(7)))
    with open(req_path) as f:
        reqs = [json.loads(x) for x in f if x.strip()]
    bad = 0
    for name in args.names or sorted(ARCHS):
        i = SEED_ORDER.index(name)
        d = os.path.join(args.out, name)
        if not args.check:
            torch.manual_seed(100 + i)
            model = transformers.AutoModelForCausalLM.from_config(ARCHS[name](), dtype=torch.float32)
            randomize(model, torch.Generator().manual_seed(200 + i))
            model.save_pretrained(d, safe_serialization=True)
            for extra in ("generation_config.json",):
                if os.path.exists(os.path.join(d, extra)):
                    os.remove(os.path.join(d, extra))
        bad += dtype_goldens(d, reqs, args.check)
        if name in MOES:
            bad += router_file(d, args.check)
        if name in LONGROPE:
            bad += crossing_file(d, args.check)
        lines = golden(d, reqs)
        if name in NEW_LAYOUT:
            bad += new_layout_check(d, reqs, lines) + text_defaults_file(d, args.check)
        path = os.path.join(d, "golden.jsonl")
        if not args.check:
            with open(path, "w") as f:
                f.writelines(json.dumps(x) + "\n" for x in lines)
            print(f"{name}: wrote {path}; first logprob_sum {lines[0]['logprob_sum']:.4f}")
            continue
        with open(path) as f:
            old = [json.loads(x) for x in f if x.strip()]
        diff = max((abs(a["logprob_sum"] - b["logprob_sum"]) for a, b in zip(old, lines)), default=0.0)
        if not same_within(old, lines):
            print(f"{path}: differs from transformers beyond {REF_TOL:g} (max |Δ logprob_sum| = {diff:.3g})")
            bad += 1
    if args.check:
        print("arch goldens:", "FAIL" if bad else "match")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
