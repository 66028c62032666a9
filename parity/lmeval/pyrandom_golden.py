"""Golden values of CPython's random.Random(seed).sample for tasks/pyrandom_test.go.

Usage: python pyrandom_golden.py OUT.json   (writes the golden)
       python pyrandom_golden.py --check tasks/testdata/pyrandom.json
"""
import json
import random
import sys

SEEDS = [0, 1, 1234, 42, 2**40 + 5, -7, 2**32]
CASES = [(10, 3), (10, 10), (30, 6), (100, 5), (100, 9), (1000, 40), (7, 1), (21, 6), (200, 20), (5, 0)]


def golden():
    out = []
    for seed in SEEDS:
        rnd = random.Random(seed)
        bits = [rnd.getrandbits(32) for _ in range(3)]
        draws = [{"n": n, "k": k, "sample": rnd.sample(range(n), k)} for n, k in CASES]
        out.append({"seed": seed, "bits32": bits, "draws": draws})
    return json.dumps(out, indent=1) + "\n"


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        want = open(sys.argv[2]).read()
        if want != golden():
            sys.exit("pyrandom golden differs from CPython: regenerate it")
        print("pyrandom golden: identical")
    else:
        open(sys.argv[1], "w").write(golden())
