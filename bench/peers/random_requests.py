#!/usr/bin/env python3
"""Seeded random scoring requests of one shape, for the peer benchmarks.

Usage: random_requests.py CONFIG_JSON N CONTEXT CONTINUATION > requests.jsonl

N lines of {"context_ids", "continuation_ids"}: CONTEXT + CONTINUATION ids
drawn from the model's vocabulary (config.json's vocab_size) with Python's
Random(1), so every engine scores the same requests.
"""
import json
import random
import sys

vocab = json.load(open(sys.argv[1]))["vocab_size"]
n, c, k = map(int, sys.argv[2:5])
rng = random.Random(1)
for _ in range(n):
    ids = [rng.randrange(vocab) for _ in range(c + k)]
    print(json.dumps({"context_ids": ids[:c], "continuation_ids": ids[c:]}))
