"""Regenerate metrics/mathverify/testdata/isequiv.jsonl.gz: pairs of
normalised answers with lm-eval's minerva_math is_equiv verdicts (sympy's
parse_latex, then simplify(a - b) == 0 under a 5 s timeout), for goeval's
Go IsEquiv.

Usage: python parity/minerva/golden.py [--check] [--jobs N]

The pairs are minerva_math's view of answers: both sides went through
lm-eval's normalize_final_answer (the gold after remove_boxed(last_boxed_
only_string(solution)), the prediction after get_unnormalized_answer when
the text has a "Final Answer" line, else its last \\boxed{}, else the text).
They come from
  - the math-verify corpus (metrics/mathverify/testdata/corpus.jsonl.gz:
    math-verify's own tests and MATH-style variants in solution texts),
  - parity/mathverify/cases.py's answer families drawn again with another
    seed: each answer against its equal spellings, near misses, malformed
    LaTeX and the other spellings of the same answer,
  - the hand-written edge pairs of cases.py and minerva_cases below.

Each line after the header is {"a": prediction, "b": gold, "v": 0|1}, the
verdict of is_equiv(a, b) as process_results calls it. Pairs whose call
takes 4.5 s or more (sympy's 5 s timeout, which the verdict would then
depend on the machine) are dropped and listed in the header's "dropped".

With --check, the verdicts are recomputed and compared with the committed
file; exit 1 on any difference.
"""
import argparse
import gzip
import json
import multiprocessing
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "mathverify"))
import cases  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "metrics", "mathverify", "testdata", "isequiv.jsonl.gz")
MV_CORPUS = os.path.join(HERE, "..", "..", "metrics", "mathverify", "testdata", "corpus.jsonl.gz")
SEED = 20261128
N_ANSWERS = 2600
SLOW = 4.5

# Answers as minerva's normalisation leaves them that the families miss.
MINERVA_CASES = [
    ("1+x^2", "x^2+1"), ("x^2+1", "(x+1)^2-2x"), ("\\pi", "3.14159"), ("2\\pi", "\\pi2"), ("2\\pi", "6.28"),
    ("e", "2.718"), ("i", "\\sqrt{-1}"), ("50\\%", "50"), ("50\\%", "\\frac{1}{2}"), ("\\$5", "5"),
    ("[2,5)", "[2,5)"), ("(1,2)", "(1,2)"), ("(1,2)", "(2,1)"), ("1,2", "1"), ("1,2", "2,1"), ("\\{1,2\\}", "\\{2,1\\}"),
    ("x=5", "5"), ("5", "x=5"), ("\\pm3", "3"), ("\\pm\\sqrt{2}", "\\pm\\sqrt{2}"), ("30", "30^\\circ"),
    ("\\infty", "\\infty"), ("-\\infty", "-\\infty"), ("\\infty", "oo"), ("\\frac12", "0.5"), ("\\frac{1}{2}", "0.5"),
    ("0.5", "0.50"), ("0.1+0.2", "0.3"), ("1/3", "0.333333333333333"), ("\\frac{1}{3}", "0.3333333333333333333"),
    ("3.0", "3"), ("3", "3.00"), ("1,000", "1000"), ("1{,}000", "1000"), ("10^3", "1000"), ("2^10", "1024"),
    ("2^{10}", "1024"), ("x^2y", "yx^2"), ("xy", "yx"), ("ab", "ba"), ("a(b+c)", "ab+ac"), ("f(x)", "f(x)"),
    ("\\sqrt{8}", "2\\sqrt{2}"), ("\\sqrt[3]{8}", "2"), ("\\sqrt{x^2}", "x"), ("|x|", "\\sqrt{x^2}"), ("|-3|", "3"),
    ("\\sin^2x+\\cos^2x", "1"), ("\\log_28", "3"), ("\\ln(e)", "1"), ("\\exp(0)", "1"), ("e^0", "1"),
    ("5!", "120"), ("\\binom{5}{2}", "10"), ("\\dbinom{5}{2}", "10"), ("\\lfloor2.5\\rfloor", "2"), ("\\lceil2.5\\rceil", "3"),
    ("3:4", "\\frac{3}{4}"), ("3\\div4", "0.75"), ("2\\times3", "6"), ("2\\cdot3", "6"), ("2*3", "6"), ("6/4", "\\frac{3}{2}"),
    ("x<5", "x<5"), ("x<5", "5>x"), ("x\\le5", "x\\leq5"), ("a=b", "a=b"), ("\\text{A}", "A"), ("A", "A"), ("A", "B"),
    ("\\mathbf{A}", "A"), ("\\overline{3}", "3"), ("0.\\overline{3}", "\\frac{1}{3}"), ("\\alpha", "\\alpha"),
    ("\\alpha+\\beta", "\\beta+\\alpha"), ("\\frac{\\pi}{2}", "\\pi/2"), ("\\tfrac{1}{2}", "\\frac{1}{2}"),
    ("\\left(3\\right)", "3"), ("\\left|x\\right|", "|x|"), ("\\$", "0"), ("", ""), ("", "0"), ("[invalidanswer]", "5"),
    ("5", "5."), ("5.", "5"), (".5", "0.5"), ("0.5", ".5"), ("1e5", "100000"), ("1.5\\times10^3", "1500"),
    ("\\frac{1}{0}", "\\infty"), ("\\frac{0}{0}", "\\frac{0}{0}"), ("0^0", "1"), ("x^0", "1"), ("\\frac{x}{x}", "1"),
    ("\\sin(\\pi)", "0"), ("\\sin\\pi", "0"), ("\\cos(0)", "1"), ("\\tan^{-1}(1)", "\\frac{\\pi}{4}"),
    ("\\arctan(1)", "\\frac{\\pi}{4}"), ("\\sin^{-1}x", "\\arcsin x"), ("2^{-1}", "\\frac{1}{2}"), ("-2^2", "-4"),
    ("(-2)^2", "4"), ("1-2-3", "-4"), ("1-(2-3)", "2"), ("8/4/2", "1"), ("2^3^2", "64"), ("2^{3^2}", "512"),
    ("x'", "x'"), ("y_1", "y_{1}"), ("a_{n+1}", "a_{1+n}"), ("dx", "xd"), ("d", "d"), ("\\int_0^1x\\,dx", "\\frac{1}{2}"),
    ("\\sum_{k=1}^{3}k", "6"), ("\\prod_{k=1}^{3}k", "6"), ("\\lim_{x\\to0}x", "0"), ("3!!", "720"),
    ("2x3", "6"), ("2\\cdotx", "2x"), ("1+", "1"), ("1+2+", "3"), ("(1+2", "3"), ("1+2)", "3"), ("\\frac{1}{2", "0.5"),
    ("\\sqrt{2", "\\sqrt{2}"), ("x^", "x"), ("5)\\%", "5"), ("\\sqrt{-4}", "2i"), ("(-8)^{1/3}", "-2"),
    ("\\sqrt{2}\\sqrt{3}", "\\sqrt{6}"), ("\\frac{1}{\\sqrt{2}}", "\\frac{\\sqrt{2}}{2}"), ("10^{100}", "10^{100}+1"),
    ("2^{1000}", "2^{1000}"), ("\\frac{2}{4}", "\\frac{1}{2}"), ("1\\frac{1}{2}", "\\frac{3}{2}"), ("1\\frac{1}{2}", "\\frac{1}{2}"),
    ("\\begin{pmatrix}1\\\\2\\end{pmatrix}", "\\begin{pmatrix}1\\\\2\\end{pmatrix}"), ("\\begin{pmatrix}1\\\\2\\end{pmatrix}", "(1,2)"),
]


def lm_utils():
    from lm_eval.tasks.minerva_math import utils
    return utils


def minerva_gold(u, text):
    try:
        return u.normalize_final_answer(u.remove_boxed(u.last_boxed_only_string(text)))
    except (AssertionError, TypeError, IndexError):
        return u.normalize_final_answer(text)


def minerva_pred(u, text):
    a = u.get_unnormalized_answer(text)
    if a == "[invalidanswer]" and "Final Answer" not in text:
        return minerva_gold(u, text)
    return u.normalize_final_answer(a)


def pairs():
    u = lm_utils()
    out = []
    with gzip.open(MV_CORPUS, "rt", encoding="utf-8") as f:
        for line in list(f)[1:]:
            r = json.loads(line)
            out.append((minerva_pred(u, r["p"]), minerva_gold(u, r["g"])))
    r = random.Random(SEED)
    fams = [f for f, w in cases.FAMILIES for _ in range(w)]
    for _ in range(N_ANSWERS):
        gold, eq, near = r.choice(fams)(r)
        preds = list(eq) + list(near) + [cases.malformed(r, r.choice(eq + [gold])) for _ in range(2)] + [gold]
        preds += [r.choice(eq) for _ in range(1)]
        g = u.normalize_final_answer(gold)
        for p in preds:
            out.append((u.normalize_final_answer(p), g))
        if len(eq) > 1:
            a, b = r.sample(eq, 2)
            out.append((u.normalize_final_answer(a), u.normalize_final_answer(b)))
    for g, p in cases.EDGE_PAIRS:
        out.append((minerva_pred(u, p), minerva_gold(u, g)))
        out.append((u.normalize_final_answer(p.strip("$")), u.normalize_final_answer(g.strip("$"))))
    for a, b in MINERVA_CASES:
        out += [(a, b), (b, a)]
    seen, uniq = set(), []
    for it in out:
        if it not in seen:
            seen.add(it)
            uniq.append(it)
    return uniq


def verdict(item):
    a, b = item
    u = lm_utils()
    t0 = time.monotonic()
    v = int(bool(u.is_equiv(a, b)))
    return v, time.monotonic() - t0


def build(jobs):
    items = pairs()
    with multiprocessing.Pool(jobs, maxtasksperchild=5000) as pool:
        res = pool.map(verdict, items, chunksize=32)
    rows, dropped = [], []
    for (a, b), (v, dt) in zip(items, res):
        if dt >= SLOW:
            dropped.append([a, b])
        else:
            rows.append(dict(a=a, b=b, v=v))
    return rows, dropped


def pinned(name):
    with open(os.path.join(HERE, "..", "requirements.lock")) as f:
        for line in f:
            if line.lower().startswith(name.lower() + "=="):
                return line.split("==")[1].strip()
    raise SystemExit(f"{name} is not pinned in parity/requirements.lock")


def header(dropped):
    return {"lm_eval": pinned("lm_eval"), "sympy": pinned("sympy"),
            "antlr4-python3-runtime": pinned("antlr4-python3-runtime"), "dropped": dropped}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--jobs", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    args = ap.parse_args()
    rows, dropped = build(args.jobs)
    if args.check:
        with gzip.open(OUT, "rt", encoding="utf-8") as f:
            lines = [json.loads(l) for l in f]
        old, olddrop = lines[1:], lines[0].get("dropped", [])
        # a pair near the timeout may land on either side on another machine
        slow = {tuple(d) for d in dropped} | {tuple(d) for d in olddrop}
        old = [r for r in old if (r["a"], r["b"]) not in slow]
        new = [r for r in rows if (r["a"], r["b"]) not in slow]
        diff = [(x, y) for x, y in zip(old, new) if x != y]
        if len(old) != len(new) or diff:
            print(f"is_equiv golden differs: {len(old)} vs {len(new)} rows, {len(diff)} changed")
            for x, y in diff[:20]:
                print(" committed:", json.dumps(x)[:300], "\n live:     ", json.dumps(y)[:300])
            sys.exit(1)
        print(f"is_equiv golden ok: {len(new)} pairs ({len(slow)} slow pairs left out)")
        return
    with open(OUT, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write((json.dumps(header(dropped), ensure_ascii=False) + "\n").encode())
        for r in rows:
            gz.write((json.dumps(r, ensure_ascii=False) + "\n").encode())
    ones = sum(r["v"] for r in rows)
    print(f"wrote {OUT}: {len(rows)} pairs, {ones} equal, {len(dropped)} dropped (slow)")


if __name__ == "__main__":
    main()
