#!/usr/bin/env python3
"""Synthetic documents in LongBench's schema (lm-eval 0.4.13's longbench
tasks read Xnhyacinth/LongBench: input, context, answers, length, dataset,
language, all_classes, _id, and question), for the parity check of
longctx.sh: DOCS documents per config, contexts of about WORDS words
(4 k–8 k tokens with a Qwen tokenizer), seeded.

Usage: longbench_data.py OUT [--docs N] [--words N]

Writes OUT/Xnhyacinth/LongBench/<config>/test.jsonl, the layout both
goeval's --data_dir and parity/e2e/lmeval_synth.py's --yaml-data-dir read.
"""
import argparse
import json
import os
import random

EN = ("river mountain paper signal garden window engine market island winter copper violet "
      "harbor lantern meadow orbit canyon thunder pepper marble falcon saddle quartz ribbon").split()
ZH = list("山水风雨花草树木日月星云天地人心书画城河海春秋江湖")
CLASSES = ["Abbreviation", "Entity", "Description", "Human", "Location", "Numeric value"]
CONFIGS = {
    # config: (language, how the answers look)
    "hotpotqa": ("en", "words"),
    "trec": ("en", "class"),
    "gov_report": ("en", "summary"),
    "lcc": ("en", "code"),
    "passage_count": ("en", "count"),
    "passage_retrieval_en": ("en", "paragraph"),
    "multifieldqa_zh": ("zh", "words"),
    "dureader": ("zh", "summary"),
}


def text(rng, lang, n):
    if lang == "zh":
        return "".join(rng.choice(ZH) + ("。" if rng.random() < 0.08 else "") for _ in range(n))
    return " ".join(rng.choice(EN) + ("." if rng.random() < 0.08 else "") for _ in range(n))


def answers(rng, lang, kind):
    if kind == "class":
        return [rng.choice(CLASSES)]
    if kind == "count":
        return [str(rng.randint(1, 30))]
    if kind == "paragraph":
        return [f"Paragraph {rng.randint(1, 30)}"]
    if kind == "code":
        return [f"    return {rng.choice(EN)}_{rng.randint(0, 9)}(x)"]
    return [text(rng, lang, {"words": 3, "summary": 40}[kind]) for _ in range(rng.randint(1, 2))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--docs", type=int, default=3)
    ap.add_argument("--words", type=int, default=4000)
    args = ap.parse_args()
    rng = random.Random(41)
    for name, (lang, kind) in CONFIGS.items():
        d = os.path.join(args.out, "Xnhyacinth", "LongBench", name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "test.jsonl"), "w", encoding="utf-8") as f:
            for i in range(args.docs):
                n = args.words * (i + 1) // args.docs
                ctx = text(rng, lang, n)
                q = text(rng, lang, 8) + ("?" if lang == "en" else "？")
                doc = {"input": q, "context": ctx, "answers": answers(rng, lang, kind), "length": n,
                       "dataset": name, "language": lang,
                       "all_classes": CLASSES if kind == "class" else None, "_id": f"{name}-{i:04d}",
                       "question": q}
                f.write(json.dumps(doc, ensure_ascii=False) + "\n")
    print(f"wrote {len(CONFIGS)} configs × {args.docs} documents under {args.out}")


if __name__ == "__main__":
    main()
