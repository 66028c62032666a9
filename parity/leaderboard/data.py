"""Writes synthetic documents in the schemas of the Open LLM Leaderboard v2
datasets, in parity/e2e/lmeval_synth.py's --yaml-data-dir layout
(OUT/<dataset_path>/<dataset_name or default>/<split>.jsonl), which goeval's
--data-dir reads too. Each subtask's columns are those of its Hugging Face
dataset (the ones lm-eval's task files read, plus a few it ignores), with
values that exercise the tasks' Python: GPQA's preprocess ([title], [...]
markup, double spaces), MuSR's choices as a Python list literal, MMLU-Pro's
4 to 10 options, MATH's levels (process_docs keeps Level 5) and boxed
solutions, BBH's input/target, IFEval's instruction ids and kwargs; and
TruthfulQA's multiple_choice (mc1 and mc2 targets) and generation (true and
false answers, some blank, unpunctuated or with " . " breaks), outside the
leaderboard.

Usage: python parity/leaderboard/data.py OUT [--docs N]
"""
import json
import os
import random
import sys

LEADERBOARD_BBH = [
    "boolean_expressions", "causal_judgement", "date_understanding", "disambiguation_qa", "formal_fallacies",
    "geometric_shapes", "hyperbaton", "logical_deduction_five_objects", "logical_deduction_seven_objects",
    "logical_deduction_three_objects", "movie_recommendation", "navigate", "object_counting",
    "penguins_in_a_table", "reasoning_about_colored_objects", "ruin_names", "salient_translation_error_detection",
    "snarks", "sports_understanding", "temporal_sequences", "tracking_shuffled_objects_five_objects",
    "tracking_shuffled_objects_seven_objects", "tracking_shuffled_objects_three_objects", "web_of_lies",
]
MATH_CONFIGS = ["algebra", "counting_and_probability", "geometry", "intermediate_algebra", "number_theory",
                "prealgebra", "precalculus"]
WORDS = ("the a red cat sat on mat of blue river near old house with green door over small hill "
         "under bright moon and quiet star").split()


def words(rnd, n):
    return " ".join(rnd.choice(WORDS) for _ in range(n))


def write(out, path, name, split, rows):
    d = os.path.join(out, path, name or "default")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, split + ".jsonl"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def gpqa(rnd, i):
    marks = ["", " [title]Heading", " [note 1]", "  spaced  ", "\n padded \n"]
    return {
        "Pre-Revision Question": words(rnd, 6), "Question": f"Q{i}: {words(rnd, 8)}?" + rnd.choice(marks),
        "Correct Answer": f"right {i}" + rnd.choice(marks),
        "Incorrect Answer 1": f"wrong a{i}" + rnd.choice(marks), "Incorrect Answer 2": f"wrong b{i}",
        "Incorrect Answer 3": f"wrong c{i}" + rnd.choice(marks), "Explanation": words(rnd, 10),
        "Record ID": f"rec{i:04d}", "High-level domain": rnd.choice(["Physics", "Chemistry", "Biology"]),
        "Subdomain": words(rnd, 2),
    }


def musr(rnd, i):
    choices = [words(rnd, 2).title() for _ in range(rnd.choice([2, 3]))]
    if i % 3 == 0:
        choices[0] = "O'Brien"  # a quote inside the Python literal
    k = rnd.randrange(len(choices))
    return {"narrative": words(rnd, 40) + "\n\n" + words(rnd, 20), "question": f"Who {words(rnd, 5)}?",
            "choices": repr(choices), "answer_index": k, "answer_choice": choices[k]}


def mmlu_pro(rnd, i, split):
    n = rnd.choice([4, 7, 10])
    options = [words(rnd, 3) for _ in range(n)]
    k = rnd.randrange(n)
    cat = rnd.choice(["math", "law", "biology"])
    return {"question_id": i, "question": f"{words(rnd, 9)}?", "options": options, "answer": "ABCDEFGHIJ"[k],
            "answer_index": k, "cot_content": "A: Let's think step by step. " + words(rnd, 12) if split == "validation"
            else "", "category": cat, "src": f"ori_mmlu-{cat}"}


def math_doc(rnd, i, cfg):
    ans = rnd.choice(["42", "\\frac{3}{4}", "-7", "x^2+1", "[2,5)", "\\sqrt{2}", "100,000"])
    sol = f"We compute {words(rnd, 6)}, so the answer is $\\boxed{{{ans}}}$."
    if i % 4 == 3:
        sol = f"Thus $x = \\boxed {ans.split('{')[0] or '5'}$ and we are done."
    return {"problem": f"Find {words(rnd, 5)} when $x={i}$.", "level": rnd.choice(["Level 5", "Level 5", "Level 3"]),
            "type": cfg.replace("_", " ").title(), "solution": sol}


def bbh(rnd, i, name):
    target = rnd.choice(["Yes", "No", "True", "False", "(A)", "(B)", "valid", "invalid", "3"])
    return {"input": f"{name.replace('_', ' ')} {i}: {words(rnd, 12)}\nOptions:\n(A) {words(rnd, 2)}\n"
                     f"(B) {words(rnd, 2)}", "target": target}


IFEVAL = [
    (["punctuation:no_comma"], [{}]),
    (["length_constraints:number_words", "change_case:english_lowercase"],
     [{"relation": "at least", "num_words": 30}, {}]),
    (["detectable_format:number_bullet_lists", "keywords:existence"],
     [{"num_bullets": 3}, {"keywords": ["river", "moon"]}]),
    (["startend:end_checker"], [{"end_phrase": "Is there anything else I can help with?"}]),
]


def ifeval(rnd, i):
    ids, kw = IFEVAL[i % len(IFEVAL)]
    # The dataset's kwargs rows carry every instruction's argument names,
    # null where unused; lm-eval drops the nulls.
    full = []
    for k in kw:
        row = {"num_highlights": None, "relation": None, "num_words": None, "num_placeholders": None,
               "prompt_to_repeat": None, "num_bullets": None, "section_spliter": None, "num_sections": None,
               "capital_relation": None, "capital_frequency": None, "keywords": None, "num_paragraphs": None,
               "language": None, "let_relation": None, "letter": None, "let_frequency": None, "end_phrase": None,
               "forbidden_words": None, "keyword": None, "frequency": None, "num_sentences": None,
               "postscript_marker": None, "first_word": None, "nth_paragraph": None}
        row.update(k)
        full.append(row)
    return {"key": 1000 + i, "prompt": f"Write about {words(rnd, 6)}.", "instruction_id_list": ids,
            "kwargs": full}


def truthfulqa(rnd, i):
    """truthful_qa multiple_choice: mc1 (one true answer, first) and mc2
    (several true answers, anywhere)."""
    mc1 = [words(rnd, 4) for _ in range(rnd.choice([2, 4, 5]))]
    mc2 = [words(rnd, 4) for _ in range(rnd.choice([3, 6, 9]))]
    labels2 = [rnd.choice([0, 1]) for _ in mc2]
    labels2[0] = 1
    rnd.shuffle(labels2)
    return {"question": f"{words(rnd, 7)}?", "mc1_targets": {"choices": mc1, "labels": [1] + [0] * (len(mc1) - 1)},
            "mc2_targets": {"choices": mc2, "labels": labels2}}


def truthfulqa_gen(rnd, i):
    """truthful_qa generation: answers with and without final periods,
    blank ones (process_docs_gen drops them), punctuation and numbers."""
    # with words model L often generates, so that some scores are not 0
    pool = WORDS + ["and", "first", "boil", "C", "$", "D", "pr", "ic", "le", "l", "it"]

    def answer():
        s = " ".join(rnd.choice(pool) for _ in range(rnd.randint(1, 6)))
        return rnd.choice([s, s + ".", " " + s + " ", s + " . " + words(rnd, 2), s + ", 1990!", "", "  "])
    correct = [answer() for _ in range(rnd.randint(1, 4))]
    incorrect = [answer() for _ in range(rnd.randint(1, 4))] + [words(rnd, 3)]
    return {"type": "Adversarial", "category": "Misconceptions", "question": f" {words(rnd, 7)}? ",
            "best_answer": correct[0], "correct_answers": correct, "incorrect_answers": incorrect,
            "source": f"https://example.org/{i}"}


def main():
    out = sys.argv[1]
    n = int(sys.argv[sys.argv.index("--docs") + 1]) if "--docs" in sys.argv else 6
    rnd = random.Random(38)
    for name in ("gpqa_main", "gpqa_diamond", "gpqa_extended"):
        write(out, "Idavidrein/gpqa", name, "train", [gpqa(rnd, i) for i in range(n)])
    for split in ("murder_mysteries", "object_placements", "team_allocation"):
        write(out, "TAUR-Lab/MuSR", None, split, [musr(rnd, i) for i in range(n)])
    for split in ("test", "validation"):
        write(out, "TIGER-Lab/MMLU-Pro", None, split, [mmlu_pro(rnd, i, split) for i in range(n)])
    for cfg in MATH_CONFIGS:
        for split in ("train", "test"):
            write(out, "DigitalLearningGmbH/MATH-lighteval", cfg, split, [math_doc(rnd, i, cfg) for i in range(n)])
    for name in LEADERBOARD_BBH:
        write(out, "SaylorTwift/bbh", name, "test", [bbh(rnd, i, name) for i in range(n)])
    write(out, "wis-k/instruction-following-eval", None, "train", [ifeval(rnd, i) for i in range(n)])
    write(out, "truthfulqa/truthful_qa", "multiple_choice", "validation", [truthfulqa(rnd, i) for i in range(n)])
    rnd = random.Random(39)  # its own stream: the files above stay as they were
    write(out, "truthfulqa/truthful_qa", "generation", "validation", [truthfulqa_gen(rnd, i) for i in range(n)])


if __name__ == "__main__":
    main()
