#!/usr/bin/env python3
"""Hugging Face transformers peer for goeval's scoring benchmark.

Usage: hf_bench.py --model DIR --requests FILE [--batch-size 8] [--threads 2]
                   [--out FILE] [--max-length N] [--device cpu|cuda]

Runs {"context_ids","continuation_ids"} requests through transformers on
torch (f32; CPU by default, or --device cuda with PyTorch's default of no
TF32 in matrix products, one untimed warm-up batch first) the way lm-eval's HF backend does: requests sorted longest first,
batches right-padded to the longest member, one forward pass per batch,
log-softmax over the vocabulary, the last len(cont) positions of each row
scored. Prints tokens/s (tokens = model input positions, lm-eval's
(ctx+cont)[-(L+1):][:-1]) as one JSON line on stdout and a summary on stderr.
"""

import argparse
import json
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--requests", required=True)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-length", type=int, default=0)
    ap.add_argument("--out", default="", help="write per-request results as JSONL")
    ap.add_argument("--device", default="cpu", help="torch device: cpu or cuda")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    reqs = read_requests(args.requests)
    t_load = time.perf_counter()
    model = transformers.AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32)
    model.to(args.device).eval()
    load_s = time.perf_counter() - t_load
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
    secs = time.perf_counter() - t0
    if args.out:
        with open(args.out, "w") as f:
            for i in range(len(reqs)):
                f.write(json.dumps({"logprob_sum": results[i][0], "is_greedy": results[i][1]}) + "\n")
    where = f"{args.threads} threads" if args.device == "cpu" else torch.cuda.get_device_name()
    print(f"transformers {transformers.__version__} (torch {torch.__version__}, {where}, "
          f"batch {args.batch_size}, sdpa/default attention): {len(reqs)} requests, {tokens} tokens in "
          f"{secs:.3f} s = {tokens / secs:.1f} tokens/s (load {load_s:.1f} s)", file=sys.stderr)
    print(json.dumps({"peer": "transformers", "requests": len(reqs), "tokens": tokens,
                      "seconds": secs, "tokens_per_s": tokens / secs}))


if __name__ == "__main__":
    main()
