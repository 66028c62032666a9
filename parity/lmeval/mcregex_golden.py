"""lm-eval's multi_choice_regex filter (MultiChoiceRegexFilter) on a set of
documents and responses: what goeval's tasks/yamlmcregex.go must give.

Usage (from the repo root):
  .venv/bin/python parity/lmeval/mcregex_golden.py            # writes tasks/testdata/mcregex/golden.json
  .venv/bin/python parity/lmeval/mcregex_golden.py --check    # fails on any difference
"""
import json
import sys

from lm_eval.filters.extraction import MultiChoiceRegexFilter

OUT = "tasks/testdata/mcregex/golden.json"
PAT = r"answer is \(?([ABCDEFGHIJ])\)?"
CHOICES = [
    ["Guilty", "Guilty of Romance", "Not guilty", "Innocent (mostly)"],
    ["Paris", "Lyon", "Marseille"],
    ["3.5 m/s", "35 m/s", "0.35 m/s", "350 m/s"],
    ["Héllo, wörld!", "good-bye", "C++", "a|b"],
]
CASES = [
    (0, "The answer is (B).", {}),
    (0, "I think it is Guilty of Romance, clearly.", {}),
    (0, "guilty of romance", {}),
    (0, "guilty of romance", {"ignore_case": True}),
    (0, "Innocent mostly", {"ignore_punctuation": True}),
    (0, "Answer: C", {}),
    (0, "nothing useful", {}),
    (1, "answer is D", {}),
    (1, "It is paris. Or Lyon!", {"ignore_case": True}),
    (1, "Final: B because", {}),
    (2, "the speed is 35 m/s", {}),
    (2, "0.35 m/s or 350 m/s", {"group_select": -1}),
    (3, "hello world", {"ignore_case": True, "ignore_punctuation": True}),
    (3, "I pick C++ and a|b", {}),
    (3, "goodbye", {"regexes_to_ignore": ["-"]}),
    (3, "the answer is (A) and the answer is (D)", {"group_select": 1}),
    (1, "", {"fallback": "[none]"}),
]


def main():
    out = []
    for ci, resp, kw in CASES:
        f = MultiChoiceRegexFilter(regex_pattern=PAT, **kw)
        got = f.apply([[resp]], [{"choices": CHOICES[ci]}])[0][0]
        out.append({"choices": CHOICES[ci], "resp": resp, "kwargs": kw, "out": got})
    text = json.dumps({"regex_pattern": PAT, "cases": out}, ensure_ascii=False, indent=1) + "\n"
    if "--check" in sys.argv:
        if open(OUT, encoding="utf-8").read() != text:
            sys.exit(f"{OUT} differs from lm-eval's MultiChoiceRegexFilter")
        print(f"multi_choice_regex goldens identical ({len(out)} cases)")
        return
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
