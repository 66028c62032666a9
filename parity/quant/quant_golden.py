#!/usr/bin/env python3
"""Goldens for GPTQ, AWQ and bitsandbytes 8-bit checkpoints (models/gptq.go,
models/awq.go, models/bnb8.go): tiny random Llama and Qwen2 models, quantized
and saved in each format's layout.

Usage:
    quant_golden.py [--out models/testdata/quant] [--check] [NAME ...]

References, per format:

- GPTQ and AWQ: gptqmodel, auto-gptq and autoawq need CUDA kernels (or
  builds) this CPU-only venv does not have, so this script packs its own
  round-to-nearest codes in each format's documented layout and checks
  against an independent NumPy dequantizer written from that
  documentation (dequant_gptq, dequant_awq). GPTQ: qweight int32
  [in·bits/32, out] (input rows packed low bits first), qzeros int32
  [groups, out·bits/32] (output columns packed low bits first), scales
  float16 [groups, out], g_idx int32 [in] (the group of each input row;
  desc_act shuffles it); checkpoint_format "gptq" (v1) stores each zero
  point minus one, "gptq_v2" stores it as is; W[o, i] = scale[g, o]·(q[i, o]
  − zero[g, o]), g = g_idx[i]. AWQ GEMM: qweight int32 [in, out/8] and
  qzeros int32 [groups, out/8], eight 4-bit output columns per word with
  column k of each eight in nibble (0, 4, 1, 5, 2, 6, 3, 7)[k]; W[o, i] =
  (q[i, o] − zero[i/group, o])·scale[i/group, o]. Each product is exact in
  float32 (an 11-bit scale times a code below 2^9).
- bitsandbytes 8-bit: transformers' load_in_8bit on the CPU quantizes and
  save_pretrained writes the checkpoint (int8 weight, float32 SCB row
  scales, weight_format); bitsandbytes' int8_vectorwise_dequant is the
  dequantization reference.

dequant.json holds, per quantized weight, the SHA-256 of the dequantized
float32 [out, in] little-endian bytes (and bfloat16 rounded to nearest
even) and the float64 sum. golden.jsonl is transformers' float32
log-probs (hf_logprobs.score) of the dense model holding the dequantized
weights (bitsandbytes' own int8 forward quantizes the activations too, so
it is not the dequantized model; GPTQ/AWQ kernels did not run here);
generate.jsonl is that model's greedy continuations. A variant with an
adapter also has lora/ (a random peft LoRA on every projection) and
golden_lora.jsonl (PeftModel over the dense dequantized model).

--autoawq FILE cross-checks the AWQ unpacking against autoawq's own
dequantize_gemm (FILE: awq/utils/packing_utils.py from the autoawq
0.2.7.post3 wheel, which imports only torch; the package itself needs a
CUDA build), given float32 scales so that its product is exact too.

With --check the goldens are recomputed from the committed checkpoints
(nothing is re-quantized): any dequant.json difference, or a log-prob
beyond REF_TOL, is an error (exit 1).
"""

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import torch
import transformers
from safetensors import safe_open
from safetensors.torch import save_file

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "archs"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from arch_golden import make_requests, randomize  # noqa: E402
from hf_logprobs import golden_lines, greedy_continuation  # noqa: E402
from reftol import put  # noqa: E402

VOCAB = 128
# intermediate 160: down_proj's in_features is not a multiple of 64 (the
# gptq4-v2-g64 variant's last group holds 32 rows).
SHAPE = dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=160, num_hidden_layers=2,
             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
             bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
PROJ = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
AWQ_NIBBLE = (0, 4, 1, 5, 2, 6, 3, 7)  # the nibble holding column k of each eight
VARIANTS = {
    # name: (config class, method, options, LoRA adapter)
    "llama-gptq4-g32": (transformers.LlamaConfig, "gptq", dict(bits=4, group_size=32, desc_act=False, sym=True, fmt="gptq"), True),
    "llama-gptq4-descact-asym": (transformers.LlamaConfig, "gptq", dict(bits=4, group_size=32, desc_act=True, sym=False, fmt="gptq"), False),
    "qwen2-gptq4-v2-g64": (transformers.Qwen2Config, "gptq", dict(bits=4, group_size=64, desc_act=False, sym=False, fmt="gptq_v2"), False),
    "qwen2-gptq8-v2-descact": (transformers.Qwen2Config, "gptq", dict(bits=8, group_size=32, desc_act=True, sym=False, fmt="gptq_v2"), False),
    "llama-gptq8-chan": (transformers.LlamaConfig, "gptq", dict(bits=8, group_size=-1, desc_act=False, sym=True, fmt="gptq"), False),
    "llama-awq-g32": (transformers.LlamaConfig, "awq", dict(group_size=32), False),
    "qwen2-awq-g16": (transformers.Qwen2Config, "awq", dict(group_size=16), False),
    "llama-bnb8": (transformers.LlamaConfig, "bnb8", {}, False),
    "qwen2-bnb8": (transformers.Qwen2Config, "bnb8", {}, False),
}


def dense_model(name):
    cls, *_ = VARIANTS[name]
    seed = sorted(VARIANTS).index(name)
    torch.manual_seed(900 + seed)
    model = transformers.AutoModelForCausalLM.from_config(cls(**SHAPE), dtype=torch.float32)
    with torch.no_grad():
        randomize(model, torch.Generator().manual_seed(1000 + seed))
    return model, np.random.default_rng(1100 + seed)


def pack_rows(q, bits):
    """Packs q [n, m] (codes < 2^bits) along axis 0 into int32 [n·bits/32, m], low bits first."""
    per = 32 // bits
    q = q.astype(np.uint32).reshape(q.shape[0] // per, per, q.shape[1])
    out = np.zeros((q.shape[0], q.shape[2]), np.uint32)
    for j in range(per):
        out |= q[:, j, :] << np.uint32(bits * j)
    return out.view(np.int32)


def quant_groups(w, groups, ngroups, bits, sym):
    """Round-to-nearest codes of w [out, in] per (group, out): codes [in, out], zeros and float16 scales [groups, out]."""
    maxq = (1 << bits) - 1
    scales = np.zeros((ngroups, w.shape[0]), np.float16)
    zeros = np.zeros((ngroups, w.shape[0]), np.int64)
    for g in range(ngroups):
        cols = w[:, groups == g]
        lo, hi = np.minimum(cols.min(1), 0), np.maximum(cols.max(1), 0)
        if sym:
            s, z = np.maximum(np.abs(lo), hi) * 2 / maxq, np.full(w.shape[0], (maxq + 1) // 2)
        else:
            s = (hi - lo) / maxq
            z = np.clip(np.round(-lo / s), 0, maxq)
        scales[g], zeros[g] = s.astype(np.float16), z
    s32 = scales.astype(np.float32)[groups]  # [in, out]
    q = np.clip(np.round(w.T / s32) + zeros[groups], 0, maxq).astype(np.int64)
    return q, zeros, scales


def gptq_tensors(w, o, rng):
    bits, gs = o["bits"], o["group_size"]
    n_in = w.shape[1]
    size = n_in if gs == -1 else gs
    ngroups = -(-n_in // size)
    g_idx = np.arange(n_in) // size
    if o["desc_act"]:
        perm = rng.permutation(n_in)
        g_idx = np.empty(n_in, np.int64)
        g_idx[perm] = np.arange(n_in) // size
    q, zeros, scales = quant_groups(w, g_idx, ngroups, bits, o["sym"])
    stored = zeros - 1 if o["fmt"] == "gptq" else zeros
    stored = stored & ((1 << bits) - 1)
    return {"qweight": pack_rows(q, bits), "qzeros": pack_rows(stored.T, bits).T.copy(),
            "scales": scales, "g_idx": g_idx.astype(np.int32)}


def awq_pack(q):
    """Packs q [n, m] (4-bit codes) along axis 1 into int32 [n, m/8], column k of each eight in nibble AWQ_NIBBLE[k]."""
    q = q.astype(np.uint32).reshape(q.shape[0], q.shape[1] // 8, 8)
    out = np.zeros(q.shape[:2], np.uint32)
    for k in range(8):
        out |= q[:, :, k] << np.uint32(4 * AWQ_NIBBLE[k])
    return out.view(np.int32)


def awq_tensors(w, o):
    gs = o["group_size"]
    groups = np.arange(w.shape[1]) // gs
    q, zeros, scales = quant_groups(w, groups, w.shape[1] // gs, 4, False)
    return {"qweight": awq_pack(q), "qzeros": awq_pack(zeros), "scales": scales}


def quantize(name, out):
    """Writes variant name's random checkpoint, quantized, to out."""
    _, method, o, _ = VARIANTS[name]
    model, rng = dense_model(name)
    if method == "bnb8":
        with tempfile.TemporaryDirectory() as tmp:
            model.save_pretrained(tmp)
            q = transformers.BitsAndBytesConfig(load_in_8bit=True)
            qm = transformers.AutoModelForCausalLM.from_pretrained(tmp, quantization_config=q, device_map="cpu", dtype=torch.float32)
            qm.save_pretrained(out)
    else:
        tensors = {}
        for k, v in model.state_dict().items():
            mod = k.rsplit(".", 1)[0]
            if k.endswith(".weight") and mod.rsplit(".", 1)[-1] in PROJ:
                w = v.numpy()
                qt = gptq_tensors(w, o, rng) if method == "gptq" else awq_tensors(w, o)
                tensors.update({f"{mod}.{s}": torch.from_numpy(np.ascontiguousarray(t)) for s, t in qt.items()})
            else:
                tensors[k] = v.half()
        model.config.dtype = torch.float16
        model.config.architectures = [type(model).__name__]
        model.config.save_pretrained(out)
        save_file(tensors, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})
        with open(os.path.join(out, "config.json")) as f:
            cfg = json.load(f)
        if method == "gptq":
            qc = {"quant_method": "gptq", "bits": o["bits"], "group_size": o["group_size"], "desc_act": o["desc_act"],
                  "sym": o["sym"], "checkpoint_format": o["fmt"], "true_sequential": True, "damp_percent": 0.01}
        else:
            qc = {"quant_method": "awq", "bits": 4, "group_size": o["group_size"], "zero_point": True, "version": "gemm"}
        cfg["quantization_config"] = qc
        with open(os.path.join(out, "config.json"), "w") as f:
            json.dump(cfg, f, indent=2, sort_keys=True)
            f.write("\n")
    gen = os.path.join(out, "generation_config.json")
    if os.path.exists(gen):
        os.remove(gen)


def unpack(x, bits, axis):
    """The independent reader: int32 words of x unpacked along axis, low bits first."""
    u = x.view(np.uint32)
    per = 32 // bits
    parts = [(u >> np.uint32(bits * j)) & np.uint32((1 << bits) - 1) for j in range(per)]
    st = np.stack(parts, axis=axis + 1)
    shape = list(x.shape)
    shape[axis] *= per
    return st.reshape(shape).astype(np.int64)


def dequant_gptq(t, qc):
    bits = qc["bits"]
    q = unpack(t["qweight"], bits, 0)  # [in, out]
    z = unpack(t["qzeros"], bits, 1)  # [groups, out]
    if qc["checkpoint_format"] == "gptq":
        z = z + 1
    g = t["g_idx"].astype(np.int64)
    s = t["scales"].astype(np.float32)
    return (s[g] * (q - z[g]).astype(np.float32)).T.copy()


def dequant_awq(t, qc):
    def nib(x):
        u = x.view(np.uint32)
        cols = [(u >> np.uint32(4 * AWQ_NIBBLE[k])) & np.uint32(15) for k in range(8)]
        return np.stack(cols, axis=2).reshape(x.shape[0], -1).astype(np.int64)
    q, z, s = nib(t["qweight"]), nib(t["qzeros"]), t["scales"].astype(np.float32)
    g = np.arange(q.shape[0]) // qc["group_size"]
    return ((q - z[g]).astype(np.float32) * s[g]).T.copy()


def crosscheck_autoawq(path, d, weights):
    """Raises unless autoawq's dequantize_gemm (packing_utils.py at path) gives weights for d's AWQ tensors."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("awq_packing_utils", path)
    pu = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pu)
    with open(os.path.join(d, "config.json")) as f:
        gs = json.load(f)["quantization_config"]["group_size"]
    with safe_open(os.path.join(d, "model.safetensors"), "pt") as f:
        for w, want in weights.items():
            m = w[: -len(".weight")]
            got = pu.dequantize_gemm(f.get_tensor(m + ".qweight"), f.get_tensor(m + ".qzeros"),
                                     f.get_tensor(m + ".scales").float(), 4, gs).T.contiguous().numpy()
            if not np.array_equal(got.view(np.int32), want.view(np.int32)):
                raise SystemExit(f"{d}: {w}: autoawq's dequantize_gemm differs from the NumPy reader")
    print(f"{os.path.basename(d)}: autoawq dequantize_gemm agrees on {len(weights)} weights")


def dequantized(d):
    """Every quantized weight of d's checkpoint, dequantized to float32 [out, in], by name."""
    with open(os.path.join(d, "config.json")) as f:
        qc = json.load(f)["quantization_config"]
    out = {}
    with safe_open(os.path.join(d, "model.safetensors"), "pt") as f:
        keys = set(f.keys())
        if qc["quant_method"] == "bitsandbytes":
            import bitsandbytes.functional as bnbf
            for k in sorted(keys):
                if k.endswith(".SCB"):
                    m = k[: -len(".SCB")]
                    out[m + ".weight"] = bnbf.int8_vectorwise_dequant(f.get_tensor(m + ".weight"), f.get_tensor(k)).numpy()
            return out
        for k in sorted(keys):
            if k.endswith(".qweight"):
                m = k[: -len(".qweight")]
                t = {s: f.get_tensor(f"{m}.{s}").numpy() for s in ("qweight", "qzeros", "scales", "g_idx") if f"{m}.{s}" in keys}
                out[m + ".weight"] = dequant_gptq(t, qc) if qc["quant_method"] == "gptq" else dequant_awq(t, qc)
    return out


def digest(a):
    t = torch.from_numpy(np.ascontiguousarray(a, np.float32))
    res = {}
    for dt in (torch.float32, torch.bfloat16):
        x = t.to(dt)
        raw = x.view(torch.int32 if dt == torch.float32 else torch.int16).numpy().astype("<i4" if dt == torch.float32 else "<i2").tobytes()
        res[str(dt).removeprefix("torch.")] = {"sha256": hashlib.sha256(raw).hexdigest(), "sum": float(x.double().sum())}
    return res


def dense_from(d, weights):
    """The float32 dense model of d's architecture holding weights and d's other tensors (widened)."""
    cls = VARIANTS[os.path.basename(d)][0]
    model = transformers.AutoModelForCausalLM.from_config(cls(**SHAPE), dtype=torch.float32, attn_implementation="eager")
    sd = {}
    with safe_open(os.path.join(d, "model.safetensors"), "pt") as f:
        for k in f.keys():
            if k in model.state_dict():
                sd[k] = f.get_tensor(k).float()
    sd.update({k: torch.from_numpy(v) for k, v in weights.items()})
    model.load_state_dict(sd, strict=True)
    return model.eval()


def generations(model, reqs):
    return [{"context_ids": r["context_ids"], "greedy": greedy_continuation(model, r["context_ids"], 8, 1 << 20)} for r in reqs[:4]]


@torch.no_grad()
def write_adapter(model, out):
    import peft
    torch.manual_seed(1200)
    pm = peft.get_peft_model(model, peft.LoraConfig(r=4, lora_alpha=8, target_modules=list(PROJ), init_lora_weights=False))
    gen = torch.Generator().manual_seed(1201)
    for name, p in pm.named_parameters():
        if "lora_" in name:
            p.copy_(0.3 * torch.randn(p.shape, generator=gen))
    pm.save_pretrained(out)
    os.remove(os.path.join(out, "README.md"))
    return pm.unload()


@torch.no_grad()
def variant(name, out, reqs, check, autoawq=None):
    d = os.path.join(out, name)
    if not check:
        shutil.rmtree(d, ignore_errors=True)
        quantize(name, d)
    weights = dequantized(d)
    if autoawq and VARIANTS[name][1] == "awq":
        crosscheck_autoawq(autoawq, d, weights)
    bad = 0
    text = json.dumps({k: digest(v) for k, v in weights.items()}, indent=1, sort_keys=True) + "\n"
    path = os.path.join(d, "dequant.json")
    if check:
        with open(path) as f:
            if f.read() != text:
                print(f"{path}: the reference dequantization differs")
                bad += 1
    else:
        with open(path, "w") as f:
            f.write(text)
    model = dense_from(d, weights)
    bad += put(os.path.join(d, "golden.jsonl"), golden_lines(model, reqs), check, jsonl=True)
    bad += put(os.path.join(d, "generate.jsonl"), generations(model, reqs), check, jsonl=True)
    if VARIANTS[name][3]:
        import peft
        lora = os.path.join(d, "lora")
        if not check:
            model = write_adapter(model, lora)
        pm = peft.PeftModel.from_pretrained(dense_from(d, weights), lora).eval()
        bad += put(os.path.join(d, "golden_lora.jsonl"), golden_lines(pm, reqs), check, jsonl=True)
    print(f"{name}: {len(weights)} quantized weights" + (" (checked)" if check else " written"))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="models/testdata/quant")
    ap.add_argument("--check", action="store_true", help="recompute and compare with the committed goldens")
    ap.add_argument("--autoawq", help="autoawq's awq/utils/packing_utils.py, to cross-check the AWQ reader")
    ap.add_argument("names", nargs="*", help=f"subset of {sorted(VARIANTS)}")
    args = ap.parse_args()
    torch.set_num_threads(1)
    print(f"transformers {transformers.__version__}, torch {torch.__version__}, numpy {np.__version__}")
    req_path = os.path.join(args.out, "requests.jsonl")
    if not args.check:
        os.makedirs(args.out, exist_ok=True)
        with open(req_path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in make_requests(torch.Generator().manual_seed(11)))
    with open(req_path) as f:
        reqs = [json.loads(x) for x in f if x.strip()]
    bad = sum(variant(n, args.out, reqs, args.check, args.autoawq) for n in args.names or sorted(VARIANTS))
    if args.check:
        print("quant goldens:", "FAIL" if bad else "match")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
