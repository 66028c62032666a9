"""Render task-YAML Jinja templates with lm-eval's own apply_template (jinja2
with StrictUndefined and regex_replace) and, where lm-eval does, parse the
output with ast.literal_eval; write what goeval's tasks/jinja.go must give.

Usage (from the repo root):
  .venv/bin/python parity/lmeval/jinja_golden.py            # writes tasks/testdata/jinja/golden.json
  .venv/bin/python parity/lmeval/jinja_golden.py --check    # fails on any difference
"""
import ast
import json
import sys

from lm_eval.utils import apply_template

OUT = "tasks/testdata/jinja/golden.json"

DOC = {
    "question": "  Who wrote \"Hamlet\"? ",
    "support": "\n  Plants make food.\tThey use light. ",
    "text": "the cat sat on the mat",
    "answer": "12 (twelve)",
    "label": 2,
    "label_str": "3",
    "flag": True,
    "score": 0.25,
    "big": 1e16,
    "none": None,
    "choices": {"text": ["don't", 'say "hi"', "back\\slash", "new\nline", "é日本", "tab\there"], "label": ["A", "B", "C", "D", "E", "F"]},
    "answerKey": "C",
    "ints": [3, 1, 2],
    "nested": [["a", 1], ["b", 2.5]],
    "words": ["alpha", "beta", "gamma"],
    "zwsp": "a\u200bb\x7f\x01",
    "meta": {"zeta": 1, "alpha": {"y": 2, "b": [3, "x"]}},
}

TEMPLATES = [
    "{{question}}",
    "{{question.strip()}}|{{question.lstrip()}}|{{question.rstrip()}}",
    "{{support.strip()}}",
    "{{ text.strip('tm') }}",
    "{{text.split(' ')[:-1]|join(' ')}}",
    "{{' '+text.split(' ')[-1]}}",
    "{{ text.split() }}",
    "{{ text.split(' ', 2) }}",
    "{{ text.rsplit(' ', 1) }}",
    "{{ text.replace('at', 'og') }}|{{ text.replace('at', 'og', 1) }}",
    "{{ text.upper() }}|{{ text.title() }}|{{ text.capitalize() }}",
    "{{ text.count('at') }}|{{ text.find('sat') }}|{{ text.startswith('the') }}|{{ text.endswith(('x', 'mat')) }}",
    "{{answer.split(' (')[0]}}",
    "{{choices.text}}",
    "{{choices['text'][0]}}",
    "{{choices.label.index(answerKey)}}",
    "{{[choices.text[0], choices.text[1], choices.text[2]]}}",
    "{{ choices.text[3:] }}",
    "{{ zwsp }}|{{ [zwsp] }}",
    "{{ (label_str|int) - 1 }}",
    "{{ ['True', 'Neither', 'False'][label] }}",
    "{{label}} {{flag}} {{score}} {{big}} {{none}}",
    "{{ [label, flag, score, big, none] }}",
    "{{ ints }}|{{ nested }}",
    "{{ ints|sort }}|{{ ints|length }}|{{ words|join(', ') }}",
    "{{ label * 2 }}|{{ label / 4 }}|{{ label // 4 }}|{{ label % 2 }}",
    "{% set p = 'Q: ' %}{{ p + question.strip() }}",
    "{% if flag %}yes{% else %}no{% endif %}",
    "{% for w in words %}{{ loop.index }}. {{ w }}\n{% endfor %}",
    "{{ words[0] if flag else words[1] }}",
    "{{ text | regex_replace('a(t)', 'o\\\\1') }}",
    "{{ text | regex_replace(' ', '_', 2) }}",
    "{{ text | replace('the', 'a') }}|{{ text | upper }}|{{ text | trim }}",
    "{{ question is defined }} {{ missing is defined }}",
    "ends with newline\n",
    "{{ 'don\\'t' }}|{{ \"it's\" }}",
    "{{ choices|join(',') }}",
    "{% for k in choices %}{{ k }};{% endfor %}",
    "{{ choices }}",
    "{{ choices.keys()|list }}|{{ choices.values()|list|length }}",
    "{% for k, v in choices.items() %}{{ k }}={{ v|length }};{% endfor %}",
    "{{ choices.get('label')[0] }}|{{ choices.get('nope', 'dflt') }}",
    "{{ choices|length }}|{{ 'text' in choices }}",
    "{{ meta }}|{{ meta.alpha|join('+') }}|{{ meta['alpha'].b }}",
    "{{ missing }}",
    "{{ words.index('delta') }}",
]


def render(src):
    try:
        out = apply_template(src, DOC)
    except Exception as e:  # noqa: BLE001
        return {"template": src, "error": type(e).__name__}
    rec = {"template": src, "out": out}
    try:
        rec["literal"] = ast.literal_eval(out)
    except Exception:  # noqa: BLE001
        pass
    return rec


def main():
    got = json.dumps({"doc": DOC, "cases": [render(t) for t in TEMPLATES]}, ensure_ascii=False, indent=1) + "\n"
    if "--check" in sys.argv:
        if open(OUT, encoding="utf-8").read() != got:
            sys.exit(f"{OUT} differs from lm-eval's rendering: regenerate it and look at the diff")
        print(f"jinja goldens identical ({len(TEMPLATES)} templates)")
        return
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(got)


if __name__ == "__main__":
    main()
