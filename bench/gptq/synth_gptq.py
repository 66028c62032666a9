"""Writes a random GPTQ 4-bit checkpoint of a Llama shape straight in its
packed form (qweight, qzeros, float16 scales and g_idx drawn at random, no
float weights), one tensor at a time, and optionally a random LoRA adapter
over it, for the peak-RSS and decode checks of GPTQ weights kept packed
on the cpu device against their dequantization at load (goeval bench
score / bench generate on it, issue 40).

Usage: synth_gptq.py --out DIR [--preset llama3.2-1b|tiny] [--group 128]
         [--desc-act] [--lora-rank 0] [--seed 1]

Every decoder projection is GPTQ v1 ("gptq" checkpoint_format), 4 bits,
symmetric, group_size --group, desc_act false (g_idx = i // group) or with
--desc-act true (g_idx a random permutation of the inputs // group: the
same codes, scales and zeros, each group's inputs spread out); the
embedding (tied LM head) bfloat16, the norms float32. With --lora-rank R
the adapter (every projection, alpha 2R, float32) goes to DIR/lora. Needs
numpy.
"""

import argparse
import json
import os
import sys
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lazyst import write_safetensors  # noqa: E402

PRESETS = {
    "llama3.2-1b": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32,
                        num_key_value_heads=8, head_dim=64, vocab_size=128256),
    "tiny": dict(hidden_size=256, intermediate_size=768, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2, head_dim=64, vocab_size=1024),
}
PROJ = ["self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
        "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"]


def config(preset, group, desc_act):
    c = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_act="silu", max_position_embeddings=8192,
             rms_norm_eps=1e-5, rope_theta=500000.0, attention_bias=False, mlp_bias=False, tie_word_embeddings=True,
             bos_token_id=1, eos_token_id=2, torch_dtype="float16",
             quantization_config=dict(quant_method="gptq", bits=4, group_size=group, desc_act=desc_act, sym=True,
                                      checkpoint_format="gptq", damp_percent=0.01, true_sequential=True))
    c.update(PRESETS[preset])
    return c


def shapes(c):
    """[out, in] of each projection of a layer."""
    h, i = c["hidden_size"], c["intermediate_size"]
    q, kv = c["num_attention_heads"] * c["head_dim"], c["num_key_value_heads"] * c["head_dim"]
    return {"self_attn.q_proj": (q, h), "self_attn.k_proj": (kv, h), "self_attn.v_proj": (kv, h),
            "self_attn.o_proj": (h, q), "mlp.gate_proj": (i, h), "mlp.up_proj": (i, h), "mlp.down_proj": (h, i)}


def gptq_tensors(rng, name, out, inp, group, desc_act):
    """(name, dtype, shape, fill) of one GPTQ module, fills made lazily."""
    groups = inp // group
    m = name
    order = np.random.default_rng(zlib.crc32(name.encode())).permutation(inp) if desc_act else np.arange(inp)
    return [
        (m + ".g_idx", "I32", [inp], lambda: (order.astype(np.int32) // group).tobytes()),
        (m + ".qweight", "I32", [inp // 8, out], lambda: rng.integers(0, 2**32, (inp // 8, out), np.uint32).tobytes()),
        # v1 stores each zero minus one: 7 is a symmetric zero of 8.
        (m + ".qzeros", "I32", [groups, out // 8], lambda: np.full((groups, out // 8), 0x77777777, np.uint32).tobytes()),
        (m + ".scales", "F16", [groups, out],
         lambda: (rng.random((groups, out), np.float32) * 0.004 + 0.001).astype(np.float16).tobytes()),
    ]


def model_tensors(c, group, desc_act, rng):
    h, v = c["hidden_size"], c["vocab_size"]
    bf16 = lambda n: lambda: ((rng.standard_normal(n, np.float32) * 0.02).view(np.uint32) >> 16).astype(np.uint16).tobytes()
    ones = lambda n: lambda: np.ones(n, np.float32).tobytes()
    out = [("model.embed_tokens.weight", "BF16", [v, h], bf16(v * h)), ("model.norm.weight", "F32", [h], ones(h))]
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        out += [(p + "input_layernorm.weight", "F32", [h], ones(h)), (p + "post_attention_layernorm.weight", "F32", [h], ones(h))]
        for name, (o, i) in shapes(c).items():
            out += gptq_tensors(rng, p + name, o, i, group, desc_act)
    return out


def lora_tensors(c, rank, rng):
    out = []
    for l in range(c["num_hidden_layers"]):
        for name, (o, i) in shapes(c).items():
            p = f"base_model.model.model.layers.{l}.{name}."
            out.append((p + "lora_A.weight", "F32", [rank, i], lambda i=i: (rng.standard_normal((rank, i), np.float32) * 0.01).tobytes()))
            out.append((p + "lora_B.weight", "F32", [o, rank], lambda o=o: (rng.standard_normal((o, rank), np.float32) * 0.01).tobytes()))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--preset", default="llama3.2-1b", choices=sorted(PRESETS))
    ap.add_argument("--group", type=int, default=128)
    ap.add_argument("--desc-act", action="store_true")
    ap.add_argument("--lora-rank", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    c = config(a.preset, a.group, a.desc_act)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "config.json"), "w") as f:
        json.dump(c, f, indent=2)
    write_safetensors(os.path.join(a.out, "model.safetensors"), model_tensors(c, a.group, a.desc_act, rng))
    if a.lora_rank > 0:
        d = os.path.join(a.out, "lora")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "adapter_config.json"), "w") as f:
            json.dump(dict(peft_type="LORA", r=a.lora_rank, lora_alpha=2 * a.lora_rank, lora_dropout=0.0, bias="none",
                           fan_in_fan_out=False, use_rslora=False, use_dora=False, modules_to_save=None,
                           target_modules=sorted(p.split(".")[1] for p in PROJ)), f, indent=2)
        write_safetensors(os.path.join(d, "adapter_model.safetensors"), lora_tensors(c, a.lora_rank, rng))


if __name__ == "__main__":
    main()
