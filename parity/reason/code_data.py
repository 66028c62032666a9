"""Writes the code tasks' synthetic documents and the answers replayed to
both engines (parity/reason/reason.py's REPLAYED runs):

  data/openai/openai_humaneval/default/test.jsonl     HumanEval's schema
  data/evalplus/humanevalplus/default/test.jsonl      HumanEval+'s
  data/google-research-datasets/mbpp/full/test.jsonl  MBPP's
  data/evalplus/mbppplus/default/test.jsonl           MBPP+'s
  code_answers.json   {task: {doc_id: [[answer, ...]]}}: per document the
                      model's answers (one, or 64 for humaneval_64)

The problems are goeval's own, small and deterministic. The answers cover
what code_eval must judge: correct, wrong, crashing (exception, syntax
error, recursion), timing out (an infinite loop), sys.exit, exit() (None
under code_eval's guard), printing, reading stdin, writing in the working
folder, a network attempt (refused either way), and for mbpp_instruct
answers with and without ``` blocks.

Usage (from the repo root): python parity/reason/code_data.py
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))

# (entry point, signature and docstring, canonical body, checks)
PROBLEMS = [
    ("add", "def add(a: int, b: int) -> int:\n    \"\"\"Return a plus b.\"\"\"\n", "    return a + b\n",
     ["candidate(2, 3) == 5", "candidate(-1, 1) == 0"]),
    ("is_even", "def is_even(n: int) -> bool:\n    \"\"\"Whether n is even.\"\"\"\n", "    return n % 2 == 0\n",
     ["candidate(4) is True", "candidate(7) is False"]),
    ("reverse_words", "def reverse_words(s: str) -> str:\n    \"\"\"The words of s in reverse order.\"\"\"\n",
     "    return ' '.join(s.split()[::-1])\n", ["candidate('a b c') == 'c b a'", "candidate('') == ''"]),
    ("count_vowels", "def count_vowels(s: str) -> int:\n    \"\"\"How many of s's letters are vowels.\"\"\"\n",
     "    return sum(c in 'aeiouAEIOU' for c in s)\n", ["candidate('banana') == 3", "candidate('xyz') == 0"]),
    ("fib", "def fib(n: int) -> int:\n    \"\"\"The n-th Fibonacci number (fib(0) = 0).\"\"\"\n",
     "    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
     ["candidate(0) == 0", "candidate(10) == 55"]),
    ("max_of", "def max_of(xs: list) -> int:\n    \"\"\"The largest of xs.\"\"\"\n", "    return max(xs)\n",
     ["candidate([3, 9, 2]) == 9", "candidate([-5]) == -5"]),
    ("square", "def square(x: int) -> int:\n    \"\"\"x squared.\"\"\"\n", "    return x * x\n",
     ["candidate(3) == 9", "candidate(-4) == 16"]),
    ("first_char", "def first_char(s: str) -> str:\n    \"\"\"The first character of s.\"\"\"\n", "    return s[0]\n",
     ["candidate('hello') == 'h'"]),
    ("clamp", "def clamp(x: int, lo: int, hi: int) -> int:\n    \"\"\"x limited to [lo, hi].\"\"\"\n",
     "    return max(lo, min(hi, x))\n", ["candidate(5, 0, 3) == 3", "candidate(-1, 0, 3) == 0"]),
    ("digits", "def digits(n: int) -> list:\n    \"\"\"The decimal digits of n >= 0.\"\"\"\n",
     "    return [int(c) for c in str(n)]\n", ["candidate(120) == [1, 2, 0]"]),
]

# One answer per HumanEval problem: (body, what code_eval makes of it).
HUMANEVAL_ANSWERS = [
    ("    return a + b\n", "passed"),
    ("    return n % 2 == 1\n", "wrong"),
    ("    return s.split()[::-1].join(' ')\n", "AttributeError"),
    ("    while True:\n        pass\n", "timed out"),
    ("    return fib(n - 1) +\n", "SyntaxError"),
    ("    import socket\n    socket.create_connection(('127.0.0.1', 9), timeout=1)\n    return max(xs)\n", "network"),
    ("    import sys\n    sys.exit(0)\n", "SystemExit"),
    ("    print('thinking', s)\n    return s[0]\n", "prints, passes"),
    ("    open('scratch.txt', 'w').write(str(x))\n    return max(lo, min(hi, x))\n", "writes its cwd, passes"),
    ("    exit()\n", "exit is None"),
]
# humaneval_plus: the first four problems, other answers.
PLUS_ANSWERS = ["    return a - b\n", "    return n % 2 == 0\n", "    return input()\n", "    return digits(n)\n"]


def humaneval_docs(prefix, plus=False):
    out = []
    for i, (entry, head, body, checks) in enumerate(PROBLEMS):
        if plus:  # a prompt of its own (replayLM answers by prompt)
            head = head.replace('"""\n', ' (HumanEval+)"""\n', 1)
        test = "\n\nMETADATA = {}\n\n\ndef check(candidate):\n" + "".join(f"    assert {c}\n" for c in checks)
        out.append({"task_id": f"{prefix}/{i}", "prompt": head, "canonical_solution": body, "test": test,
                    "entry_point": entry})
    return out


def mbpp_docs(plus):
    out = []
    for i, (entry, head, body, checks) in enumerate(PROBLEMS[:6]):
        text = f"Write a function {entry} that does this: {head.split(chr(34) * 3)[1]}" + (" (MBPP+)" if plus else "")
        tests = [f"assert {c.replace('candidate', entry)}" for c in checks]
        tests += [tests[-1]] * (3 - len(tests))  # three tests, as the prompts show
        code = head.split("\n")[0] + "\n" + body
        if plus:
            out.append({"task_id": f"Mbpp/{11 + i}", "code": code, "prompt": text, "source_file": "goeval",
                        "test_imports": [], "test_list": tests, "test": "\n".join(tests)})
        else:
            out.append({"task_id": 11 + i, "text": text, "code": code, "test_list": tests,
                        "test_setup_code": "", "challenge_test_list": []})
    return out


MBPP_ANSWERS = [  # the text after "[BEGIN]\n", up to "[DONE]"
    "def add(a, b):\n    return a + b\n",
    "def is_even(n):\n    return n % 2\n",
    "def reverse_words(s):\n    return ' '.join(reversed(s.split()))\n",
    "def count_vowels(s):\n    return len([c for c in s if c in 'aeiou'])\n",
    "def fib(n):\n    return fib(n - 1) + fib(n - 2)\n",  # RecursionError
    "def max_of(xs):\n    xs.sort()\n    return xs[-1]\n",
]
MBPP_INSTRUCT_ANSWERS = [  # after the gen_prefix "\n```python\n"; extract_code_blocks reads "```" + answer
    "\ndef add(a, b):\n    return a + b\n```\nThis adds.",
    "```python\ndef is_even(n):\n    return n % 2 == 0\n```",
    "no code here",
    "def count_vowels(s):\n    return sum(c in 'aeiou' for c in s)\n",  # never closed: no block
    "```\ndef fib(n):\n    return 0\n```\n```python\ndef fib(n):\n    return n\n```",
    "def max_of(xs):\n    return min(xs)\n```",  # "def" taken for the block's language: " max_of(xs):"
]


def humaneval_64_answers(n_docs, correct):
    """64 answers per document, correct[i] of them right, in a fixed
    shuffled order."""
    rng = random.Random(7)
    out = {}
    for i in range(n_docs):
        _, _, body, _ = PROBLEMS[i]
        answers = [body] * correct[i] + ["    return None\n"] * (64 - correct[i])
        rng.shuffle(answers)
        out[str(i)] = [answers]
    return out


def write_jsonl(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def main():
    data = os.path.join(HERE, "data")
    write_jsonl(os.path.join(data, "openai/openai_humaneval/default/test.jsonl"), humaneval_docs("HumanEval"))
    write_jsonl(os.path.join(data, "evalplus/humanevalplus/default/test.jsonl"), humaneval_docs("HumanEval", plus=True)[:4])
    write_jsonl(os.path.join(data, "google-research-datasets/mbpp/full/test.jsonl"), mbpp_docs(False))
    write_jsonl(os.path.join(data, "evalplus/mbppplus/default/test.jsonl"), mbpp_docs(True))
    one = lambda answers: {str(i): [[a]] for i, a in enumerate(answers)}  # noqa: E731
    answers = {
        "humaneval": one([a for a, _ in HUMANEVAL_ANSWERS]),
        "humaneval_instruct": one([a + "```\nExplanation: done." for a, _ in HUMANEVAL_ANSWERS]),
        "humaneval_plus": one(PLUS_ANSWERS),
        "humaneval_64": humaneval_64_answers(3, [1, 13, 64]),
        "mbpp": one(MBPP_ANSWERS),
        "mbpp_plus": one(MBPP_ANSWERS[:3] + ["def count_vowels(s):\n    return 'x'\n"] + MBPP_ANSWERS[4:]),
        "mbpp_instruct": one(MBPP_INSTRUCT_ANSWERS),
    }
    with open(os.path.join(HERE, "code_answers.json"), "w", encoding="utf-8") as f:
        json.dump(answers, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
