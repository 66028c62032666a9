#!/usr/bin/env python3
"""Reference log-probabilities from Hugging Face transformers (CPU torch, f32).

Usage:
    hf_logprobs.py --model DIR --requests FILE --out FILE [--max-length N] [--dtype bfloat16]

Each input line is one of
    {"context_ids": [int], "continuation_ids": [int]}   (loglikelihood)
    {"ids": [int]} or {"text": str}                     (loglikelihood_rolling)
and produces one output line, in input order:
    {"logprob_sum", "is_greedy", "token_logprobs", "token_is_greedy", "greedy_ids"}
or, for rolling requests, {"logprob_sum", "n_tokens", "n_windows"}.

Semantics follow lm-eval's HF backend (lm_eval/models/huggingface.py:
loglikelihood and loglikelihood_rolling): the model
input is (ctx+cont)[-(max_len+1):][:-1] and the last len(cont) positions are
scored. The model runs in float32 with eager attention, one request per
forward pass (no padding); log-softmax is taken in float64 of the f32 logits.
With --dtype bfloat16 the model runs in bfloat16 instead (weights and
activations, as transformers does with dtype=torch.bfloat16; its matmuls
accumulate in f32 and round their outputs) and log-softmax is taken in
float64 of its bfloat16 logits.
Loading fails on any missing, unexpected or mismatched tensor.
"""

import argparse
import json
import sys

import torch
import transformers


def load_model(model_dir, dtype=torch.float32):
    """Loads a causal LM strictly: any key mismatch is an error."""
    model, info = transformers.AutoModelForCausalLM.from_pretrained(
        model_dir,
        dtype=dtype,
        attn_implementation="eager",
        output_loading_info=True,
    )
    problems = {k: v for k, v in info.items() if v}
    if problems:
        raise SystemExit(f"{model_dir}: loading problems: {problems}")
    model.eval()
    return model


def resolve_max_length(model, override):
    """lm-eval's max_length: the override, else n_positions /
    max_position_embeddings / n_ctx from the config, else 2048."""
    if override:
        return override
    cfg = model.config
    for attr in ("n_positions", "max_position_embeddings", "n_ctx"):
        if getattr(cfg, attr, None):
            return int(getattr(cfg, attr))
    return 2048


@torch.no_grad()
def score(model, ctx, cont, max_len):
    """Scores cont after ctx; returns per-token log-probs and greedy flags."""
    whole = (ctx + cont)[-(max_len + 1):][:-1]
    inp = torch.tensor([whole], dtype=torch.long)
    logits = model(input_ids=inp).logits[0]  # [len(whole), vocab], the model's dtype
    logp = torch.log_softmax(logits[-len(cont):].double(), dim=-1)
    target = torch.tensor(cont, dtype=torch.long)
    tok = logp.gather(1, target[:, None])[:, 0]
    greedy = logp.argmax(dim=-1)
    return tok.tolist(), (greedy == target).tolist(), greedy.tolist()


def rolling_windows(tokens, prefix, max_len):
    """lm-eval's get_rolling_token_windows(context_len=1) + make_disjoint."""
    if not tokens:
        return []
    first = min(max_len, len(tokens))
    wins = [([prefix] + tokens[: first - 1], tokens[:first])]
    pred = first
    while pred < len(tokens):
        w = min(len(tokens) - pred, max_len)
        end = pred + w
        wins.append((tokens[max(end - max_len - 1, 0): end - 1], tokens[end - w: end]))
        pred += w
    out = []
    for inp, predict in wins:
        out.append((inp[: len(inp) - (len(predict) - 1)], predict))
    return out


def prefix_token(model):
    """BOS, else EOS (lm-eval's prefix_token_id)."""
    cfg = model.config
    tok = cfg.bos_token_id if cfg.bos_token_id is not None else cfg.eos_token_id
    if isinstance(tok, list):
        tok = tok[0]
    return int(tok)


def rolling(model, req, model_dir, max_len):
    """Scores a whole token list (or text) with disjoint rolling windows."""
    if "ids" in req:
        tokens = list(req["ids"])
    else:
        tk = transformers.AutoTokenizer.from_pretrained(model_dir)
        tokens = tk(req["text"])["input_ids"]
    total = 0.0
    wins = rolling_windows(tokens, prefix_token(model), max_len)
    for ctx, cont in wins:
        lps, _, _ = score(model, ctx, cont, max_len)
        total += sum(lps)
    return {"logprob_sum": total, "n_tokens": len(tokens), "n_windows": len(wins)}


def handle(model, req, model_dir, max_len, where):
    """Answers one request line."""
    if "context_ids" in req:
        ctx, cont = list(req["context_ids"]), list(req["continuation_ids"])
        if not ctx or not cont:
            raise SystemExit(f"{where}: context_ids and continuation_ids must be non-empty")
        lps, flags, greedy = score(model, ctx, cont, max_len)
        return {
            "logprob_sum": sum(lps),
            "is_greedy": all(flags),
            "token_logprobs": lps,
            "token_is_greedy": flags,
            "greedy_ids": greedy,
        }
    if "ids" in req or "text" in req:
        return rolling(model, req, model_dir, max_len)
    raise SystemExit(f"{where}: need context_ids+continuation_ids, ids or text")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="Hugging Face model folder")
    ap.add_argument("--requests", required=True, help="requests JSONL")
    ap.add_argument("--out", required=True, help="output JSONL")
    ap.add_argument("--max-length", type=int, default=0, help="override lm-eval's max_length")
    ap.add_argument("--dtype", choices=["float32", "bfloat16"], default="float32", help="the model's dtype")
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)  # deterministic reductions, and the machine is shared
    model = load_model(args.model, getattr(torch, args.dtype))
    max_len = resolve_max_length(model, args.max_length)
    with open(args.requests) as f, open(args.out, "w") as out:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            res = handle(model, json.loads(line), args.model, max_len, f"{args.requests}:{i}")
            out.write(json.dumps(res) + "\n")


if __name__ == "__main__":
    sys.exit(main())
