#!/usr/bin/env python3
"""Writes a deterministic scoring request set for the transformers goldens.

Usage: make_requests.py --vocab V --seed S --max-total N --out FILE

Random token ids from a fixed seed (Python's Mersenne Twister, whose output
is stable across versions), with varied shapes: 1-token contexts, 1-token and
long continuations, requests sharing a context (like multiple-choice tasks),
and a few long requests up to --max-total tokens (rope scaling, sliding
windows). The output is byte-deterministic for the same arguments.
"""

import argparse
import json
import random


def ids(rng, vocab, n):
    """n random token ids in [0, vocab)."""
    return [rng.randrange(vocab) for _ in range(n)]


def build(vocab, seed, max_total):
    """Returns the list of requests."""
    rng = random.Random(seed)
    reqs = []
    # Shape coverage: (context length, continuation length).
    shapes = [(1, 1), (1, 5), (1, 24), (2, 1), (3, 7), (5, 2), (8, 8),
              (12, 1), (17, 3), (24, 30), (31, 1), (40, 12)]
    for c, k in shapes:
        reqs.append((ids(rng, vocab, c), ids(rng, vocab, k)))
    # Multiple choice: one context, four continuations of different lengths.
    ctx = ids(rng, vocab, 20)
    for k in (1, 2, 4, 9):
        reqs.append((ctx, ids(rng, vocab, k)))
    # Random shapes.
    for _ in range(8):
        c = rng.randint(1, 48)
        k = rng.randint(1, 16)
        reqs.append((ids(rng, vocab, c), ids(rng, vocab, k)))
    # Long requests: these reach past a small sliding window and the
    # original context of a scaled rope.
    long_shapes = [(max_total // 2, max_total // 4), (max_total - 40, 40),
                   (max_total - 1, 1), (3, max_total - 3)]
    for c, k in long_shapes:
        reqs.append((ids(rng, vocab, c), ids(rng, vocab, k)))
    return [{"context_ids": c, "continuation_ids": k} for c, k in reqs]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vocab", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--max-total", type=int, default=96,
                    help="length of the longest requests (context + continuation)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.max_total < 48:
        raise SystemExit("--max-total must be at least 48")
    with open(args.out, "w") as f:
        for r in build(args.vocab, args.seed, args.max_total):
            f.write(json.dumps(r, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
