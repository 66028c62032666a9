"""Regenerate truthfulqa_gen's goldens from lm-eval's own functions.

- tasks/testdata/truthfulqa_gen.json: generated truthful_qa `generation`
  documents, lm-eval 0.4.13's process_docs_gen on them (through
  datasets.map, as lm-eval calls it) and process_results_gen on 2,400
  (document, generation) cases (unicode, punctuation, numbers, empty
  generations, repeated words, " . " sentence breaks). Each case's results
  are the function's with sacrebleu's math.exp and math.log correctly
  rounded (mpmath), so that the file does not depend on the machine's
  libm: Go's hook must equal those bit for bit. Where this machine's libm
  (glibc) misrounds, lm-eval's own results differ from them (by an ulp or
  a few in bleu_max and bleu_diff); the script prints how many cases.
- internal/py/testdata/libm.json: math.exp and math.log on BLEU's inputs
  and random ones, correctly rounded (mpmath); the script prints how many
  this Python's libm rounds otherwise.
- metrics/testdata/intl_categories.json: the code points the `regex`
  module's \\p{N}, \\p{P} and \\p{S} match (sacrebleu's intl tokenizer),
  as ranges.

Usage: .venv/bin/python parity/metrics/truthfulqa_golden.py [--check]
With --check, compare with the committed files and exit 1 on any difference.
"""
import json
import math
import os
import random
import sys
import types

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
import datasets  # noqa: E402
import mpmath  # noqa: E402
import numpy as np  # noqa: E402
import regex  # noqa: E402
import sacrebleu.metrics.bleu as sb_bleu  # noqa: E402
import sacrebleu.utils as sb_utils  # noqa: E402
from lm_eval.tasks.truthfulqa import utils  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT_TQA = os.path.join(ROOT, "tasks", "testdata", "truthfulqa_gen.json")
OUT_LIBM = os.path.join(ROOT, "internal", "py", "testdata", "libm.json")
OUT_CATS = os.path.join(ROOT, "metrics", "testdata", "intl_categories.json")

mpmath.mp.prec = 200


def cr_exp(x):
    return float(mpmath.exp(mpmath.mpf(x)))


def cr_log(x):
    if x <= 0:
        raise ValueError("math domain error")
    return float(mpmath.log(mpmath.mpf(x)))


CR_MATH = types.SimpleNamespace(exp=cr_exp, log=cr_log)

PIECES = ["the", "The", "cat", "cats", "a", "A", "is", "not", "no", "comment", "I", "have", "1", "2", "1990",
          "3.14", "1,000", "$5", "5%", "€", "—", "-", "'s", "don't", "U.S.", "Dr.", "é", "naïve", "Straße",
          "İstanbul", "KELVIN", "Kelvin", "日本", "東京です", "Ελλάδα", "ΣΟΦΙΑΣ", "🙂", "©", "+", "=", "(", ")", "\"",
          "?", "!", ",", ".", ":", ";", "...", "–", "¿", "«", "»", "x²", "½", "١٢", "co-op", "e-mail", "A.B.",
          "3.", ".5", "1.5.", "&amp;", "<b>", "#1", "@home", "~", "_", "\\", "/", "Ⅻ", "ǅ"]
SEPS = [" ", " ", " ", " ", "", "  ", "\n", " . ", ". ", "\t"]


def phrase(rnd, n):
    out = []
    for _ in range(rnd.randint(1, n)):
        out.append(rnd.choice(PIECES))
        out.append(rnd.choice(SEPS))
    s = "".join(out[:-1])
    r = rnd.random()
    if r < 0.15:
        s = "  " + s + " \n"
    elif r < 0.3:
        s += "."
    elif r < 0.35:
        s = " ".join([rnd.choice(PIECES)] * rnd.randint(2, 6))
    return s


def answers(rnd, lo, hi, n):
    out = [phrase(rnd, n) for _ in range(rnd.randint(lo, hi))]
    r = rnd.random()
    if r < 0.1:
        out.append("")
    elif r < 0.2:
        out.append("   ")
    elif r < 0.25:
        out.append("I have no comment.")
    elif r < 0.3:
        out.append("I have no comment")
    return out


def make_docs(rnd, n):
    docs = []
    for i in range(n):
        correct = answers(rnd, 0, 4, 8)
        incorrect = answers(rnd, 1, 4, 8)
        if not any(a.strip() for a in incorrect):
            incorrect.append(phrase(rnd, 5))
        docs.append({"type": "Adversarial", "category": "Misconceptions", "question": " " + phrase(rnd, 6) + "? ",
                     "best_answer": correct[0] if correct else "", "correct_answers": correct,
                     "incorrect_answers": incorrect, "source": "https://example.org/%d" % i})
    return docs


def generations(rnd, doc):
    refs = doc["correct_answers"] + doc["incorrect_answers"]
    gens = ["", rnd.choice(refs), rnd.choice(refs) + " " + phrase(rnd, 4), phrase(rnd, 12)]
    if rnd.random() < 0.3:
        gens[0] = rnd.choice(["   ", "\n", ".", " . ", "the the the the the"])
    return gens


def bleu_cr(doc, gen):
    """process_results_gen's bleu_* with correctly rounded exp and log."""
    saved = sb_bleu.math, sb_utils.math
    sb_bleu.math, sb_utils.math = CR_MATH, CR_MATH
    try:
        scores = [utils.bleu([[ref]], [gen]) for ref in doc["correct_answers"] + doc["incorrect_answers"]]
    finally:
        sb_bleu.math, sb_utils.math = saved
    k = len(doc["correct_answers"])
    c, i = np.nanmax(scores[:k]), np.nanmax(scores[k:])
    return {"bleu_max": c, "bleu_acc": int(c > i), "bleu_diff": c - i}


def plain(v):
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    return float(v)


def truthfulqa_golden():
    rnd = random.Random(20261128)
    np.random.seed(0)
    raw = make_docs(rnd, 600)
    processed = [dict(d) for d in utils.process_docs_gen(datasets.Dataset.from_list(raw))]
    cases, libm_differs = [], 0
    for i, doc in enumerate(processed):
        for gen in generations(rnd, doc):
            glibc = {k: plain(v) for k, v in utils.process_results_gen(doc, [gen]).items()}
            cr = dict(glibc, **{k: plain(v) for k, v in bleu_cr(doc, gen).items()})
            libm_differs += cr != glibc
            cases.append({"doc": i, "generation": gen, "results": cr})
    print(f"truthfulqa_gen: {len(cases)} cases, {libm_differs} where glibc's exp/log misround", file=sys.stderr)
    return {"docs": raw, "processed": processed, "cases": cases}


def libm_golden():
    rnd = random.Random(7)
    xs = [0.0, 1.0, -1.0, 1e-300, 700.0, -700.0, 5e-324, 1e308]
    for _ in range(1500):
        c = rnd.randint(1, 80)
        t = rnd.randint(c, 80)
        xs.append(100.0 * c / t)
        xs.append(100.0 / (2 ** rnd.randint(1, 4) * rnd.randint(1, 80)))
        s = rnd.randint(1, 80)
        xs.append(1 - rnd.randint(s, 90) / s)
        xs.append(rnd.uniform(-30, 10))
    out, differs = [], 0
    for x in xs:
        row = {"x": x.hex()}
        if x < 709:
            row["exp"] = cr_exp(x).hex()
            differs += row["exp"] != math.exp(x).hex()
        if x > 0:
            row["log"] = cr_log(x).hex()
            differs += row["log"] != math.log(x).hex()
        out.append(row)
    print(f"libm: {len(out)} inputs, {differs} exp or log values this libm rounds otherwise", file=sys.stderr)
    return out


def categories_golden():
    out = {}
    for name in ("N", "P", "S"):
        pat = regex.compile(r"\p{%s}" % name)
        ranges, start, prev = [], None, None
        for c in range(0x110000):
            if 0xD800 <= c < 0xE000 or not pat.match(chr(c)):
                continue
            if prev is not None and c == prev + 1:
                prev = c
                continue
            if start is not None:
                ranges.append([start, prev])
            start = prev = c
        ranges.append([start, prev])
        out[name] = ranges
    out["regex"] = regex.__version__
    return out


def emit(path, value, check):
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n"
    if check:
        with open(path, encoding="utf-8") as f:
            if f.read() != text:
                print(f"{path} differs from lm-eval; rerun without --check and review the diff", file=sys.stderr)
                return False
        return True
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return True


def main():
    check = "--check" in sys.argv
    ok = emit(OUT_CATS, categories_golden(), check)
    ok = emit(OUT_LIBM, libm_golden(), check) and ok
    ok = emit(OUT_TQA, truthfulqa_golden(), check) and ok
    if not ok:
        sys.exit(1)
    print("truthfulqa goldens " + ("match" if check else "written"))


if __name__ == "__main__":
    main()
