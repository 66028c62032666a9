"""lm-eval's ifeval verdicts on generated (instruction, kwargs, response)
cases: the agreement golden of goeval's Go checks (internal/ifeval).

Every check of instructions_registry that does not depend on a trained
model (langdetect, nltk's punkt) is built with varied kwargs and run, as
utils.py runs it (strict and loose), on every response of a generated
pool written to hit the checks' edges. The golden is gzipped JSON:
responses, checks (id, kwargs, prompt) and, per check, one digit per
response: 2*strict + loose.

Needs lm-eval's ifeval extra (langdetect, immutabledict, nltk) importable:
run with PYTHONPATH pointing at them (never installed into .venv).

usage: golden.py [--check] [--out internal/ifeval/testdata/agreement.json.gz]
"""

import argparse
import gzip
import json
import random
import sys

from lm_eval.tasks.ifeval import utils

SEED = 20261128
OUT = "internal/ifeval/testdata/agreement.json.gz"

WORDS = ["apple", "Banana", "cat", "data", "river", "the", "AI", "résumé",
         "naïve", "straße", "Ωmega", "İstanbul", "ΣΟΦΟΣ", "c++", "e-mail",
         "dog", "a", "is", "Python", "mountain", "k", "hello"]
PROMPTS = ["Write a story about a cat.", "Explain AI in simple terms!",
           "  Tell me about İstanbul.  ", "What is 2+2? Answer now.",
           "Write a poem\nabout the river."]
MARKERS = ["P.S.", "P.P.S", "PS:", "Note", "p.s.", "P.P.P.S", "NB."]
SPLITTERS = ["Section", "SECTION", "PARAGRAPH", "Chapter", "Day", "Part", "Slide"]
ENDINGS = ["Any other questions?", "Is there anything else I can help with?",
           "Peace!", "Let me know if you have additional questions.", "ΤΈΛΟΣ"]
REL = ["less than", "at least"]


def checks(rng):
    out = []

    def add(i, kw, prompt=PROMPTS[0]):
        out.append({"id": i, "kwargs": kw, "prompt": prompt})

    for w in WORDS:
        add("keywords:existence", {"keywords": [w, rng.choice(WORDS)]})
        add("keywords:forbidden_words", {"forbidden_words": [w, rng.choice(WORDS)]})
        add("keywords:frequency", {"keyword": " " + w + " ", "frequency": rng.randint(1, 4), "relation": rng.choice(REL)})
    for l in "aeiostzkAEI":
        add("keywords:letter_frequency", {"letter": l, "let_frequency": rng.randint(1, 12), "let_relation": rng.choice(REL)})
    for n in range(1, 7):
        add("length_constraints:number_paragraphs", {"num_paragraphs": n})
        add("detectable_content:number_placeholders", {"num_placeholders": n})
        add("detectable_format:number_bullet_lists", {"num_bullets": n})
        add("detectable_format:number_highlighted_sections", {"num_highlights": n})
        add("detectable_format:multiple_sections", {"section_spliter": rng.choice(SPLITTERS), "num_sections": n})
        for rel in REL:
            add("length_constraints:number_words", {"num_words": rng.choice([n, 5 * n, 20 * n]), "relation": rel})
    for num in range(1, 5):
        for nth in range(1, num + 1):
            add("length_constraints:nth_paragraph_first_word",
                {"num_paragraphs": num, "nth_paragraph": nth, "first_word": rng.choice(WORDS)})
    for m in MARKERS:
        add("detectable_content:postscript", {"postscript_marker": m})
    for e in ENDINGS:
        add("startend:end_checker", {"end_phrase": e})
    for p in PROMPTS:
        add("combination:repeat_prompt", {"prompt_to_repeat": p}, p)
    for i in ["detectable_format:constrained_response", "detectable_format:json_format",
              "detectable_format:title", "combination:two_responses", "startend:quotation",
              "punctuation:no_comma"]:
        add(i, {})
    return out


FRAGMENTS = [
    "", " ", "\n", "\n\n", "***", "******", "*", "**", "*highlighted*", "**bold text**",
    "* bullet one", "* bullet two\n* bullet three", "- dash item", "  -indented dash", "*not a bullet*",
    "[name]", "[address] and [date]", "[\n]", "[]", "<<Title>>", "<< >>", "<<a\nb>>", "<<<Big>>>",
    "P.S. see you", "p.p.s. later", "P. S. spaced", "PS: note", "Note: this", "NB. fine", "P.P.P.S more",
    "Section 1", "SECTION 2 text", "Section\u00a03", "PARAGRAPH 4", "Chapter ٣", "Day 12", "Part X",
    "My answer is yes.", "My answer is maybe.", "my answer is no.",
    '{"a": 1}', "[1, 2, 3]", "NaN", "-Infinity", "```json\n{\"k\": [true, null]}\n```", "{'a': 1}",
    '{"a": 1,}', "```\n[1]\n```", '"quoted"', '"', "01", "1e5", '"\\u00e9"', '{"a":"\t"}',
    "Any other questions?", "any other questions?\"", "Is there anything else I can help with?",
    "Peace!", "ΤΈΛΟΣ", "τέλος",
    "The cat sat.", "Hello, world", "apple banana cat", "BANANA", "the The THE", "résumé naïve",
    "straße STRASSE", "İstanbul istanbul", "ΣΟΦΟΣ σοφος", "c++ code", "e-mail", "cats", "data_set",
    "AI-powered", "k K \u212a", "hello\u2028world", "tab\there", "x\x1cy", "日本語 テキスト", "١٢٣ digits",
    "Write a story about a cat.", "explain ai in simple terms!", "Tell me about İstanbul.",
    "What is 2+2? Answer now.", "Write a poem\nabout the river.",
    "Mountain river dog a is Python", "dotless ı and long ſ", "ΣΟΦΟΣ.", "x\x85y", "\x1f",
    "'Apple' starts", '"Banana," she said', "'\"cat!", "Data? yes", "The,end", "naïve. Résumé",
    "{\"a\": NaN, \"b\": Infinity}", "[1, 2", "```JSON\n{}\n```", "```Json\n[]```", "{\"a\": 1} extra",
    "* * *", "*** ***", "-", "--- rule", "*\t tab bullet", "Section1Section2", "SECTION 10\n\nSECTION 11",
    "<<Title>> and <<Other>>", "p.s.", "P.p.s", "\u2028", "THE END.", "A. B. C.", "\u3000wide space\u3000", "emoji 😀 ok", "a, b, c",
]


def responses(rng):
    out = list(FRAGMENTS)
    seps = ["\n", "\n\n", " ", "", "\n***\n", "******", "\n\n\n", " *** "]
    while len(out) < 400:
        k = rng.randint(2, 6)
        parts = [rng.choice(FRAGMENTS) for _ in range(k)]
        s = parts[0]
        for p in parts[1:]:
            s += rng.choice(seps) + p
        if rng.random() < 0.1:
            s = s.upper()
        if rng.random() < 0.1:
            s = '"' + s + '"'
        out.append(s)
    return out


def verdicts(cs, rs):
    rows = []
    for c in cs:
        inp = utils.InputExample(key=0, instruction_id_list=[c["id"]], prompt=c["prompt"], kwargs=[c["kwargs"]])
        row = []
        for r in rs:
            s = utils.test_instruction_following_strict(inp, r).follow_instruction_list[0]
            l = utils.test_instruction_following_loose(inp, r).follow_instruction_list[0]
            row.append(str(2 * int(s) + int(l)))
        rows.append("".join(row))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args()
    rng = random.Random(SEED)
    cs = checks(rng)
    rs = responses(rng)
    g = {"checks": cs, "responses": rs, "verdicts": verdicts(cs, rs)}
    data = json.dumps(g, ensure_ascii=False, indent=0).encode()
    if a.check:
        with gzip.open(a.out) as f:
            if json.load(f) != g:
                print(f"{a.out} differs from lm-eval's verdicts", file=sys.stderr)
                sys.exit(1)
        print(f"{a.out}: {len(cs)} checks x {len(rs)} responses agree")
        return
    with gzip.GzipFile(a.out, "wb", mtime=0) as f:
        f.write(data)
    print(f"wrote {a.out}: {len(cs)} checks x {len(rs)} responses = {len(cs) * len(rs)} cases")


if __name__ == "__main__":
    main()
