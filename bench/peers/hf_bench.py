#!/usr/bin/env python3
"""Hugging Face transformers peer for goeval's scoring and decoding benchmarks.

Usage: hf_bench.py --model DIR [--requests FILE] [--batch-size 8] [--threads 2]
                   [--out FILE] [--max-length N] [--device cpu|cuda]
                   [--dtype float32|bfloat16] [--attn sdpa|eager]
                   [--generate-batches 1,32,128 --prompt-len 128 --steps 32]

Runs {"context_ids","continuation_ids"} requests through transformers on
torch (f32 unless --dtype says otherwise; CPU by default, or --device cuda
with PyTorch's default of no TF32 in matrix products, one untimed warm-up
batch first; attention --attn, default sdpa) the way lm-eval's HF backend
does: requests sorted longest first, batches right-padded to the longest
member, one forward pass per batch, log-softmax over the vocabulary, the
last len(cont) positions of each row scored. Prints tokens/s (tokens =
model input positions, lm-eval's (ctx+cont)[-(L+1):][:-1]) and the model
FLOP/s of goeval's bench.ScoreFLOPs (useful FLOPs, no padding) as one JSON
line on stdout and a summary on stderr.

--generate-batches: then, for each batch size, greedy generate() of --steps
new tokens (EOS ignored) after random prompts of --prompt-len ids, timed
against a one-token generate() of the same prompts: decode tokens/s =
batch × (steps − 1) / (time of steps − time of 1). One JSON line each.
"""

import argparse
import json
import random
import sys
import time

import torch
import transformers


def read_requests(path):
    """Loads the requests, rejecting malformed lines."""
    reqs = []
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            r = json.loads(line)
            if not r.get("context_ids") or not r.get("continuation_ids"):
                raise SystemExit(f"{path}:{i}: need non-empty context_ids and continuation_ids")
            reqs.append((list(r["context_ids"]), list(r["continuation_ids"])))
    return reqs


@torch.no_grad()
def run_batch(model, batch, max_len, pad_id, device="cpu"):
    """Scores one batch of (index, ctx, cont); returns {index: (ll, greedy)}."""
    inputs = [(ctx + cont)[-(max_len + 1):][:-1] for _, ctx, cont in batch]
    width = max(len(x) for x in inputs)
    ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for row, x in enumerate(inputs):
        ids[row, : len(x)] = torch.tensor(x)
        mask[row, : len(x)] = 1
    logits = model(input_ids=ids.to(device), attention_mask=mask.to(device)).logits
    out = {}
    for row, (idx, _, cont) in enumerate(batch):
        n = len(inputs[row])
        lp = torch.log_softmax(logits[row, n - len(cont): n], dim=-1)
        target = torch.tensor(cont, device=lp.device)
        ll = lp.gather(1, target[:, None]).sum().item()
        out[idx] = (ll, bool((lp.argmax(-1) == target).all()))
    return out, sum(len(x) for x in inputs)


def score_flops(cfg, reqs):
    """goeval's bench.ScoreFLOPs: 2 FLOPs per weight and token through the
    decoder layers' linear maps, causal attention, the LM head at the
    scored positions."""
    h, inter = cfg.hidden_size, cfg.intermediate_size
    hd = getattr(cfg, "head_dim", None) or h // cfg.num_attention_heads
    q, kv = cfg.num_attention_heads * hd, (cfg.num_key_value_heads or cfg.num_attention_heads) * hd
    per_token = 2 * (h * q + 2 * h * kv + q * h + 3 * h * inter)
    total = 0.0
    for ctx, cont in reqs:
        t = len(ctx) + len(cont) - 1
        total += cfg.num_hidden_layers * (per_token * t + 4 * q * t * (t + 1) / 2)
        total += 2 * h * cfg.vocab_size * len(cont)
    return total


def sync(device):
    if device != "cpu":
        torch.cuda.synchronize()


@torch.no_grad()
def bench_generate(model, device, batches, prompt_len, steps):
    """Decode tokens/s of greedy generate() per batch size (JSON lines)."""
    rng = random.Random(1)
    vocab = model.config.vocab_size
    pad = model.config.eos_token_id if model.config.eos_token_id is not None else 0
    pad = pad[0] if isinstance(pad, list) else pad

    def timed(ids, n):
        sync(device)
        t0 = time.perf_counter()
        model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=n, min_new_tokens=n,
                       do_sample=False, pad_token_id=pad)
        sync(device)
        return time.perf_counter() - t0

    for b in batches:
        ids = torch.tensor([[rng.randrange(3, vocab) for _ in range(prompt_len)] for _ in range(b)], device=device)
        timed(ids, 2)  # warm-up
        one, full = timed(ids, 1), timed(ids, steps)
        rate = b * (steps - 1) / max(full - one, 1e-9)
        print(f"transformers generate: batch {b}, prompt {prompt_len}, {steps} tokens: {full:.3f} s "
              f"(one token {one:.3f} s), decode {rate:.1f} tokens/s", file=sys.stderr)
        print(json.dumps({"peer": "transformers", "generate_batch": b, "prompt_len": prompt_len, "steps": steps,
                          "seconds": full, "first_token_seconds": one, "decode_tokens_per_s": rate}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--requests", default="")
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-length", type=int, default=0)
    ap.add_argument("--out", default="", help="write per-request results as JSONL")
    ap.add_argument("--device", default="cpu", help="torch device: cpu or cuda")
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    ap.add_argument("--attn", default="sdpa", help="attn_implementation: sdpa or eager")
    ap.add_argument("--generate-batches", default="", help="comma-separated batch sizes of the decode benchmark")
    ap.add_argument("--prompt-len", type=int, default=128)
    ap.add_argument("--steps", type=int, default=32)
    args = ap.parse_args()
    if not args.requests and not args.generate_batches:
        raise SystemExit("hf_bench.py: give --requests, --generate-batches or both")
    torch.set_num_threads(args.threads)
    t_load = time.perf_counter()
    model = transformers.AutoModelForCausalLM.from_pretrained(args.model, dtype=getattr(torch, args.dtype),
                                                              attn_implementation=args.attn)
    model.to(args.device).eval()
    load_s = time.perf_counter() - t_load
    if args.requests:
        score(model, args, load_s)
    if args.generate_batches:
        batches = [int(b) for b in args.generate_batches.split(",")]
        bench_generate(model, args.device, batches, args.prompt_len, args.steps)


def score(model, args, load_s):
    """The scoring benchmark (see the module's doc)."""
    reqs = read_requests(args.requests)
    max_len = args.max_length or model.config.max_position_embeddings
    pad = model.config.eos_token_id if model.config.eos_token_id is not None else 0
    pad = pad[0] if isinstance(pad, list) else pad
    order = sorted(range(len(reqs)), key=lambda i: -len(reqs[i][0] + reqs[i][1]))
    results, tokens = {}, 0
    if args.device != "cpu":  # warm-up: CUDA context, cuBLAS handles, kernels
        run_batch(model, [(i, *reqs[i]) for i in order[: args.batch_size]], max_len, pad, args.device)
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for s in range(0, len(order), args.batch_size):
        batch = [(i, *reqs[i]) for i in order[s: s + args.batch_size]]
        res, n = run_batch(model, batch, max_len, pad, args.device)
        results.update(res)
        tokens += n
    sync(args.device)
    secs = time.perf_counter() - t0
    if args.out:
        with open(args.out, "w") as f:
            for i in range(len(reqs)):
                f.write(json.dumps({"logprob_sum": results[i][0], "is_greedy": results[i][1]}) + "\n")
    where = f"{args.threads} threads" if args.device == "cpu" else torch.cuda.get_device_name()
    gflops = score_flops(model.config, reqs) / secs / 1e9
    print(f"transformers {transformers.__version__} (torch {torch.__version__}, {where}, {args.dtype}, "
          f"batch {args.batch_size}, {model.config._attn_implementation} attention): {len(reqs)} requests, {tokens} tokens in "
          f"{secs:.3f} s = {tokens / secs:.1f} tokens/s, {gflops:.1f} model GFLOP/s (load {load_s:.1f} s)", file=sys.stderr)
    print(json.dumps({"peer": "transformers", "requests": len(reqs), "tokens": tokens,
                      "seconds": secs, "tokens_per_s": tokens / secs, "gflops": gflops, "dtype": args.dtype}))


if __name__ == "__main__":
    main()
