#!/usr/bin/env python3
"""Reference log-probabilities from Hugging Face transformers (CPU torch).

Usage:
    hf_logprobs.py --model DIR --requests FILE --out FILE [--max-length N]
                   [--dtype float32|bfloat16|float16] [--greedy-requests N]

Each input line is one of
    {"context_ids": [int], "continuation_ids": [int]}   (loglikelihood)
    {"ids": [int]} or {"text": str}                     (loglikelihood_rolling)
and produces one output line, in input order:
    {"logprob_sum", "is_greedy", "token_logprobs", "token_is_greedy", "greedy_ids"}
or, for rolling requests, {"logprob_sum", "n_tokens", "n_windows"}. In
bfloat16 and float16 a context+continuation line also has "logit_absmax"
and "top2_logprobs" per token (score_detail), which bound and place the
rounding differences parity/models/dtype_test.go allows.

Semantics follow lm-eval's HF backend (lm_eval/models/huggingface.py:
loglikelihood and loglikelihood_rolling): the model
input is (ctx+cont)[-(max_len+1):][:-1] and the last len(cont) positions are
scored. The model runs in --dtype (default float32; weights converted
from the checkpoint's dtype by torch, round to nearest even) with eager
attention, one request per forward pass (no padding); log-softmax is taken
in float64 of the logits the model returns (in --dtype). Loading fails on
any missing, unexpected or mismatched tensor.
"""

import argparse
import json
import sys

import torch
import transformers


DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def load_model(model_dir, dtype="float32", **kwargs):
    """Loads a causal LM strictly in dtype (a DTYPES key): any key mismatch
    is an error. kwargs go to from_pretrained as well (device_map)."""
    model, info = transformers.AutoModelForCausalLM.from_pretrained(
        model_dir,
        dtype=DTYPES[dtype],
        attn_implementation="eager",
        output_loading_info=True,
        **kwargs,
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
    d = score_detail(model, ctx, cont, max_len)
    return d["token_logprobs"], d["token_is_greedy"], d["greedy_ids"]


def golden_lines(model, reqs):
    """The golden line of each loglikelihood request (context_ids,
    continuation_ids) as the arch, bnb, quant and LoRA goldens record it:
    the sum, the greedy flag, per-token log-probs and argmax ids."""
    out = []
    for r in reqs:
        lps, flags, greedy = score(model, r["context_ids"], r["continuation_ids"], 1 << 20)
        out.append({"logprob_sum": sum(lps), "is_greedy": all(flags), "token_logprobs": lps, "greedy_ids": greedy})
    return out


@torch.no_grad()
def score_detail(model, ctx, cont, max_len):
    """Scores cont after ctx: per-token log-probs, greedy flags and argmax
    ids, and the two the dtype goldens also record: each scored position's
    largest |logit| (the scale of its rounding error) and its two largest
    log-probs (how near a tie its argmax is)."""
    whole = (ctx + cont)[-(max_len + 1):][:-1]
    inp = torch.tensor([whole], dtype=torch.long)
    logits = model(input_ids=inp).logits[0][-len(cont):]  # [len(cont), vocab], in the model's dtype
    logp = torch.log_softmax(logits.double(), dim=-1)
    target = torch.tensor(cont, dtype=torch.long)
    tok = logp.gather(1, target[:, None])[:, 0]
    greedy = logp.argmax(dim=-1)
    return {
        "token_logprobs": tok.tolist(),
        "token_is_greedy": (greedy == target).tolist(),
        "greedy_ids": greedy.tolist(),
        "logit_absmax": logits.double().abs().max(dim=-1).values.tolist(),
        "top2_logprobs": logp.topk(2, dim=-1).values.tolist(),
    }


@torch.no_grad()
def greedy_continuation(model, ctx, n, max_len):
    """The n tokens greedy decoding appends to ctx (argmax of each next
    position's log-probs, one full forward per token)."""
    out = []
    for _ in range(n):
        whole = (ctx + out)[-max_len:]
        logits = model(input_ids=torch.tensor([whole], dtype=torch.long)).logits[0, -1]
        out.append(int(torch.log_softmax(logits.double(), dim=-1).argmax()))
    return out


def greedy_requests(model, reqs, n, max_len):
    """Requests whose continuation is the model's greedy one: for each
    distinct context of reqs, in order, its n greedy tokens. Scored by the
    same model they are greedy by construction, so the half-precision
    goldens have greedy requests whose is_greedy can be checked."""
    seen, out = set(), []
    for r in reqs:
        ctx = list(r["context_ids"])
        if tuple(ctx) not in seen:
            seen.add(tuple(ctx))
            out.append({"context_ids": ctx, "continuation_ids": greedy_continuation(model, ctx, n, max_len)})
    return out


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


def handle(model, req, model_dir, max_len, where, detail=False):
    """Answers one request line (with detail, a context+continuation line
    also gets logit_absmax and top2_logprobs: score_detail)."""
    if "context_ids" in req:
        ctx, cont = list(req["context_ids"]), list(req["continuation_ids"])
        if not ctx or not cont:
            raise SystemExit(f"{where}: context_ids and continuation_ids must be non-empty")
        d = score_detail(model, ctx, cont, max_len)
        out = {"logprob_sum": sum(d["token_logprobs"]), "is_greedy": all(d["token_is_greedy"])}
        keys = ["token_logprobs", "token_is_greedy", "greedy_ids"]
        return out | {k: d[k] for k in keys + (["logit_absmax", "top2_logprobs"] if detail else [])}
    if "ids" in req or "text" in req:
        return rolling(model, req, model_dir, max_len)
    raise SystemExit(f"{where}: need context_ids+continuation_ids, ids or text")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="Hugging Face model folder")
    ap.add_argument("--requests", required=True, help="requests JSONL")
    ap.add_argument("--out", required=True, help="output JSONL")
    ap.add_argument("--max-length", type=int, default=0, help="override lm-eval's max_length")
    ap.add_argument("--dtype", default="float32", choices=sorted(DTYPES), help="the model's dtype (transformers' dtype=)")
    ap.add_argument("--greedy-requests", type=int, default=0, metavar="N",
                    help="write, instead of log-probs, one request per distinct context of --requests with the model's N greedy tokens as continuation (greedy_requests)")
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)  # deterministic reductions, and the machine is shared
    model = load_model(args.model, args.dtype)
    max_len = resolve_max_length(model, args.max_length)
    if args.greedy_requests:
        with open(args.requests) as f:
            reqs = [json.loads(x) for x in f if x.strip()]
        with open(args.out, "w") as out:
            out.writelines(json.dumps(r) + "\n" for r in greedy_requests(model, reqs, args.greedy_requests, max_len))
        return 0
    with open(args.requests) as f, open(args.out, "w") as out:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            res = handle(model, json.loads(line), args.model, max_len, f"{args.requests}:{i}", args.dtype != "float32")
            out.write(json.dumps(res) + "\n")


if __name__ == "__main__":
    sys.exit(main())
