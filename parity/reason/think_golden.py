"""Golden cuts of reasoning generations by lm-eval's own
postprocess_generated_text (what HFLM.generate_until and
local-chat-completions apply with the think_end_token model argument,
lm-eval 0.4.13): the answer lm-eval's filters and metrics see.

Writes lm/testdata/think_golden.json, read by lm/think_golden_test.go.
Usage (from the repo root): .venv/bin/python parity/reason/think_golden.py
"""
import json
import os

from lm_eval.models.utils import postprocess_generated_text

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEXTS = [
    "<think>\nLet me add: 2+2.\n</think>\n\nThe answer is 4.",
    "<think>a</think>b</think>  \t42",  # the last occurrence
    "no think-end token here, only an answer",
    "   leading whitespace without the token",
    "<think>\nunfinished reasoning, cut by max_gen_toks",
    "</think>",
    "</think>\n\n",
    "x</think>\u2003\x1c\x1fy after Unicode and ASCII separators",  # str.isspace
    "x</think>\u200bzero width space is not whitespace",
    "<think>r</think>\nanswer\n\nQuestion: next",  # a stop after the answer
    "<think>Q: no\n\nstop inside the reasoning</think> A",
    "é</think>ü 你好 🙂",
]
TOKENS = ["</think>", "think>", "\n"]
UNTILS = [None, ["\n\n"], ["Question:", "\n\n"]]


def main():
    cases = []
    for tok in TOKENS:
        for until in UNTILS:
            for text in TEXTS:
                cases.append({"text": text, "think_end_token": tok, "until": until,
                              "answer": postprocess_generated_text(text, until, tok)})
    path = os.path.join(ROOT, "lm", "testdata", "think_golden.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(cases, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {len(cases)} cases to {path}")


if __name__ == "__main__":
    main()
