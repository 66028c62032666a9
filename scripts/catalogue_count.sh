#!/usr/bin/env bash
# How much of lm-eval's task catalogue goeval loads, by reason, with Python
# (the task files' own functions run in goeval's worker) and without.
#
#   scripts/catalogue_count.sh [PYTHON]     # PYTHON: one with lm-eval installed (default .venv/bin/python)
#
# What it measures:
#   1. `goeval tasks --include-path <lm_eval>/tasks --python PYTHON
#      --confirm-run-unsafe-code` (the tasks that run generated code counted
#      as runnable behind that flag) and the same with `--python none` and
#      no flag: every task lm-eval's TaskIndex would index
#      (a *.yaml with a task: name) is listed, runnable (its configuration
#      builds: keys, templates, metrics, filters, and every !function resolved:
#      a Go hook, or in Python its module imported, the attribute found, its
#      signature checked) or "cannot run" with the first reason. The reasons
#      are grouped below. Runnable tasks that need Python are those only the
#      first listing runs.
#   2. Building documents, on synthetic data in the real datasets' schemas:
#      tasks/testdata/lmeval_yaml (lm-eval tasks without hooks) and
#      tasks/testdata/lmeval_pyhooks (with Python hooks), each built by goeval
#      and compared byte for byte with lm-eval's requests (and, for the
#      second, its scores), and the Go subject hooks against their Python
#      functions, with the repository's .venv Python (make venv); the go test
#      lines say whether they pass (or SKIP without that venv).
# Writes the two listings to $OUT (default a temporary folder).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-.venv/bin/python}
PY=$(cd "$(dirname "$PY")" && pwd)/$(basename "$PY")
OUT=${OUT:-$(mktemp -d)}
BIN=$OUT/goeval
go build -o "$BIN" ./cmd/goeval
TASKS=$("$PY" -c 'import os, lm_eval; print(os.path.join(os.path.dirname(lm_eval.__file__), "tasks"))')
VERSION=$("$PY" -c 'import importlib.metadata as m; print(m.version("lm_eval"))')
echo "lm-eval $VERSION: $TASKS"
echo "goeval tasks --include-path \$LMEVAL_TASKS --python $PY --confirm-run-unsafe-code  > $OUT/with_python.txt"
"$BIN" tasks --include-path "$TASKS" --python "$PY" --confirm-run-unsafe-code 2>/dev/null >"$OUT/with_python.txt"
echo "goeval tasks --include-path \$LMEVAL_TASKS --python none  > $OUT/without_python.txt"
"$BIN" tasks --include-path "$TASKS" --python none 2>/dev/null >"$OUT/without_python.txt"

"$PY" - "$OUT/with_python.txt" "$OUT/without_python.txt" <<'EOF'
import re
import sys
from collections import Counter

REASONS = [  # (pattern on the reason, group), first match wins
    (r"^(doc_to_image|doc_to_audio):", "multimodal (doc_to_image, doc_to_audio)"),
    (r"\(unsafe_code: true\): confirm with", "unsafe_code (refused without --confirm-run-unsafe-code)"),
    (r"goeval cannot run Python", "needs Python: a !function no Go hook answers"),
    (r"which this Python cannot import|raised (ModuleNotFoundError|ImportError)|[Pp]lease install|not installed",
     "its Python needs a package (or program) the interpreter lacks"),
    (r"there is no Python module", "its !function names a module file that does not exist (lm-eval fails too)"),
    (r"Couldn't find a module script", "its Python loads an HF evaluate metric (needs the network)"),
    (r"raised ", "its Python raised while loading"),
    (r"^(custom_dataset|class|recipe):", "a Python task class or dataset function (unitxt, custom_dataset)"),
]


def listing(path):
    """{task: reason or None} of a `goeval tasks` listing."""
    out = {}
    with open(path, encoding="utf-8") as f:
        next(f)
        for line in f:
            if not line.strip():
                break
            name = line.split()[0]
            m = re.search(r"cannot run: (.*)$", line)
            if not m:
                out[name] = None
                continue
            reason = re.sub(r"^.*?\.ya?ml: ", "", m.group(1), count=1)
            out[name] = reason
    return out


def group(reason):
    for pat, g in REASONS:
        if re.search(pat, reason):
            return g
    key = reason.split(":")[0]
    words = re.sub(r"\d+", "N", reason[len(key) + 1:].strip())[:60]
    return f"other: {re.sub(r'[0-9]+', 'N', key)}: {words}"


def report(title, tasks, total):
    ok = sum(1 for r in tasks.values() if r is None)
    print(f"\n{title}: {ok} of {total} tasks runnable ({100 * ok / total:.1f} %)")
    for g, n in Counter(group(r) for r in tasks.values() if r is not None).most_common():
        print(f"  {n:6d}  {g}")
    return ok


with_py, without_py = listing(sys.argv[1]), listing(sys.argv[2])
total = len(with_py)
multimodal = sum(1 for r in with_py.values() if r and group(r).startswith("multimodal"))
unsafe = sum(1 for r in with_py.values() if r and group(r).startswith("unsafe_code"))
ok = report("with Python", with_py, total)
rest = total - multimodal - unsafe
print(f"  => {ok} of the {rest} tasks that are {'neither multimodal nor unsafe_code' if unsafe else 'not multimodal'} ({100 * ok / rest:.1f} %)")
ok2 = report("without Python (--python none)", without_py, total)
print(f"\nrunnable only with Python: {sum(1 for n, r in with_py.items() if r is None and without_py.get(n) is not None)}")
EOF

echo
echo "building documents (synthetic data, compared with lm-eval): go test -run 'TestLMEvalYAMLParity|TestLMEvalPythonHooksParity|TestGoHooksMatchPython' ./tasks/"
go test -count=1 -run 'TestLMEvalYAMLParity|TestLMEvalPythonHooksParity|TestGoHooksMatchPython' -v ./tasks/ 2>&1 |
	grep -E '^(--- (PASS|FAIL|SKIP)|ok|FAIL)' | sed 's/^/  /'
