#!/usr/bin/env python3
"""Goldens for LLM.int8 (models/int8_*.go, --load-in-8bit): tiny float
checkpoints loaded by transformers with BitsAndBytesConfig(load_in_8bit=True)
on the CPU, saved with save_pretrained, and scored as bitsandbytes computes
them there (MatMul8bitLt: activations rounded to float16, quantized per row
to int8 with outlier columns split off above llm_int8_threshold, int8
products, dequantized; float32 elsewhere).

Usage:
    int8_golden.py [--out models/testdata/bnb_int8] [--check]

Models (the float bases):

- llama-t0: models/testdata/bnb_load/llama (float32, untied head, 2
  layers) with llm_int8_threshold=0.0: no outlier split.
- qwen2-t6: models/testdata/bnb_load/qwen2-tied with a few RMSNorm
  channels scaled up (OUT/qwen2-t6/float/, float32), the default threshold
  6.0: some activation columns reach it (outliers.json counts them; the
  script fails when none or all do).

Per model OUT/<name>/ holds the 8-bit checkpoint save_pretrained writes
(config.json, model.safetensors: int8 weight, float32 SCB, weight_format),
golden.jsonl (hf_logprobs.golden_lines of the model loaded from that
checkpoint, as lm-eval's pretrained=<checkpoint> loads it, dtype float32),
generate.jsonl (greedy_continuation: one full forward per token),
generate_kv.jsonl (model.generate, greedy, with its KV cache: a prefill
of the prompt, then one row per step, as lm-eval's generate_until runs;
with a threshold the outlier columns of each step are that row's) and
outliers.json (per Linear8bitLt: forward calls over the requests, those
with an outlier column, the most outlier columns in one call) and
modules.safetensors: each Linear8bitLt's input (<module>.x, float32 [rows,
in]) and output (<module>.y) in the forward of request MODULE_REQ, so that
goeval's LLM.int8 product is checked on bitsandbytes' own inputs, module
by module.

With --check the float bases are quantized again (the saved tensors must be
bit-identical to the committed checkpoint) and the goldens recomputed from
the committed checkpoint (a log-prob beyond REF_TOL is an error, exit 1).
"""

import argparse
import hashlib
import json
import logging
import os
import shutil
import sys
import tempfile

import bitsandbytes as bnb
import torch
import transformers
from safetensors import safe_open
from safetensors.torch import save_file

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "archs"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from arch_golden import make_requests  # noqa: E402
from hf_logprobs import golden_lines, greedy_continuation, load_model  # noqa: E402
from reftol import REF_TOL, put  # noqa: E402

BASES = "models/testdata/bnb_load"
# name: (float base, llm_int8_threshold, RMSNorm channels scaled: {norm suffix: (channels, factor)})
MODELS = {
    "llama-t0": ("llama", 0.0, {}),
    "qwen2-t6": ("qwen2-tied", 6.0, {"input_layernorm": ([5, 40], 4.0), "post_attention_layernorm": ([3, 17, 50], 5.0)}),
}


def float_dir(name, out):
    """The float checkpoint model name quantizes: a committed base, or its scaled copy."""
    base, _, scale = MODELS[name]
    return os.path.join(out, name, "float") if scale else os.path.join(BASES, base)


@torch.no_grad()
def write_scaled(name, out):
    """Writes model name's float base with its RMSNorm channels scaled."""
    base, _, scale = MODELS[name]
    model = transformers.AutoModelForCausalLM.from_pretrained(os.path.join(BASES, base), dtype=torch.float32)
    for pname, p in model.named_parameters():
        for suffix, (chans, factor) in scale.items():
            if pname.endswith(suffix + ".weight"):
                p[chans] *= factor
    d = float_dir(name, out)
    model.save_pretrained(d)
    gen = os.path.join(d, "generation_config.json")
    if os.path.exists(gen):
        os.remove(gen)


def load_in_8bit(d, threshold):
    """Float checkpoint d loaded with load_in_8bit on the CPU, float32 elsewhere."""
    q = transformers.BitsAndBytesConfig(load_in_8bit=True, llm_int8_threshold=threshold)
    return transformers.AutoModelForCausalLM.from_pretrained(d, quantization_config=q, dtype=torch.float32,
                                                             device_map="cpu", attn_implementation="eager").eval()


def load_checkpoint(d):
    """The 8-bit checkpoint in d loaded strictly, as lm-eval's pretrained=d (dtype float32) loads it."""
    model = load_model(d, device_map="cpu")
    if not any(isinstance(m, bnb.nn.Linear8bitLt) for m in model.modules()):
        raise SystemExit(f"{d}: no Linear8bitLt module")
    return model.eval()


def digests(path):
    out = {}
    with safe_open(path, "pt") as f:
        for k in sorted(f.keys()):
            t = f.get_tensor(k).contiguous()
            out[k] = hashlib.sha256(t.view(torch.uint8).numpy().tobytes()).hexdigest()
    return out


def count_outliers(model, reqs):
    """Per Linear8bitLt: forward calls, calls with an outlier column, most outlier columns in a call."""
    stats, hooks = {}, []
    for name, mod in model.named_modules():
        if isinstance(mod, bnb.nn.Linear8bitLt):
            st = stats[name] = {"calls": 0, "with_outliers": 0, "max_cols": 0}

            def hook(m, args, st=st):
                x = args[0].reshape(-1, args[0].shape[-1]).to(torch.float16)
                t = m.state.threshold
                cols = int((x.abs() >= t).any(dim=0).sum()) if t > 0 else 0
                st["calls"] += 1
                st["with_outliers"] += cols > 0
                st["max_cols"] = max(st["max_cols"], cols)
            hooks.append(mod.register_forward_pre_hook(hook))
    golden_lines(model, reqs)
    for h in hooks:
        h.remove()
    return stats


MODULE_REQ = 3


@torch.no_grad()
def module_io(model, req):
    """Each Linear8bitLt's input and output in model's forward of req, by <module>.x and <module>.y."""
    out, hooks = {}, []
    for name, mod in model.named_modules():
        if isinstance(mod, bnb.nn.Linear8bitLt):
            def hook(m, args, y, name=name):
                out[name + ".x"] = args[0].reshape(-1, args[0].shape[-1]).float().clone()
                out[name + ".y"] = y.reshape(-1, y.shape[-1]).float().clone()
            hooks.append(mod.register_forward_hook(hook))
    model(input_ids=torch.tensor([(req["context_ids"] + req["continuation_ids"])[:-1]]))
    for h in hooks:
        h.remove()
    return out


@torch.no_grad()
def modules_golden(model, path, req, check):
    """Writes module_io to path, or runs each module again on the committed
    inputs and compares with the committed outputs; returns 1 on a difference."""
    if not check:
        save_file(module_io(model, req), path)
        return 0
    mods = dict(model.named_modules())
    bad = 0
    with safe_open(path, "pt") as f:
        for k in f.keys():
            if k.endswith(".x"):
                name = k[:-2]
                got, want = mods[name](f.get_tensor(k)), f.get_tensor(name + ".y")
                if (got - want).abs().max() > REF_TOL * max(1.0, float(want.abs().max())):
                    print(f"{path}: {name}: bitsandbytes' output on the committed input differs")
                    bad = 1
    return bad


@torch.no_grad()
def kv_greedy(model, ctx, n):
    """transformers' greedy generate of up to n tokens after ctx (one request, its KV cache; the EOS ends it)."""
    out = model.generate(torch.tensor([ctx]), attention_mask=torch.ones(1, len(ctx), dtype=torch.long), do_sample=False,
                         max_new_tokens=n, pad_token_id=0)
    return {"context_ids": ctx, "greedy": out[0, len(ctx):].tolist()}


def model_goldens(name, out, reqs, check):
    d = os.path.join(out, name)
    _, threshold, scale = MODELS[name]
    if not check:
        shutil.rmtree(d, ignore_errors=True)
        if scale:
            write_scaled(name, out)
        load_in_8bit(float_dir(name, out), threshold).save_pretrained(d)
        gen = os.path.join(d, "generation_config.json")
        if os.path.exists(gen):
            os.remove(gen)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        load_in_8bit(float_dir(name, out), threshold).save_pretrained(tmp)
        want, got = digests(os.path.join(d, "model.safetensors")), digests(os.path.join(tmp, "model.safetensors"))
        if want != got:
            print(f"{name}: load_in_8bit's saved tensors differ from the committed checkpoint")
            bad += 1
    model = load_checkpoint(d)
    if model.config.quantization_config.llm_int8_threshold != threshold:
        raise SystemExit(f"{name}: saved threshold {model.config.quantization_config.llm_int8_threshold}, want {threshold}")
    stats = count_outliers(model, reqs)
    hit = sum(s["with_outliers"] > 0 for s in stats.values())
    if threshold > 0 and (hit == 0 or all(s["max_cols"] == model.config.hidden_size for s in stats.values())):
        raise SystemExit(f"{name}: outlier columns in {hit} of {len(stats)} modules: the threshold is not exercised")
    bad += put(os.path.join(d, "outliers.json"), stats, check)
    bad += modules_golden(model, os.path.join(d, "modules.safetensors"), reqs[MODULE_REQ], check)
    bad += put(os.path.join(d, "golden.jsonl"), golden_lines(model, reqs), check, jsonl=True)
    gens = [{"context_ids": r["context_ids"], "greedy": greedy_continuation(model, r["context_ids"], 8, 1 << 20)} for r in reqs[:4]]
    bad += put(os.path.join(d, "generate.jsonl"), gens, check, jsonl=True)
    bad += put(os.path.join(d, "generate_kv.jsonl"), [kv_greedy(model, r["context_ids"], 8) for r in reqs[:4]], check, jsonl=True)
    print(f"{name}: {'checked' if check else 'written'} (threshold {threshold}, outliers in {hit}/{len(stats)} modules)")
    return bad


@torch.no_grad()
def skip_golden(out, reqs, check):
    """golden_skip.jsonl of llama-t0: the untied Llama base loaded with
    load_in_8bit and llm_int8_skip_modules=["down_proj"] (threshold 0),
    which transformers 5.23 takes instead of its default skips, so that
    lm_head is quantized too; returns 1 on a difference."""
    q = transformers.BitsAndBytesConfig(load_in_8bit=True, llm_int8_threshold=0.0, llm_int8_skip_modules=["down_proj"])
    model = transformers.AutoModelForCausalLM.from_pretrained(os.path.join(BASES, "llama"), quantization_config=q,
                                                              dtype=torch.float32, device_map="cpu",
                                                              attn_implementation="eager").eval()
    if not isinstance(model.lm_head, bnb.nn.Linear8bitLt) or isinstance(model.model.layers[0].mlp.down_proj, bnb.nn.Linear8bitLt):
        raise SystemExit("llama-t0 skip: lm_head not quantized, or down_proj quantized")
    return put(os.path.join(out, "llama-t0", "golden_skip.jsonl"), golden_lines(model, reqs), check, jsonl=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="models/testdata/bnb_int8")
    ap.add_argument("--check", action="store_true", help="recompute and compare with the committed goldens")
    args = ap.parse_args()
    torch.set_num_threads(1)
    logging.getLogger("bitsandbytes").setLevel(logging.ERROR)  # MatMul8bitLt's cast-to-float16 notice, once per call
    print(f"bitsandbytes {bnb.__version__}, transformers {transformers.__version__}, torch {torch.__version__}")
    req_path = os.path.join(args.out, "requests.jsonl")
    if not args.check:
        os.makedirs(args.out, exist_ok=True)
        with open(req_path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in make_requests(torch.Generator().manual_seed(43)))
    with open(req_path) as f:
        reqs = [json.loads(x) for x in f if x.strip()]
    bad = sum(model_goldens(n, args.out, reqs, args.check) for n in MODELS)
    bad += skip_golden(args.out, reqs, args.check)
    if args.check:
        print("LLM.int8 goldens:", "FAIL" if bad else "match")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
