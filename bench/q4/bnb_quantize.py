"""Quantizes a Hugging Face checkpoint to bitsandbytes 4-bit on the CPU,
as transformers saves an unsloth-style *-bnb-4bit checkpoint, for the
packed 4-bit decode benchmark (bench/q4/decode.sh).

Usage: bnb_quantize.py --model DIR --out DIR [--quant-type nf4|fp4]
         [--double-quant] [--dtype bfloat16|float32] [--quantize-lm-head]

The unquantized tensors (embedding, norms, a tied LM head) keep --dtype;
every Linear of the decoder becomes Linear4bit with bitsandbytes' default
block size (64). --quantize-lm-head quantizes the LM head too
(llm_int8_skip_modules=[]; transformers' default keeps it), untying it
from the embedding first if it is tied: the 4-bit head a llama.cpp Q4_0
file has. Needs the .venv (torch, transformers, bitsandbytes).
"""

import argparse
import tempfile

import torch
import transformers


def untied_copy(src, dtype, tmp):
    """Saves src with its LM head as its own copy of the embedding into tmp."""
    cfg = transformers.AutoConfig.from_pretrained(src)
    if not getattr(cfg, "tie_word_embeddings", False):
        return src
    model = transformers.AutoModelForCausalLM.from_pretrained(src, dtype=dtype)
    head = model.get_input_embeddings().weight.detach().clone()
    model.config.tie_word_embeddings = False
    model.lm_head = torch.nn.Linear(head.shape[1], head.shape[0], bias=False, dtype=dtype)
    model.lm_head.weight = torch.nn.Parameter(head)
    model.save_pretrained(tmp)
    return tmp


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quant-type", default="nf4", choices=["nf4", "fp4"])
    ap.add_argument("--double-quant", action="store_true")
    ap.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float32"])
    ap.add_argument("--quantize-lm-head", action="store_true")
    args = ap.parse_args()
    dtype = getattr(torch, args.dtype)
    extra = {"llm_int8_skip_modules": []} if args.quantize_lm_head else {}
    q = transformers.BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=args.quant_type,
                                        bnb_4bit_use_double_quant=args.double_quant,
                                        bnb_4bit_compute_dtype=torch.float32, **extra)
    with tempfile.TemporaryDirectory() as tmp:
        src = untied_copy(args.model, dtype, tmp) if args.quantize_lm_head else args.model
        model = transformers.AutoModelForCausalLM.from_pretrained(src, quantization_config=q,
                                                                  device_map="cpu", dtype=dtype)
        model.save_pretrained(args.out)


if __name__ == "__main__":
    main()
