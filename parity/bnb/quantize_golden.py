#!/usr/bin/env python3
"""Golden for goeval's --load-in-4bit quantizer (models/bnb_quantize.go):
bitsandbytes.functional.quantize_4bit on the CPU of synthesized float32
tensors, nf4 and fp4, several block sizes, ragged and odd lengths, an
all-zero block and values on the code book's midpoints (ties).

Usage:
    quantize_golden.py [--out models/testdata/bnb_quantize/golden.safetensors] [--check]

Needs bitsandbytes (parity/requirements.lock pins it). Writes one
safetensors file; for case NAME: NAME.x (float32 input), NAME.packed
(uint8 codes) and NAME.absmax (float32), the case's quant type and block
size in the metadata as NAME = "quant_type/blocksize". goeval's codes
and absmax must be bit-identical. With --check, the cases are recomputed and
any difference from the committed file (a tensor's bits, a case, its
metadata) is an error (exit 1).
"""
import argparse
import json

import torch
import bitsandbytes.functional as F
from bitsandbytes.functional import get_4bit_type
from safetensors import safe_open
from safetensors.torch import save_file


def inputs(gen):
    """Named float32 inputs."""
    out = {}
    out["randn"] = torch.randn(64 * 12, generator=gen)
    out["ragged_odd"] = torch.randn(64 * 3 + 17, generator=gen) * 0.02
    z = torch.randn(64 * 4, generator=gen)
    z[64:128] = 0
    out["zero_block"] = z
    out["bf16"] = (torch.randn(256 * 3, generator=gen) * 0.05).bfloat16().float()
    return out


def ties(quant_type):
    """Values on every midpoint of the sorted code book (absmax 1)."""
    code = get_4bit_type(quant_type, device="cpu")
    s = code.sort().values
    mids = (s[:-1] + s[1:]) / 2
    v = torch.cat([torch.tensor([1.0]), mids, -mids, torch.tensor([0.0, -0.0, 1e-3, -1e-3, 2e-3])])
    return torch.cat([v, torch.zeros(64 - v.numel() % 64)]).float()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="models/testdata/bnb_quantize/golden.safetensors")
    ap.add_argument("--check", action="store_true", help="recompute and compare with the committed file")
    args = ap.parse_args()
    gen = torch.Generator().manual_seed(40)
    base = inputs(gen)
    tensors, meta = {}, {}
    for qt in ("nf4", "fp4"):
        cases = dict(base, ties=ties(qt))
        for bs in (64, 128, 256):
            for name, x in cases.items():
                key = f"{qt}_{bs}_{name}"
                q, st = F.quantize_4bit(x, blocksize=bs, quant_type=qt)
                tensors[key + ".x"] = x.clone()
                tensors[key + ".packed"] = q.reshape(-1).clone()
                tensors[key + ".absmax"] = st.absmax.float().clone()
                meta[key] = f"{qt}/{bs}"
    if args.check:
        return check(args.out, tensors, meta)
    save_file(tensors, args.out, metadata=meta)
    print(json.dumps({"cases": len(meta), "out": args.out}))
    return 0


def check(path, tensors, meta):
    """Compares the recomputed tensors and metadata with path's; returns 1 on a difference."""
    bad = []
    with safe_open(path, "pt") as f:
        if (f.metadata() or {}) != meta:
            bad.append("metadata differs")
        if set(f.keys()) != set(tensors):
            bad.append(f"tensors differ: {sorted(set(f.keys()) ^ set(tensors))[:5]}")
        for k in sorted(set(f.keys()) & set(tensors)):
            old, new = f.get_tensor(k), tensors[k]
            if old.dtype != new.dtype or old.shape != new.shape or not torch.equal(old.view(torch.uint8), new.contiguous().view(torch.uint8)):
                bad.append(f"{k}: differs from bitsandbytes' quantize_4bit")
    for b in bad[:20]:
        print(f"{path}: {b}")
    print("quantize_4bit golden:", "FAIL" if bad else "match")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
