#!/usr/bin/env python3
"""bfloat16 goldens: transformers in bfloat16 and in float32 on one bf16 checkpoint.

Usage:
    bf16_goldens.py --model DIR --requests FILE --out DIR

Writes OUT/reference_bf16.jsonl (transformers with dtype=torch.bfloat16:
bf16 weights and activations), OUT/reference_f32.jsonl (float32 on the same
weights, widened exactly) in hf_logprobs.py's format, and
OUT/derivation.json: the expected per-token difference between the two,
from the rounding model below, and the measured one.

goeval's weight-only bf16 (--dtype bfloat16 on --device cpu) keeps the bf16
weights but computes in float32, so it is the float32 reference up to f32
noise; what separates it from transformers' bf16 run is that run's rounding
of activations to bf16 (8 significant bits, 7 stored: rounding to nearest
has relative error at most u = 2^-8). The model: R roundings along the path
to a logit
(about 20 per decoder layer in eager Llama/Qwen2 -- two per norm, the
projections, rotary, scores and their scaling, softmax output, attention
output, the MLP's four, two residual adds -- plus the final norm's two and
the logits), each an independent relative error of standard deviation
u/sqrt(3) that reaches the last hidden state with gain about 1, perturb it
by a relative eps_h = u*sqrt(R/3); a logit z_j = e_j.h then moves by about
eps_h*sigma_z (sigma_z: the logits' standard deviation over the vocabulary),
a log-prob by dz_t - sum_j p_j dz_j, and rounding the logits themselves adds
u/sqrt(3)*|z|. So per token

    sigma^2 = u^2/3 * (R*sigma_z^2*(1 + sum_j p_j^2) + z_t^2 + sum_j p_j^2 z_j^2).

derivation.json holds that sigma's root mean square and maximum over the
scored tokens (computed from the float32 logits) next to the measured
differences; the Go test (bf16parity_test.go) bounds each token by a
multiple of the maximum and the root mean square by a multiple of the
model's.
"""

import argparse
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from hf_logprobs import load_model, resolve_max_length, score  # noqa: E402

U = 2.0 ** -8  # bf16 unit roundoff: 8 significant bits
ROUNDINGS_PER_LAYER = 20


@torch.no_grad()
def model_sigma(model, ctx, cont, max_len, rounds):
    """The rounding model's sigma for each scored token (float32 logits)."""
    whole = (ctx + cont)[-(max_len + 1):][:-1]
    z = model(input_ids=torch.tensor([whole])).logits[0][-len(cont):].double()
    p = torch.softmax(z, dim=-1)
    out = []
    for i, t in enumerate(cont):
        sz2 = z[i].var(unbiased=False).item()
        sp2 = (p[i] ** 2).sum().item()
        pz2 = ((p[i] * z[i]) ** 2).sum().item()
        out.append(math.sqrt(U * U / 3 * (rounds * sz2 * (1 + sp2) + z[i, t].item() ** 2 + pz2)))
    return out


def rms(xs):
    return math.sqrt(sum(x * x for x in xs) / len(xs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--requests", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    reqs = [json.loads(line) for line in open(args.requests) if line.strip()]
    m32 = load_model(args.model, torch.float32)
    m16 = load_model(args.model, torch.bfloat16)
    max_len = resolve_max_length(m32, 0)
    rounds = ROUNDINGS_PER_LAYER * m32.config.num_hidden_layers + 3
    sigmas, diffs = [], []
    for dtype, model in (("f32", m32), ("bf16", m16)):
        with open(os.path.join(args.out, f"reference_{dtype}.jsonl"), "w") as f:
            for r in reqs:
                lps, flags, greedy = score(model, r["context_ids"], r["continuation_ids"], max_len)
                f.write(json.dumps({"logprob_sum": sum(lps), "is_greedy": all(flags), "token_logprobs": lps,
                                    "token_is_greedy": flags, "greedy_ids": greedy}) + "\n")
    ref = {d: [json.loads(line) for line in open(os.path.join(args.out, f"reference_{d}.jsonl"))] for d in ("f32", "bf16")}
    for r, a, b in zip(reqs, ref["f32"], ref["bf16"]):
        sigmas += model_sigma(m32, r["context_ids"], r["continuation_ids"], max_len, rounds)
        diffs += [abs(x - y) for x, y in zip(a["token_logprobs"], b["token_logprobs"])]
    d = {"unit_roundoff": U, "roundings": rounds, "tokens": len(diffs),
         "model_sigma_rms": rms(sigmas), "model_sigma_max": max(sigmas),
         "measured_rms": rms(diffs), "measured_max": max(diffs)}
    with open(os.path.join(args.out, "derivation.json"), "w") as f:
        json.dump({k: (round(v, 6) if isinstance(v, float) else v) for k, v in d.items()}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
