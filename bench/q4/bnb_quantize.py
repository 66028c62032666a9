"""Quantizes a Hugging Face checkpoint to bitsandbytes 4-bit on the CPU,
as transformers saves an unsloth-style *-bnb-4bit checkpoint, for the
packed 4-bit decode benchmark (bench/q4/decode.sh).

Usage: bnb_quantize.py --model DIR --out DIR [--quant-type nf4|fp4]
         [--double-quant] [--dtype bfloat16|float32]

The unquantized tensors (embedding, norms, a tied LM head) keep --dtype;
every Linear of the decoder becomes Linear4bit with bitsandbytes' default
block size (64). Needs the .venv (torch, transformers, bitsandbytes).
"""

import argparse

import torch
import transformers


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quant-type", default="nf4", choices=["nf4", "fp4"])
    ap.add_argument("--double-quant", action="store_true")
    ap.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float32"])
    args = ap.parse_args()
    dtype = getattr(torch, args.dtype)
    q = transformers.BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=args.quant_type,
                                        bnb_4bit_use_double_quant=args.double_quant,
                                        bnb_4bit_compute_dtype=torch.float32)
    model = transformers.AutoModelForCausalLM.from_pretrained(args.model, quantization_config=q,
                                                              device_map="cpu", dtype=dtype)
    model.save_pretrained(args.out)


if __name__ == "__main__":
    main()
