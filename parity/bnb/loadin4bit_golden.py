#!/usr/bin/env python3
"""Goldens for --load-in-4bit (models/bnb_loadin4bit.go): tiny random float
checkpoints (Llama with untied head, Qwen2 with tied embeddings) loaded by
transformers with BitsAndBytesConfig(load_in_4bit=True, ...) on the CPU,
as lm-eval's load_in_4bit=True model argument loads them.

Usage:
    loadin4bit_golden.py [--out models/testdata/bnb_load] [--check] [--synth GOEVAL]

Needs bitsandbytes and peft (parity/requirements.lock pins them). Writes
OUT/requests.jsonl, OUT/blockwise.safetensors (bitsandbytes' CPU
quantize_blockwise, double quantization's 8-bit step, on inputs where its
table lookup and the nearest code differ) and, per model, OUT/<model>/{config.json,
model.safetensors} (float32) and, per quantization Q (nf4, fp4, nf4-dq,
fp4-dq: quant type, double quantization; for the Llama model also
nf4-skip: nf4 with llm_int8_skip_modules=["down_proj"], which quantizes
its lm_head too), OUT/<model>/:

- form_<Q>.json: the SHA-256 of every tensor save_pretrained writes for
  the quantized model (packed codes, absmax, quant_map, nested_absmax,
  nested_quant_map, the JSON quant state, the unquantized tensors):
  goeval's in-memory form must be bit-identical.
- golden_<Q>.jsonl: transformers' log-probs (hf_logprobs.score) of the
  quantized model, every Linear4bit computing in float32
  (bnb_4bit_compute_dtype=torch.float32, the AVX512-BF16 kernel off).

The Llama model also gets lora/ (a random peft LoRA on every 4-bit
projection of its nf4 model, as QLoRA trains it) and golden_lora_nf4.jsonl
(PeftModel over the nf4 model, unmerged).

With --check everything is recomputed from the committed float
checkpoints: a form digest that differs, or a log-prob beyond REF_TOL, is
an error (exit 1). With --synth GOEVAL, `goeval synth model --quantize
bnb-<Q>` checkpoints must hold the tensors transformers saves after
load_in_4bit of the float checkpoint the same flags write, load strictly in
transformers and score as that load_in_4bit model does.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import bitsandbytes as bnb
import torch
import transformers
import bitsandbytes.functional as bnbf
from safetensors import safe_open
from safetensors.torch import save_file

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "archs"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from arch_golden import make_requests, randomize  # noqa: E402
from hf_logprobs import golden_lines, load_model  # noqa: E402
from reftol import REF_TOL, put  # noqa: E402

VOCAB = 128
# As bnb_golden.py: intermediate 320 gives the MLP weights 320 blocks of
# 64, so two nested blocks of 256 with double quantization.
SHAPE = dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=320, num_attention_heads=4,
             num_key_value_heads=2, max_position_embeddings=128, bos_token_id=1, eos_token_id=2)
MODELS = {
    # name: (config class, layers, tie_word_embeddings)
    "llama": (transformers.LlamaConfig, 2, False),
    "qwen2-tied": (transformers.Qwen2Config, 1, True),
}
QUANTS = {"nf4": ("nf4", False), "fp4": ("fp4", False), "nf4-dq": ("nf4", True), "fp4-dq": ("fp4", True)}
# Loaded with llm_int8_skip_modules too (the untied Llama only): a given
# list replaces transformers' default skips, so lm_head is quantized as well.
SKIPS = {"nf4-skip": ("nf4", False, ["down_proj"])}


def write_float(name, d):
    """Writes model name's random float32 checkpoint to d."""
    cls, layers, tied = MODELS[name]
    seed = sorted(MODELS).index(name)
    torch.manual_seed(800 + seed)
    model = transformers.AutoModelForCausalLM.from_config(
        cls(**SHAPE, num_hidden_layers=layers, tie_word_embeddings=tied), dtype=torch.float32)
    randomize(model, torch.Generator().manual_seed(900 + seed))
    model.save_pretrained(d)
    gen = os.path.join(d, "generation_config.json")
    if os.path.exists(gen):
        os.remove(gen)


def load_4bit(d, quant, adapter=None):
    """d loaded with load_in_4bit as quant (QUANTS or SKIPS) says, every Linear4bit computing in float32."""
    qtype, dq, skip = QUANTS[quant] + (None,) if quant in QUANTS else SKIPS[quant]
    q = transformers.BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=qtype, bnb_4bit_use_double_quant=dq,
                                        bnb_4bit_compute_dtype=torch.float32, llm_int8_skip_modules=skip)
    model = transformers.AutoModelForCausalLM.from_pretrained(d, quantization_config=q, dtype=torch.float32,
                                                              device_map="cpu", attn_implementation="eager")
    n = 0
    for mod in model.modules():
        if isinstance(mod, bnb.nn.Linear4bit):
            mod.compute_dtype, mod.support_avx512bf16_for_cpu, n = torch.float32, False, n + 1
    if n == 0:
        raise SystemExit(f"{d}: no Linear4bit module after load_in_4bit")
    if adapter:
        import peft
        model = peft.PeftModel.from_pretrained(model, adapter)
    return model.eval()


def load_strict(d):
    """A pre-quantized checkpoint in d (goeval synth's), strictly, computing in float32."""
    model = load_model(d, device_map="cpu")
    for mod in model.modules():
        if isinstance(mod, bnb.nn.Linear4bit):
            mod.compute_dtype, mod.support_avx512bf16_for_cpu = torch.float32, False
    return model.eval()


def form(model):
    """SHA-256 of every tensor save_pretrained writes for model, by name."""
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        return digests(os.path.join(tmp, "model.safetensors"))


def digests(path):
    out = {}
    with safe_open(path, "pt") as f:
        for k in sorted(f.keys()):
            t = f.get_tensor(k).contiguous()
            out[k] = hashlib.sha256(t.view(torch.uint8).numpy().tobytes()).hexdigest()
    return out


@torch.no_grad()
def write_adapter(d, out):
    """A random LoRA adapter (r 4, alpha 8, every 4-bit projection) over d's nf4 model, saved to out."""
    import peft
    torch.manual_seed(710)
    pm = peft.get_peft_model(load_4bit(d, "nf4"), peft.LoraConfig(r=4, lora_alpha=8, target_modules="all-linear",
                                                                   init_lora_weights=False))
    gen = torch.Generator().manual_seed(711)
    for name, p in pm.named_parameters():
        if "lora_" in name:
            p.copy_(0.3 * torch.randn(p.shape, generator=gen))
    pm.save_pretrained(out)
    os.remove(os.path.join(out, "README.md"))


def model_goldens(name, out, reqs, check):
    d = os.path.join(out, name)
    if not check:
        shutil.rmtree(d, ignore_errors=True)
        write_float(name, d)
        if name == "llama":
            write_adapter(d, os.path.join(d, "lora"))
    bad = 0
    for quant in list(QUANTS) + (list(SKIPS) if name == "llama" else []):
        model = load_4bit(d, quant)
        if quant in SKIPS and not isinstance(model.lm_head, bnb.nn.Linear4bit):
            raise SystemExit(f"{d}: {quant}: lm_head not quantized with llm_int8_skip_modules given")
        bad += put(os.path.join(d, f"form_{quant}.json"), form(model), check)
        bad += put(os.path.join(d, f"golden_{quant}.jsonl"), golden_lines(model, reqs), check, jsonl=True)
    if name == "llama":
        bad += put(os.path.join(d, "golden_lora_nf4.jsonl"), golden_lines(load_4bit(d, "nf4", os.path.join(d, "lora")), reqs),
                   check, jsonl=True)
    print(f"{name}: {'checked' if check else 'written'}")
    return bad


SYNTH = ["--hidden", "64", "--layers", "2", "--heads", "4", "--kv-heads", "2", "--intermediate", "320", "--seed", "3"]


def synth_check(goeval, reqs):
    """goeval synth model --quantize bnb-<Q> writes what transformers saves
    after load_in_4bit of the float checkpoint the same flags write (every
    tensor bit-identical), loads strictly in transformers and scores as that
    load_in_4bit model does."""
    bad = 0
    for quant in QUANTS:
        with tempfile.TemporaryDirectory() as tmp:
            f, q = os.path.join(tmp, "f"), os.path.join(tmp, "q")
            subprocess.run([goeval, "synth", "model", *SYNTH, "--out", f], check=True, capture_output=True)
            subprocess.run([goeval, "synth", "model", *SYNTH, "--quantize", "bnb-" + quant, "--out", q], check=True,
                           capture_output=True)
            ref = load_4bit(f, quant)
            want, got = form(ref), digests(os.path.join(q, "model.safetensors"))
            diff = sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))
            if diff:
                print(f"{quant}: goeval synth's tensors differ from save_pretrained's: {diff[:3]} ({len(diff)})")
                bad += 1
            d = max(abs(a["logprob_sum"] - b["logprob_sum"]) for a, b in zip(golden_lines(ref, reqs), golden_lines(load_strict(q), reqs)))
            print(f"{quant}: synth checkpoint vs load_in_4bit of its float one in transformers: "
                  f"{len(want) - len(diff)}/{len(want)} tensors identical, max |d logprob_sum| {d:.3g}")
            if d > REF_TOL:
                bad += 1
    print("synth 4-bit checkpoints in transformers:", "FAIL" if bad else "match")
    return bad


def blockwise_golden(path, check):
    """bitsandbytes' CPU quantize_blockwise (double quantization's 8-bit
    step) of inputs where its table lookup and the nearest code differ:
    uniform and cubed values, values on and beside the dynamic map's
    midpoints, ±1, a block of zeros and a ragged last block. Writes or
    compares path (NAME.x, NAME.codes, NAME.absmax); returns 1 on a difference."""
    gen = torch.Generator().manual_seed(42)
    m = bnbf.create_dynamic_map()
    mids = (m[:-1] + m[1:]) / 2
    near = torch.cat([mids, torch.nextafter(mids, torch.ones(1)), torch.nextafter(mids, -torch.ones(1)), m])
    # Values whose table index 65535·(v+1)/2 + ½ lies within a few ulps of
    # an integer where the table changes code: the rounding of that sum
    # decides the code.
    grid = torch.arange(65536, dtype=torch.float32) * 2 / 65535 - 1
    lut = torch.bucketize(grid, mids, right=False)
    ks = torch.nonzero(lut[1:] != lut[:-1]).flatten() + 1
    edge = ((2 * ks.double() - 1) / 65535 - 1).float()
    steps = [edge]
    for _ in range(3):
        steps += [torch.nextafter(steps[-2 if len(steps) > 1 else 0], torch.ones(1))]
    up, down = edge, edge
    for _ in range(3):
        up, down = torch.nextafter(up, torch.ones(1)), torch.nextafter(down, -torch.ones(1))
        steps += [up, down]
    near = torch.cat([near, *steps])
    cases = {"uniform": torch.rand(256 * 8, generator=gen) * 2 - 1,
             "cubed": (torch.rand(256 * 8, generator=gen) * 2 - 1) ** 3,
             "midpoints": torch.cat([torch.ones(1), near, torch.zeros((-(near.numel() + 1)) % 256)]),
             "zeros_ragged": torch.cat([torch.zeros(256), torch.randn(100, generator=gen)])}
    tensors = {}
    for name, x in cases.items():
        x = x.float().contiguous()
        q, st = bnbf.quantize_blockwise(x, blocksize=256)
        tensors[name + ".x"], tensors[name + ".codes"], tensors[name + ".absmax"] = x, q.clone(), st.absmax.float().clone()
    if not check:
        save_file(tensors, path)
        return 0
    with safe_open(path, "pt") as f:
        if set(f.keys()) != set(tensors) or any(not torch.equal(f.get_tensor(k), v) for k, v in tensors.items()):
            print(f"{path}: bitsandbytes' quantize_blockwise differs")
            return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="models/testdata/bnb_load")
    ap.add_argument("--check", action="store_true", help="recompute and compare with the committed goldens")
    ap.add_argument("--synth", metavar="GOEVAL", help="check goeval synth --quantize checkpoints in transformers")
    args = ap.parse_args()
    torch.set_num_threads(1)
    print(f"bitsandbytes {bnb.__version__}, transformers {transformers.__version__}, torch {torch.__version__}")
    req_path = os.path.join(args.out, "requests.jsonl")
    if not args.check and not args.synth:
        os.makedirs(args.out, exist_ok=True)
        with open(req_path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in make_requests(torch.Generator().manual_seed(41)))
    with open(req_path) as f:
        reqs = [json.loads(x) for x in f if x.strip()]
    if args.synth:
        return 1 if synth_check(args.synth, reqs) else 0
    bad = blockwise_golden(os.path.join(args.out, "blockwise.safetensors"), args.check)
    bad += sum(model_goldens(n, args.out, reqs, args.check) for n in MODELS)
    if args.check:
        print("load_in_4bit goldens:", "FAIL" if bad else "match")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
