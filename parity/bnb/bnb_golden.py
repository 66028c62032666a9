#!/usr/bin/env python3
"""Goldens for bitsandbytes 4-bit checkpoints (models/bnb.go): tiny random
Llama and Qwen2 models quantized by transformers + bitsandbytes on the CPU
and saved with save_pretrained, as the unsloth/*-bnb-4bit checkpoints are.

Usage:
    bnb_golden.py [--out models/testdata/bnb] [--check] [NAME ...]

Needs bitsandbytes (parity/requirements.lock pins it) beside the pinned
torch and transformers. Writes OUT/requests.jsonl and, per variant,
OUT/<name>/{config.json, model.safetensors, dequant.json, golden.jsonl}:

- dequant.json: for every quantized weight, bitsandbytes.functional.
  dequantize_4bit of the tensors in model.safetensors (QuantState.from_dict
  of its companions), into float32 and into bfloat16: the SHA-256 of the
  little-endian bytes and the float64 sum. goeval's dequantized weights
  must be bit-identical.
- golden.jsonl: transformers' log-probs (hf_logprobs.score) of the
  quantized model loaded from OUT/<name> in float32 (the unquantized
  tensors of a bfloat16 checkpoint, which transformers leaves in
  bfloat16, widened), every Linear4bit computing in float32 (compute_dtype float32; bitsandbytes' AVX512-BF16
  CPU kernel, which multiplies in bfloat16, switched off).

The variant with an adapter also gets OUT/<name>/lora/ (a random peft LoRA
adapter on every 4-bit projection, as QLoRA trains it) and
golden_lora.jsonl: PeftModel's log-probs over the 4-bit base, unmerged
(peft's merge into a 4-bit layer re-quantizes the sum, which is not what
a QLoRA adapter was trained on).

With --check the committed checkpoints are reloaded and the goldens
recomputed: any dequant.json difference, or a log-prob beyond REF_TOL, is
an error (exit 1).
"""

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile

import bitsandbytes as bnb
import bitsandbytes.functional as bnbf
import torch
import transformers
from bitsandbytes.backends.default.ops import _dequantize_4bit_compute
from bitsandbytes.backends.utils import _get_4bit_code
from safetensors import safe_open

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "archs"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from arch_golden import make_requests, randomize  # noqa: E402
from hf_logprobs import golden_lines, load_model  # noqa: E402
from reftol import put  # noqa: E402

VOCAB = 128
# hidden 64, intermediate 320: the MLP weights hold 320 blocks of 64, so 2
# nested absmax blocks of 256, the last partial. Every in_features is a
# multiple of 64, as in published models: bitsandbytes 0.50's AVX-512 CPU
# kernel indexes absmax per row (row·(in/blocksize) + column/blocksize)
# where the quantizer stored flat blocks, and dequantizes wrongly when
# in_features is not a multiple of the block size (dequant_golden checks
# that its result equals bitsandbytes' flat reference computation).
SHAPE = dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=320, num_hidden_layers=2,
             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
             bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
VARIANTS = {
    # name: (config class, quant type, double quant, checkpoint dtype, LoRA adapter)
    "llama-nf4-dq": (transformers.LlamaConfig, "nf4", True, torch.float32, True),
    "llama-fp4": (transformers.LlamaConfig, "fp4", False, torch.float32, False),
    "qwen2-nf4": (transformers.Qwen2Config, "nf4", False, torch.float32, False),
    # As unsloth ships them: bfloat16 weights, quant states of dtype bfloat16.
    "qwen2-fp4-dq-bf16": (transformers.Qwen2Config, "fp4", True, torch.bfloat16, False),
}


def quantize(name, out):
    """Writes variant name's random checkpoint, quantized, to out."""
    cls, qtype, dq, dtype, _ = VARIANTS[name]
    seed = sorted(VARIANTS).index(name)
    torch.manual_seed(500 + seed)
    model = transformers.AutoModelForCausalLM.from_config(cls(**SHAPE), dtype=torch.float32)
    randomize(model, torch.Generator().manual_seed(600 + seed))
    with tempfile.TemporaryDirectory() as tmp:
        model.to(dtype).save_pretrained(tmp)
        q = transformers.BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=qtype,
                                            bnb_4bit_use_double_quant=dq, bnb_4bit_compute_dtype=dtype)
        qm = transformers.AutoModelForCausalLM.from_pretrained(tmp, quantization_config=q, device_map="cpu", dtype=dtype)
        qm.save_pretrained(out)
    gen = os.path.join(out, "generation_config.json")
    if os.path.exists(gen):
        os.remove(gen)


def digest(t):
    """SHA-256 of a float32 or bfloat16 tensor's little-endian bytes, and its float64 sum."""
    raw = t.contiguous().view(torch.int32 if t.dtype == torch.float32 else torch.int16).numpy().astype(
        "<i4" if t.dtype == torch.float32 else "<i2").tobytes()
    return {"sha256": hashlib.sha256(raw).hexdigest(), "sum": float(t.double().sum())}


def absmax_f32(qs):
    """qs's block scales in float32, dequantized as dequantize_4bit does with double quantization."""
    if not qs.nested:
        return qs.absmax.float()
    return (bnbf.dequantize_blockwise(qs.absmax, qs.state2) + qs.offset).float()


def dequant_golden(d):
    """dequantize_4bit of every quantized weight in d/model.safetensors, in float32 and bfloat16."""
    out = {}
    with safe_open(os.path.join(d, "model.safetensors"), "pt") as f:
        keys = set(f.keys())
        for k in sorted(keys):
            if ".quant_state.bitsandbytes__" not in k:
                continue
            w = k.split(".quant_state.")[0]
            comp = {c[len(w) + 1:]: f.get_tensor(c) for c in keys if c.startswith(w + ".") and c != w}
            entry = {}
            for dtype in (torch.float32, torch.bfloat16):
                qs = bnbf.QuantState.from_dict(dict(comp), device=torch.device("cpu"))
                qs.dtype = dtype
                got = bnbf.dequantize_4bit(f.get_tensor(w), qs)
                flat = _dequantize_4bit_compute(f.get_tensor(w).reshape(-1), absmax_f32(qs), _get_4bit_code(qs.quant_type, "cpu"),
                                                qs.blocksize, qs.shape, dtype)
                if not torch.equal(got, flat):
                    raise SystemExit(f"{d}: {w}: dequantize_4bit differs from bitsandbytes' flat-block reference")
                entry[str(dtype).removeprefix("torch.")] = digest(got)
            out[w] = entry
    return out


def load_f32(d, adapter=None):
    """The quantized checkpoint in d, strictly, every Linear4bit computing in float32."""
    model = load_model(d, device_map="cpu")
    for p in model.parameters():  # a bfloat16 checkpoint's unquantized tensors stay bfloat16 otherwise
        if p.dtype in (torch.bfloat16, torch.float16):
            p.data = p.data.float()
    n = 0
    for mod in model.modules():
        if isinstance(mod, bnb.nn.Linear4bit):
            mod.compute_dtype, mod.support_avx512bf16_for_cpu, n = torch.float32, False, n + 1
    if n == 0:
        raise SystemExit(f"{d}: no Linear4bit module; not a 4-bit checkpoint")
    if adapter:
        import peft
        model = peft.PeftModel.from_pretrained(model, adapter)
    return model.eval()


@torch.no_grad()
def write_adapter(d, out):
    """A random LoRA adapter (r 4, alpha 8, every 4-bit projection) over d's 4-bit model, saved to out."""
    import peft
    torch.manual_seed(700)
    model = load_f32(d)
    cfg = peft.LoraConfig(r=4, lora_alpha=8, target_modules="all-linear", init_lora_weights=False)
    pm = peft.get_peft_model(model, cfg)
    gen = torch.Generator().manual_seed(701)
    for name, p in pm.named_parameters():
        if "lora_" in name:
            p.copy_(0.3 * torch.randn(p.shape, generator=gen))
    pm.save_pretrained(out)
    os.remove(os.path.join(out, "README.md"))


def variant(name, out, reqs, check):
    """Writes or checks one variant's files; returns the number that differ."""
    d = os.path.join(out, name)
    if not check:
        shutil.rmtree(d, ignore_errors=True)
        quantize(name, d)
        if VARIANTS[name][4]:
            write_adapter(d, os.path.join(d, "lora"))
    bad = 0
    deq, path = dequant_golden(d), os.path.join(d, "dequant.json")
    text = json.dumps(deq, indent=1, sort_keys=True) + "\n"
    if check:
        with open(path) as f:
            if f.read() != text:
                print(f"{path}: bitsandbytes' dequantize_4bit differs")
                bad += 1
    else:
        with open(path, "w") as f:
            f.write(text)
    with torch.no_grad():
        bad += put(os.path.join(d, "golden.jsonl"), golden_lines(load_f32(d), reqs), check, jsonl=True)
        if VARIANTS[name][4]:
            bad += put(os.path.join(d, "golden_lora.jsonl"), golden_lines(load_f32(d, os.path.join(d, "lora")), reqs), check, jsonl=True)
    print(f"{name}: {len(deq)} quantized weights" + (" (checked)" if check else " written"))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="models/testdata/bnb")
    ap.add_argument("--check", action="store_true", help="recompute and compare with the committed goldens")
    ap.add_argument("names", nargs="*", help=f"subset of {sorted(VARIANTS)}")
    args = ap.parse_args()
    torch.set_num_threads(1)
    print(f"bitsandbytes {bnb.__version__}, transformers {transformers.__version__}, torch {torch.__version__}")
    req_path = os.path.join(args.out, "requests.jsonl")
    if not args.check:
        os.makedirs(args.out, exist_ok=True)
        with open(req_path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in make_requests(torch.Generator().manual_seed(7)))
    with open(req_path) as f:
        reqs = [json.loads(x) for x in f if x.strip()]
    bad = sum(variant(n, args.out, reqs, args.check) for n in args.names or sorted(VARIANTS))
    if args.check:
        print("bnb goldens:", "FAIL" if bad else "match")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
