"""Regenerate metrics/testdata/golden.json from lm-eval's own functions.

Usage: .venv/bin/python parity/metrics/golden.py [--check]
With --check, compare with the committed file and exit 1 on any difference.
"""
import json, math, os, sys

os.environ["DISABLE_MULTIPROC"] = "1"
import numpy as np
from lm_eval.api import metrics as M
from lm_eval.filters.extraction import RegexFilter
from lm_eval.tasks.drop import utils as drop

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "metrics", "testdata", "golden.json")

EM = [
    # gsm8k's metric kwargs
    dict(pred="18", ref="Janet sells 16 - 3 - 4 = 9 duck eggs.\n#### 18", regexes=[",", "\\$", "(?s).*#### ", "\\.$"], ic=True, ip=False, inum=False),
    dict(pred="$1,000.", ref="#### 1000", regexes=[",", "\\$", "(?s).*#### ", "\\.$"], ic=True, ip=False, inum=False),
    dict(pred="42.\n", ref="42", regexes=["\\.$"], ic=False, ip=False, inum=False),
    dict(pred="Hello, World!", ref="hello world", regexes=[], ic=True, ip=True, inum=False),
    dict(pred="abc123", ref="ABC", regexes=[], ic=True, ip=False, inum=True),
    dict(pred="İX", ref="i̇", regexes=[], ic=True, ip=False, inum=False),
    dict(pred="ΑΣ", ref="ας", regexes=[], ic=True, ip=False, inum=False),
    dict(pred="a ", ref="a", regexes=[], ic=False, ip=False, inum=False),
    dict(pred="b\x00", ref="b", regexes=[], ic=False, ip=False, inum=False),
    dict(pred="x\u00a0y", ref="xy", regexes=["\\s"], ic=False, ip=False, inum=False),
    dict(pred="a\x1cb", ref="ab", regexes=["\\s"], ic=False, ip=False, inum=False),
    dict(pred="The answer is 5", ref="5", regexes=["^The answer is "], ic=False, ip=False, inum=False),
    dict(pred="straße", ref="STRASS", regexes=[], ic=False, ip=False, inum=False),
]

FILTERS = [
    ("#### (\\-?[0-9\\.\\,]+)", 0, "So 3+4=7.\n#### 7"),
    ("#### (\\-?[0-9\\.\\,]+)", 0, "no answer here"),
    ("(-?[$0-9.,]{2,})|(-?[0-9]+)", -1, "First 12 then $3,400.50 and 7"),
    ("(-?[$0-9.,]{2,})|(-?[0-9]+)", -1, "only 7"),
    ("(-?[$0-9.,]{2,})|(-?[0-9]+)", -1, "nothing"),
    ("The answer is (\\-?[0-9\\.\\,]+).", 0, "so The answer is 1,234. Done"),
    ("[A-D]", 0, "  B) because"),
    ("(?P<x>\\w+)@(\\w+)", 0, "mail joe@example now"),
    ("\\b\\w+\\b", -1, "héllo wörld"),
    ("(a)|(b)", 0, "b"),
    ("x*", 1, "abx"),
]

DROP = [
    ("5", [["5"]]), ("five", [["5"]]), ("The 1,000 men", [["1000 men"]]),
    ("1e16", [["10000000000000000"]]), ("New York-based", [["new york based"]]),
    ("the Bears", [["Bears"], ["Chicago Bears"]]), ("2 yards", [["2"], ["  "]]),
    ("December 1998", [["1998"], ["December 1998"]]), ("Ann", [["Ann", "Bob"]]),
    ("3.50", [["3.5"]]), ("an apple a day", [["apple day"]]), ("1_000", [["1000"]]),
    ("inf", [["Infinity"]]), ("nan", [["NaN"]]), ("", [["x"]]), ("x", [[" "]]),
]
NORMALIZE = ["The Cat-sat on the mat.", "1,000", "$5", "-5", "5.", "1e6", "0.0001", "0.00001",
             "３", "a  b", "Hello-World--x", "isn't", "NaN", "12:30"]
FLOATS = ["5", " 5 ", "1_000", "1__0", "_1", "1_", "0x10", "inf", "-Infinity", "nan", "1e", ".5", "5.", ".", "1e500",
          "٣", "+.5e-3", "1 000", "", "e5"]
REPRS = [5.0, 0.1, 1e16, 1e15, 123456789012345678.0, 1e-4, 1e-5, 1.5e-7, -0.0, 2.5, 1e100, 3.14159e20, 1/3]


# (reference, prediction) corpora for lm-eval's bleu and chrf aggregations
# (sacrebleu corpus_bleu / corpus_chrf with their defaults).
SACRE = [
    [("The cat sat on the mat.", "The cat sat on the mat."), ("It is raining today.", "Today it rains.")],
    [("Paris", "Paris"), ("Tokyo", "tokyo"), ("New Delhi", "Delhi"), ("Ottawa", "")],
    [("Der schnelle braune Fuchs springt über den faulen Hund.", "Der braune Fuchs springt schnell über den Hund!"),
     ("Preise: 3,50 € bzw. 4.20 $ (inkl. MwSt.)", "Preis 3,50€ bzw 4.20$ inkl. MwSt"),
     ("e-mail: a&amp;b <x@y.z> 1990-2000", "email a&b <x@y.z> 1990 - 2000"),
     ("日本語のテキスト です。", "日本語 テキスト です"),
     ("  leading and trailing  \n", "leading and trailing")],
    [("a b c d e f g", "a b c"), ("x", "y")],
    [("only one", "")],
    # TER's shifts: blocks moved within and across sentences, repeated words, long sentences
    [("the quick brown fox jumps over the lazy dog", "over the lazy dog the quick brown fox jumps"),
     ("a b c d e f g h i j k l m n o p", "k l m n o p a b c d e f g h i j"),
     ("one two one two one two three", "two one two one three one two"),
     ("we saw the the cat", "the cat we saw"),
     (" ".join(f"w{i}" for i in range(60)), " ".join(f"w{(i * 7) % 60}" for i in range(60)))],
]


def sacre_case(pairs):
    items = [list(p) for p in pairs]
    return dict(pairs=items, bleu=M.bleu(items), chrf=M.chrf(items), ter=M.ter(items),
                boot_chrf_100=M.bootstrap_stderr(M.chrf, items, iters=100) if len(items) > 1 else None,
                boot_bleu_100=M.bootstrap_stderr(M.bleu, items, iters=100) if len(items) > 1 else None,
                boot_ter_100=M.bootstrap_stderr(M.ter, items, iters=100) if len(items) > 1 else None)


def em_case(c):
    return float(M.exact_match_hf_evaluate(predictions=[c["pred"]], references=[c["ref"]],
                                           regexes_to_ignore=c["regexes"] or None, ignore_case=c["ic"],
                                           ignore_punctuation=c["ip"], ignore_numbers=c["inum"])["exact_match"])


def pyfloat(s):
    try:
        return repr(float(s))
    except ValueError:
        return None


def main():
    xs = [0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.5, 0.25, 1.0]
    lls = [-2.5, -1.25, -3.0, -0.5, -7.75, -1.0, -2.0, -4.5, -0.25, -3.5]
    pairs = [(1, 1), (0, 1), (1, 0), (1, 1), (0, 0), (0, 0), (1, 1), (0, 1), (1, 1), (0, 0), (1, 0)]
    wpairs = [(-120.5, 30), (-80.25, 21), (-300.0, 77)]
    boot = lambda f, v, it: M.bootstrap_stderr(f, v, iters=it)
    g = {
        "exact_match": [dict(c, score=em_case(c)) for c in EM],
        "regex_filter": [dict(pattern=p, group_select=gs, resp=r, out=RegexFilter(p, gs).apply([[r]], [{}])[0][0]) for p, gs, r in FILTERS],
        "drop": [dict(pred=p, golds=gl, em=float(drop.process_results({"answers": [tuple(x) for x in gl]}, [p])["em"]),
                      f1=float(drop.process_results({"answers": [tuple(x) for x in gl]}, [p])["f1"])) for p, gl in DROP],
        "drop_multi": [dict(pred=p, gold=gd, em=float(drop.get_metrics(p, gd)[0]), f1=float(drop.get_metrics(p, gd)[1]))
                       for p, gd in [(["a b", "c"], ["c", "a"]), (["x", "y z", "w"], ["y", "w x"]), (["1 2"], ["1", "2 3"])]],
        "drop_normalize": [dict(s=s, out=drop._normalize(s)) for s in NORMALIZE],
        "pyfloat": [dict(s=s, repr=pyfloat(s)) for s in FLOATS],
        "repr": [dict(f=f, repr=repr(f)) for f in REPRS],
        "agg": {
            "mean": M.mean(xs), "median": M.median(xs), "perplexity": M.perplexity(lls),
            "weighted_perplexity": M.weighted_perplexity(wpairs), "bits_per_byte": M.bits_per_byte(wpairs),
            "f1": float(M.f1_score(pairs)), "mcc": float(M.matthews_corrcoef(pairs)),
            "mcc3": float(M.matthews_corrcoef([(0, 0), (1, 2), (2, 2), (2, 1), (1, 1), (0, 2)])),
            "mean_stderr": M.mean_stderr(xs),
            "boot_perplexity_100000": boot(M.perplexity, lls, 100000),
            "boot_median_1500": boot(M.median, xs, 1500),
            "boot_median_250": boot(M.median, xs, 250),
            "boot_f1_3000": boot(M.f1_score, pairs, 3000),
            "boot_mcc_2000": boot(M.matthews_corrcoef, pairs, 2000),
            "pooled": float(M.pooled_sample_stderr([0.05, 0.02, 0.1], [100, 400, 19])),
            "unweighted": float(M.unweighted_mean_stderr([0.05, 0.02, 0.1])),
            "subtask_weighted": M.aggregate_subtask_metrics([0.3, 0.6, 0.45], [100, 400, 19], True),
            "subtask_macro": M.aggregate_subtask_metrics([0.3, 0.6, 0.45], [100, 400, 19], False),
        },
        "inputs": {"xs": xs, "lls": lls, "pairs": pairs, "wpairs": wpairs},
        "sacrebleu": [sacre_case(c) for c in SACRE],
        "pystr": [dict(s=s, strip=s.strip(), split=s.split(), lower=s.lower(), upper=s.upper(), capitalize=s.capitalize())
                  for s in ["hELLO wORLD", "ßa", "ΑΣ. ΣΑΣ Σ", "İx", "ﬁne", "\x1c x \u3000", "ǆa", "a\x1fb\u2028c", "Ὀδυσσεύς"]],
    }
    text = json.dumps(g, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    if "--check" in sys.argv:
        old = open(OUT, encoding="utf-8").read()
        if old != text:
            print("metrics golden differs from lm-eval; rerun without --check and review the diff", file=sys.stderr)
            sys.exit(1)
        print("metrics golden matches lm-eval")
        return
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
