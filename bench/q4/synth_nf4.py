"""Writes a random bitsandbytes nf4 checkpoint of a Llama shape straight
in its 4-bit form (codes and absmax drawn at random, no float weights),
one tensor at a time, for the peak-RSS check of packed 4-bit weights
(goeval bench score --device cpu --dtype bfloat16 on it): a Llama-3.1-8B
shape's is 5.3 GB and needs no 16 GB float checkpoint first.

Usage: synth_nf4.py --out DIR [--preset llama3.1-8b|llama3.2-1b]
         [--quantize-lm-head] [--seed 1]

Every decoder projection is nf4 in blocks of 64 (float32 absmax, as
transformers saves it without double quantization); the embedding (and
the LM head unless --quantize-lm-head, which transformers never does but
the format allows) bfloat16, the norms float32. Needs numpy.
"""

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from lazyst import write_safetensors  # noqa: E402

PRESETS = {
    "llama3.1-8b": dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                        num_attention_heads=32, num_key_value_heads=8, tie_word_embeddings=False),
    "llama3.2-1b": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
                        num_attention_heads=32, num_key_value_heads=8, tie_word_embeddings=True),
}
NF4 = [-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
       -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
       0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
       0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0]
BLOCK = 64


def config(preset):
    c = dict(architectures=["LlamaForCausalLM"], model_type="llama", vocab_size=128256, head_dim=128 if preset == "llama3.1-8b" else 64,
             hidden_act="silu", max_position_embeddings=131072, rms_norm_eps=1e-5, rope_theta=500000.0,
             rope_scaling=dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                               original_max_position_embeddings=8192),
             attention_bias=False, mlp_bias=False, bos_token_id=128000, eos_token_id=128001, torch_dtype="bfloat16",
             quantization_config=dict(quant_method="bitsandbytes", load_in_4bit=True, load_in_8bit=False,
                                      bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=False,
                                      bnb_4bit_compute_dtype="float32", bnb_4bit_quant_storage="uint8"))
    c.update(PRESETS[preset])
    return c


def tensors(c, quantize_head, rng):
    """(name, dtype, shape, fill) of every tensor, fills made lazily."""
    h, inter, kv = c["hidden_size"], c["intermediate_size"], c["num_key_value_heads"] * c["head_dim"]
    q = c["num_attention_heads"] * c["head_dim"]
    out = []

    def dense(name, shape, dtype):
        n = int(np.prod(shape))
        if dtype == "F32":
            out.append((name, "F32", shape, lambda: np.ones(n, np.float32).tobytes()))
        else:
            out.append((name, "BF16", shape,
                        lambda: (rng.standard_normal(n, np.float32) * 0.02).view(np.uint32).__rshift__(16).astype(np.uint16).tobytes()))

    def nf4(name, shape):
        n = shape[0] * shape[1]
        state = json.dumps(dict(quant_type="nf4", blocksize=BLOCK, dtype="bfloat16", shape=list(shape))).encode()
        out.append((name, "U8", [n // 2, 1], lambda: rng.integers(0, 256, n // 2, dtype=np.uint8).tobytes()))
        out.append((name + ".absmax", "F32", [n // BLOCK],
                    lambda: (rng.random(n // BLOCK, dtype=np.float32) * 0.02 + 0.01).tobytes()))
        out.append((name + ".quant_map", "F32", [16], lambda: np.array(NF4, np.float32).tobytes()))
        out.append((name + ".quant_state.bitsandbytes__nf4", "U8", [len(state)], lambda: state))

    dense("model.embed_tokens.weight", [c["vocab_size"], h], "BF16")
    dense("model.norm.weight", [h], "F32")
    if not c["tie_word_embeddings"]:
        if quantize_head:
            nf4("lm_head.weight", [c["vocab_size"], h])
        else:
            dense("lm_head.weight", [c["vocab_size"], h], "BF16")
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        dense(p + "input_layernorm.weight", [h], "F32")
        dense(p + "post_attention_layernorm.weight", [h], "F32")
        for name, shape in [("self_attn.q_proj", [q, h]), ("self_attn.k_proj", [kv, h]), ("self_attn.v_proj", [kv, h]),
                            ("self_attn.o_proj", [h, q]), ("mlp.gate_proj", [inter, h]), ("mlp.up_proj", [inter, h]),
                            ("mlp.down_proj", [h, inter])]:
            nf4(p + name + ".weight", shape)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--preset", default="llama3.1-8b", choices=sorted(PRESETS))
    ap.add_argument("--quantize-lm-head", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    c = config(args.preset)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(c, f, indent=2)
    off = write_safetensors(os.path.join(args.out, "model.safetensors"), tensors(c, args.quantize_lm_head, rng))
    print(f"{args.out}: {off / 1e9:.2f} GB of tensors")


if __name__ == "__main__":
    main()
