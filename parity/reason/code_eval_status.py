"""Writes internal/sandbox/testdata/code_eval.json: test programs and the
status Hugging Face evaluate's code_eval gives each ("passed", "failed: …",
"timed out"), from its own check_correctness (the function lm-eval's
humaneval and mbpp metrics call, with their 3 s timeout). goeval's sandbox
must give the same statuses (internal/sandbox/codeeval_test.go).

Usage (from the repo root):
  .venv/bin/python parity/reason/code_eval_status.py --code-eval DIR
DIR is huggingface/evaluate's metrics/code_eval folder.
"""
import argparse
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(os.path.dirname(HERE)), "internal", "sandbox", "testdata", "code_eval.json")

PROGRAMS = [
    "assert 1 + 1 == 2",
    "assert 1 == 2",
    "raise ValueError('bad value')",
    "x = undefined_name",
    "def f(:\n    pass",
    "while True:\n    pass",
    "import sys\nsys.exit(3)",
    "import sys\nsys.exit()",
    "exit()",
    "quit()",
    "import os\nos.remove('x')",
    "import os\nos.getcwd()",
    "input()",
    "import sys\nsys.stdin.read()",
    "print('hi' * 10)\nimport sys\nprint('err', file=sys.stderr)",
    "import subprocess\nsubprocess.run(['ls'])",
    "import shutil\nshutil.rmtree('/nonexistent')",
    "import resource",
    "import psutil",
    "def f(n):\n    return f(n + 1)\nf(0)",
    "if __name__ == '__main__':\n    raise SystemExit(1)",
    "print(__name__)\nassert __name__ == 'builtins'",
    "open('f.txt', 'w').write('x')\nassert open('f.txt').read() == 'x'",
    "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nwhile True:\n    pass",
    "import time\ntime.sleep(0.1)",
    "raise KeyboardInterrupt",
    "help('x')",
    "import os\nassert os.environ['OMP_NUM_THREADS'] == '1'",
    "import faulthandler\nassert not faulthandler.is_enabled()",
    "try:\n    while True:\n        pass\nexcept BaseException:\n    pass",
    "l = [0] * (10 ** 7)\nassert len(l) == 10 ** 7",
    "import sys\nsys.stdout.write('x')\nassert sys.stdout.getvalue() == 'x'",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--code-eval", required=True, help="huggingface/evaluate's metrics/code_eval folder")
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location("code_eval_execute", os.path.join(a.code_eval, "execute.py"))
    execute = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(execute)
    rows = []
    for i, p in enumerate(PROGRAMS):
        r = execute.check_correctness(p, 3.0, 0, i)
        rows.append({"program": p, "status": r["result"]})
        print(f"{r['result']!r:60} {p[:40]!r}", file=sys.stderr)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
