"""Reference data for goeval's loader of lm-eval task YAML files: lm-eval 0.4.13's
own task files for tasks goeval does not build in, synthetic documents in each
dataset's Hugging Face schema, and what lm-eval's task objects make of them.

Under tasks/testdata/lmeval_yaml/ it writes
  tasks/<path>.yaml   each chosen task's YAML file, copied byte for byte from the
                      installed lm_eval/tasks folder, plus every file it includes;
                      tasks/goeval_custom/ is ours, hand-written and committed: the
                      script never deletes or rewrites it, it only reads it (with
                      --include-path semantics) and makes goldens for its tasks;
  data/<dataset_path>/<dataset_name or default>/<split>.jsonl
                      synthetic documents (a `json` task's hf://datasets/ORG/NAME/PATH
                      data file lands at data/ORG/NAME/PATH), columns in the order of
                      the real dataset's features, strings full of quotes, backslashes,
                      newlines, non-ASCII and edge spaces;
  golden/<task>.jsonl and golden/variants/<task>@<k>shot.jsonl
                      dump_tasks.py's format (a header line, then per doc: doc_id, doc,
                      str(target), the arguments of every request) at the task's default
                      num_fewshot (variants: k) with few-shot seed 1234; the header also
                      has output_type, metrics, filters, repeats and the yaml path
                      (relative to tasks/), plus task_alias where the YAML sets one;
  golden/groups/<group or tag>.json
                      the groups and tags of tasks/goeval_custom as lm-eval's TaskManager
                      loads them (members in order, aliases, aggregate_metric_list);
  golden/scoring/<task>.jsonl
                      for goeval_custom_multi_target: canned answers per doc, what each
                      filter pipeline makes of them and the metric values;
  golden_examples/capitals.jsonl
                      the same golden format for examples/tasks/capitals/capitals.yaml
                      (its data files next to it); the header's yaml is relative to tasks/.

Usage (from the repo root):
  .venv/bin/python parity/lmeval/dump_yaml_tasks.py            # (re)write everything
  .venv/bin/python parity/lmeval/dump_yaml_tasks.py --check    # regenerate into a temp dir, byte-compare
"""
import argparse
import dataclasses
import json
import logging
import os
import random
import shutil
import sys
import tempfile
import traceback
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dump_tasks  # noqa: E402  (sets HF_DATASETS_OFFLINE / HF_HUB_OFFLINE)
from dump_tasks import dump_task  # noqa: E402

import datasets  # noqa: E402
import yaml  # noqa: E402

logging.disable(logging.WARNING)
warnings.filterwarnings("ignore")
datasets.disable_progress_bars()

OUT = "tasks/testdata/lmeval_yaml"

# The tasks: none is built into goeval, none has a `!function` hook in its YAML
# (nor in anything it includes). Each builds on the synthetic data below.
TASKS = [
    # --- multiple_choice ---
    "sciq",  # doc_to_target int 3; doc_to_choice a rendered list literal; .lstrip(); 3 splits
    "anli_r1",  # target template indexing a list literal by label; choices a YAML list; odd split names
    "anli_r3",  # same file family, other splits (train_r3/dev_r3/test_r3) of the same dataset
    "rte",  # glue: doc_to_target a field name (int label), doc_to_choice a flow list
    "sst2",  # glue: single sentence field
    "qnli",  # glue: two fields, choices yes/no
    "wnli",  # glue: choices False/True (YAML strings, not bools)
    "mrpc",  # glue: metrics acc + f1 without aggregation keys
    "qqp",  # glue: metrics acc + f1
    "cola",  # glue: metric mcc; doc_to_decontamination_query a field name
    "mc_taco",  # validation + test splits only, few-shot from validation
    "swag",  # doc_to_text a field name (startphrase); hyphenated column names; test_split null
    "social_iqa",  # target_delimiter " " explicit; target "{{ (label|int) - 1 }}" from a string label
    "commonsense_qa",  # doc_to_target a string field (answerKey letter); nested choices dict; .strip()
    "truthfulqa_mc1",  # {% set %} with a backslash-folded YAML string; num_fewshot 0; nested list field
    "headqa_en",  # choices via |map(attribute=...)|list; target "{{ra - 1}}"; null image column
    "prost",  # dataset_path json + dataset_kwargs.data_files hf://datasets/...
    "xstorycloze_en",  # include; list literal |join(' '); target "{{answer_right_ending-1}}"
    "belebele_eng_Latn",  # include of _default_template_yaml; fewshot_config sampler first_n; fewshot_split == test_split; list .index()
    "qa4mre_2011",  # doc_to_choice renders a nested list field; correct_answer_id|int - 1; dotted dataset_name
    "multirc",  # doc_to_choice a string of Python triple-quoted literals with \\n escapes (ast.literal_eval)
    "wic",  # string slicing sentence1[start1:end1] by code points; quoted task name
    "xnli_en",  # include with task: null; doc_to_text ''; choices built by string concatenation
    "arc_challenge_mt_de",  # include chain (de -> fi); choices.label.index(answerKey); choices.text field
    "blimp_adjunct_island",  # doc_to_text "" (empty context); doc_to_target 0; bool columns
    "ethics_cm",  # bool columns; training + test splits only
    "winogender_all",  # ‘’ curly quotes; pronoun.capitalize(); metadata num_fewshot
    "openbookqa_bn",  # {% for %} with -%} whitespace control, range(), |length; block scalar |-; description without delimiter; first_n
    # --- loglikelihood ---
    "asdiv",  # answer.split(' (')[0]; validation split only
    "lambada_standard",  # text.split(' ')[:-1]|join(' ') and ' '+text.split(' ')[-1]; perplexity + acc
    "lambada_standard_cloze_yaml",  # same with a "____. ->" suffix
    # --- loglikelihood_rolling ---
    "pile_10k",  # doc_to_target a field name ("text"); doc_to_text ""; struct meta column
    "pile_arxiv",  # doc_to_target "{{text}}"; word/byte perplexity, bits_per_byte
    # --- generate_until ---
    "triviaqa",  # target renders a list ({{answer.aliases}}) -> multiple targets; remove_whitespace filter; exact_match ignore_case/punctuation
    "nq_open",  # description; fewshot_delimiter "\n"; list target; regexes_to_ignore
    "bbh_fewshot_boolean_expressions",  # fewshot_config samples + first_n; description; num_fewshot 3 in an include
    "bbh_cot_fewshot_boolean_expressions",  # samples in a JSON flow sequence; target_delimiter ""; max_gen_toks; regex filter
    "bbh_zeroshot_navigate",  # quoted YAML keys; two filters (take_first, regex group_select 0); regexes_to_ignore
    "mgsm_direct_en",  # {% if answer is not none %} (null test answers); |string; target_delimiter ""; two filters
    "mgsm_native_cot_en",  # answer[21:] slicing; its filter_list replaces the included one whole (shallow include merge)
    "gsm8k_platinum",  # num_fewshot 5 from fewshot_split == test_split (random sampler, eval doc removed); regex filters
    "gsm8k_platinum_cot_self_consistency",  # include; repeats 64; 'answer is defined else target' on fewshot samples; majority_vote/take_first_k filters
    "boolq-seq2seq",  # generate_until with doc_to_choice and an int target; target_delimiter ""
    "anagrams1",  # doc_to_text/target plain field templates; test_split named validation
    "wmt16-en-de",  # nested dict translation["de"]; single-quoted YAML with a folded line break; fewshot_split; bleu/ter/chrf
    "arc_challenge_chat",  # gen_prefix; single-quoted YAML keeping literal \n; {% if %}; numeric answerKey branch
]

# Our own task files (tasks/goeval_custom, hand-written; see its README.md), for
# features no lm-eval file above exercises. Their datasets: goeval_custom/* are
# synthetic (written below), `json`/`csv` ones are hand-written files next to the YAML.
CUSTOM_DIR = "goeval_custom"
CUSTOM_TASKS = [
    "goeval_custom_genprefix_gen",  # gen_prefix + 2 random shots; fewshot_config.gen_prefix template; a shot without answer
    "goeval_custom_genprefix_mc",  # gen_prefix a field name (values with/without trailing space, empty); {% for %} loop.index
    "goeval_custom_genprefix_mc_space",  # a literal gen_prefix ending in a space (chat: no target delimiter)
    "goeval_custom_fewshot_cfg_first",  # fewshot_config doc_to_text/choice/target + delimiters; first_n; fewshot_split validation
    "goeval_custom_fewshot_cfg_default",  # the same with the default sampler; doc_to_choice a mapping
    "goeval_custom_fewshot_samples",  # fewshot_config.samples; no test split -> eval doc removal (n+1 draws)
    "goeval_custom_description_tmpl",  # description template: .format, slicing, |length, |upper, ~
    "goeval_custom_description_field",  # description a field name; fewshot_delimiter "\n"
    "goeval_custom_local_jsonl",  # dataset_path json, relative data_files mapping; first_n
    "goeval_custom_local_csv",  # dataset_path csv: int/float/string columns; float arithmetic in Jinja
    "goeval_custom_local_json_array",  # dataset_path json, data_files a string naming a JSON array file
    "goeval_custom_multi_input",  # winogrande-style multiple inputs
    "goeval_custom_multi_target",  # list/str targets; regex/lowercase/remove_whitespace/map/take_first; exact_match options
    "goeval_custom_include_a",  # include: + task_alias; tag inherited from the base
    "goeval_custom_include_b",  # include: + own tag list, num_fewshot, target_delimiter, metric_list
    "goeval_custom_rolling",  # loglikelihood_rolling, template target with a for loop
    "goeval_custom_ll_nodelim",  # loglikelihood, target_delimiter "", 2 shots
]
CUSTOM_GROUPS = ["goeval_custom_group", "goeval_custom_tag", "goeval_custom_tag_b"]  # a group and two tags
SCORING = ["goeval_custom_multi_target"]

# A user-facing example (repo root relative), its golden under golden_examples/.
EXAMPLES = [("capitals", "examples/tasks/capitals/capitals.yaml")]

# (task, num_fewshot): few-shot rendering over the synthetic training / few-shot splits.
VARIANTS = [
    ("rte", 3),  # default random sampler from the training split
    ("belebele_eng_Latn", 3),  # fewshot_config first_n over the eval split, the eval doc removed
    ("openbookqa_bn", 2),  # first_n from train; description glued to the first example
    ("nq_open", 3),  # description + fewshot_delimiter "\n" + list targets (first element)
    ("mgsm_direct_en", 3),  # the `answer is not none` branch on training docs
    ("wmt16-en-de", 2),  # fewshot_split validation
    # (arc_challenge_chat sets num_fewshot: 0, and lm-eval's CLI ignores --num_fewshot for such tasks)
    ("goeval_custom_genprefix_gen", 0),  # gen_prefix with no examples
    ("goeval_custom_fewshot_samples", 4),  # all five samples drawn (n+1) for the eval doc removal
    ("goeval_custom_description_field", 3),  # field description before three examples
]

N_DOCS = 12  # documents per split; a training split gets 14 (goeval_custom datasets: 10 and 12)

# ---------------------------------------------------------------- synthetic text

WORDS = ("river stone lamp garden window music paper silver forest ocean train market winter doctor yellow "
         "bridge candle mirror planet violin harbor pencil meadow castle").split()
# Every doc gets one of these; together they exercise JSON and Python-literal escaping.
SPICE = ["don't", 'said "yes"', "back\\slash", "café", "日本", "line\nbreak", "it's", "Zürich", "naïve idea",
         "ünïcödé"]


def words(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def text(rng, i, n=6, pad=True):
    """A phrase with the i-th spice; every fifth doc has leading/trailing spaces."""
    ws = [rng.choice(WORDS) for _ in range(n)]
    ws.insert(rng.randrange(len(ws) + 1), SPICE[i % len(SPICE)])
    s = " ".join(ws)
    s = s[0].upper() + s[1:]
    if pad and i % 5 == 3:
        s = "  " + s + " "
    return s


def word(rng, i):
    """A short choice; some with spice."""
    w = rng.choice(WORDS)
    return w if i % 3 else w + " " + SPICE[(i // 3) % len(SPICE)]


def choices(rng, i, n):
    out = []
    while len(out) < n:
        w = word(rng, i + len(out))
        if w not in out:
            out.append(w)
    return out


# ---------------------------------------------------------------- dataset schemas
# gen(rng, i, split) -> one document, keys in the real dataset's feature order.

def g_sciq(r, i, s):
    c = choices(r, i, 4)
    return {"question": text(r, i) + "?", "distractor3": c[0], "distractor1": c[1], "distractor2": c[2],
            "correct_answer": c[3], "support": text(r, i + 1, 12) if i % 4 else ""}


def g_anli(r, i, s):
    return {"uid": f"{s}-{i:04d}", "premise": text(r, i, 10), "hypothesis": text(r, i + 2, 5),
            "label": i % 3, "reason": "" if i % 2 else text(r, i + 4, 4)}


def glue(*fields):
    def g(r, i, s):
        d = {f: text(r, i + k * 3, 7) for k, f in enumerate(fields)}
        d["label"] = r.randrange(2)
        d["idx"] = i
        return d
    return g


def g_mc_taco(r, i, s):
    return {"sentence": text(r, i, 9), "question": text(r, i + 1, 4) + "?", "answer": word(r, i),
            "label": r.randrange(2), "category": r.randrange(5)}


def g_swag(r, i, s):
    s1, s2 = text(r, i, 6, pad=False), words(r, 3)
    e = choices(r, i, 4)
    return {"video-id": f"lsmdc_{i:04d}", "fold-ind": str(1000 + i), "startphrase": s1 + " " + s2,
            "sent1": s1, "sent2": s2, "gold-source": "gold" if i % 2 else "gen", "ending0": e[0],
            "ending1": e[1], "ending2": e[2], "ending3": e[3], "label": r.randrange(4)}


def g_siqa(r, i, s):
    c = choices(r, i, 3)
    return {"context": text(r, i, 8), "question": text(r, i + 1, 4) + "?", "answerA": c[0], "answerB": c[1],
            "answerC": c[2], "label": str(1 + r.randrange(3))}


def g_csqa(r, i, s):
    return {"id": f"{i:08x}", "question": text(r, i, 7) + "?", "question_concept": r.choice(WORDS),
            "choices": {"label": list("ABCDE"), "text": choices(r, i, 5)}, "answerKey": "ABCDE"[r.randrange(5)]}


def g_tqa_mc(r, i, s):
    n1, n2 = 2 + i % 4, 3 + i % 3
    return {"question": text(r, i, 6) + "?",
            "mc1_targets": {"choices": choices(r, i, n1), "labels": [1] + [0] * (n1 - 1)},
            "mc2_targets": {"choices": choices(r, i + 1, n2), "labels": [1, 1] + [0] * (n2 - 2)}}


def g_headqa(r, i, s):
    n = 4 if i % 3 else 5
    return {"name": f"Cuaderno_2013_1_{i}", "year": "2013", "category": r.choice(["medicine", "biology"]),
            "qid": i + 1, "qtext": text(r, i, 8), "ra": 1 + r.randrange(n), "image": None,
            "answers": [{"aid": k + 1, "atext": a} for k, a in enumerate(choices(r, i, n))]}


def g_prost(r, i, s):
    c = choices(r, i, 4)
    return {"A": c[0], "B": c[1], "C": c[2], "D": c[3], "context": text(r, i, 10),
            "question": "What is the [MASK]?", "ex_question": text(r, i + 1, 5) + "?",
            "group": r.choice(["bouncing", "breaking", "rolling"]), "label": r.randrange(4),
            "name": f"{r.choice(['bouncing', 'rolling'])}_{i}"}


def g_xstory(r, i, s):
    return {"story_id": f"{i:04d}-story", "input_sentence_1": text(r, i, 5), "input_sentence_2": text(r, i + 1, 5),
            "input_sentence_3": text(r, i + 2, 5), "input_sentence_4": text(r, i + 3, 5),
            "sentence_quiz1": text(r, i + 4, 4), "sentence_quiz2": text(r, i + 5, 4),
            "answer_right_ending": 1 + r.randrange(2)}


def g_belebele(r, i, s):
    a = choices(r, i, 4)
    return {"link": f"https://en.wikibooks.org/wiki/Page_{i}", "question_number": 1 + i % 2,
            "flores_passage": text(r, i, 14), "question": text(r, i + 1, 5) + "?", "mc_answer1": a[0],
            "mc_answer2": a[1], "mc_answer3": a[2], "mc_answer4": a[3], "correct_answer_num": str(1 + r.randrange(4)),
            "dialect": "eng_Latn", "ds": "2023-05-03 flores"}


def g_qa4mre(r, i, s):
    a = choices(r, i, 5)
    k = r.randrange(5)
    return {"topic_id": "1", "topic_name": "Alzheimer", "test_id": "1", "document_id": str(i // 4 + 1),
            "document_str": text(r, i, 16), "question_id": str(i + 1), "question_str": text(r, i + 1, 5) + "?",
            "answer_options": {"answer_id": [str(j + 1) for j in range(5)], "answer_str": a},
            "correct_answer_id": str(k + 1), "correct_answer_str": a[k]}


def g_multirc(r, i, s):
    # The answer is pasted into '''...''' Python source: no backslash, no trailing quote.
    ans = text(r, i, 4, pad=False).replace("\\", "/").rstrip("'\"")
    return {"paragraph": text(r, i + 1, 14), "question": text(r, i + 2, 5) + "?", "answer": ans,
            "idx": {"paragraph": i // 3, "question": i // 2, "answer": i}, "label": r.randrange(2)}


def g_wic(r, i, s):
    w = r.choice(WORDS)
    pre1, pre2 = text(r, i, 3, pad=False) + " ", words(r, 2) + " " + SPICE[(i + 4) % len(SPICE)] + " "
    s1, s2 = pre1 + w + " " + words(r, 3) + ".", pre2 + w + "s " + words(r, 2) + "."
    return {"word": w, "sentence1": s1, "sentence2": s2, "start1": len(pre1), "start2": len(pre2),
            "end1": len(pre1) + len(w), "end2": len(pre2) + len(w) + 1, "idx": i, "label": r.randrange(2)}


def g_xnli(r, i, s):
    return {"premise": text(r, i, 9), "hypothesis": text(r, i + 1, 5), "label": r.randrange(3)}


def g_arc(r, i, s):
    n = 4 if i % 5 else 3
    labels = list("1234"[:n]) if i % 4 == 1 else list("ABCD"[:n])
    return {"id": f"Mercury_{7000000 + i}", "question": text(r, i, 8) + "?",
            "choices": {"text": choices(r, i, n), "label": labels}, "answerKey": r.choice(labels)}


def g_blimp(r, i, s):
    good = text(r, i, 6, pad=False) + "."
    return {"sentence_good": good, "sentence_bad": good[:-1] + " " + r.choice(WORDS) + ".",
            "field": "syntax", "linguistics_term": "island_effects", "UID": "adjunct_island",
            "simple_LM_method": True, "one_prefix_method": i % 2 == 0, "two_prefix_method": False,
            "lexically_identical": i % 3 == 0, "pair_id": i}


def g_ethics(r, i, s):
    return {"label": r.randrange(2), "input": text(r, i, 9), "is_short": i % 2 == 0, "edited": i % 5 == 1}


def g_winogender(r, i, s):
    occ, par = r.choice(["technician", "accountant", "nurse"]), r.choice(["customer", "patient", "visitor"])
    pro = ["he", "SHE", "tHey", "his", "her"][i % 5]
    return {"sentid": f"{occ}.{par}.{i % 2}.{pro}.txt", "sentence": f"The {occ} told the {par} that {pro} "
            + words(r, 3) + " " + SPICE[i % len(SPICE)] + ".", "pronoun": pro, "occupation": occ, "participant": par,
            "gender": ["male", "female", "neutral"][i % 3], "target": occ if i % 2 else par, "label": i % 2}


def g_obqa(r, i, s):
    lab = list("ABCD")
    return {"id": f"{i + 7}-{i * 13 % 997}", "question_stem": text(r, i, 7),
            "choices": {"text": choices(r, i, 4), "label": lab}, "answerKey": r.choice(lab)}


def g_asdiv(r, i, s):
    n = r.randrange(2, 90)
    return {"body": text(r, i, 12), "question": text(r, i + 1, 5) + "?", "solution_type": "Addition",
            "answer": f"{n} ({r.choice(WORDS)}s)" if i % 4 else str(n), "formula": f"{n - 1}+1={n}"}


def g_lambada(r, i, s):
    t = text(r, i, 14, pad=False)
    if i % 5 == 3:
        t = "  " + t.replace(" ", "  ", 1)
    return {"text": t, "domain": None if s != "test" else r.choice(["Romance", "Fantasy"])}


def g_pile(set_name):
    def g(r, i, s):
        return {"text": "\n".join(text(r, i + k, 8) for k in range(1 + i % 3)), "meta": {"pile_set_name": set_name}}
    return g


def g_triviaqa(r, i, s):
    a = choices(r, i, 1 + i % 3)
    return {"question": text(r, i, 7), "question_id": f"tc_{i}", "question_source": "http://www.triviacountry.com/",
            "entity_pages": {"doc_source": [], "filename": [], "title": [], "wiki_context": []},
            "search_results": {"description": [], "filename": [], "rank": [], "title": [], "url": [],
                               "search_context": []},
            "answer": {"aliases": a, "normalized_aliases": [x.lower().strip() for x in a],
                       "matched_wiki_entity_name": "", "normalized_matched_wiki_entity_name": "",
                       "normalized_value": a[0].lower().strip(), "type": "WikipediaEntity", "value": a[0]}}


def g_nq(r, i, s):
    return {"question": text(r, i, 6, pad=False).lower(), "answer": choices(r, i, 1 + i % 2)}


def g_bbh_bool(r, i, s):
    ops = ["not", "True", "False", "and", "or", "(", ")"]
    return {"input": " ".join(r.choice(ops) for _ in range(7)) + " is", "target": r.choice(["True", "False"])}


def g_bbh_nav(r, i, s):
    steps = ". ".join(f"Take {r.randrange(1, 9)} steps" for _ in range(3))
    return {"input": f"If you follow these instructions, do you return to the starting point? {steps}. "
                     + SPICE[i % len(SPICE)] + "\nOptions:\n- Yes\n- No", "target": r.choice(["Yes", "No"])}


def g_mgsm(r, i, s):
    n = r.randrange(-5, 200)
    if s == "train":
        ans = "Step-by-Step Answer: " + text(r, i, 8, pad=False) + f". The answer is {n}."
        return {"question": "Question: " + text(r, i + 1, 8), "answer": ans, "answer_number": n,
                "equation_solution": f"{n} = {n}"}
    return {"question": text(r, i, 9), "answer": None, "answer_number": n, "equation_solution": None}


def g_gsm_plat(r, i, s):
    n = r.randrange(1, 5000)
    return {"question": text(r, i, 12), "answer": text(r, i + 1, 8, pad=False) + f"\n#### {n:,}",
            "cleaning_status": ["consensus", "cleaned", "consensus"][i % 3]}


def g_boolq(r, i, s):
    return {"question": text(r, i, 6, pad=False).lower(), "passage": text(r, i + 1, 15), "idx": i,
            "label": r.randrange(2)}


def g_unscramble(r, i, s):
    w = r.choice(WORDS)
    mid = list(w[1:-1])
    r.shuffle(mid)
    return {"context": f"Please unscramble the letters into a word, and write that word:\n{w[0]}{''.join(mid)}{w[-1]} =",
            "completion": w}


def g_wmt(r, i, s):
    return {"translation": {"de": text(r, i, 7), "en": text(r, i + 1, 7)}}


# ---------------------------------------------------------------- goeval_custom datasets

def g_c_qa(r, i, s):
    topic = ["history", "science", "ünïcode", "music"][i % 4]
    aliases = choices(r, i, 1 + (i + 1) % 3)  # the first test doc has two: lm-eval's multiple_target
    answer = "" if (s == "train" and i == 5) else aliases[0]  # a few-shot doc without answer
    return {"id": f"{s}-{i}", "topic": topic,
            "instruction": f"Answer the {topic} question." + ["\n\n", " ", ""][i % 3],
            "question": text(r, i, 6) + "?", "answer": answer, "aliases": aliases}


def g_c_mcq(r, i, s):
    return {"qid": 100 * (1 + ["train", "validation", "test"].index(s)) + i, "question": text(r, i, 6) + "?",
            "options": choices(r, i, 4), "label": r.randrange(4),
            "prefix": ["Answer:", "Réponse: ", "=>", "", "A:\n"][i % 5]}


SAMPLE_1 = {"premise": "Café \"Zürich\" closed early.", "choices": ["The staff went home.", "It stayed open."],
            "label": 0}  # == fewshot_samples.yaml's second sample


def g_c_samples(r, i, s):
    if i == 0:
        return dict(SAMPLE_1)
    return {"premise": text(r, i, 8) + ".", "choices": [text(r, i + 1, 4, pad=False), text(r, i + 2, 4, pad=False)],
            "label": r.randrange(2)}


def g_c_wino(r, i, s):
    o1, o2 = choices(r, i, 2)
    tail = "." if i % 4 == 2 else " " + words(r, 3) + "."
    return {"sentence": text(r, i, 5, pad=False) + " _" + tail, "option1": o1, "option2": o2,
            "answer": "12"[r.randrange(2)]}


def g_c_nli(r, i, s):
    return {"premise": text(r, i, 9), "hypothesis": text(r, i + 1, 5), "label": r.randrange(2)}


def g_c_lm(r, i, s):
    return {"title": words(r, 3).title(), "paragraphs": [text(r, i + k, 8) for k in range(1 + i % 3)],
            "prefix": text(r, i, 6, pad=False) + (" " if i % 2 else ""),
            "suffix": ("" if i % 2 else " ") + words(r, 2) + "."}


DATASETS = {
    ("allenai/sciq", None): g_sciq,
    ("facebook/anli", None): g_anli,
    ("nyu-mll/glue", "rte"): glue("sentence1", "sentence2"),
    ("nyu-mll/glue", "sst2"): glue("sentence"),
    ("nyu-mll/glue", "qnli"): glue("question", "sentence"),
    ("nyu-mll/glue", "wnli"): glue("sentence1", "sentence2"),
    ("nyu-mll/glue", "mrpc"): glue("sentence1", "sentence2"),
    ("nyu-mll/glue", "qqp"): glue("question1", "question2"),
    ("nyu-mll/glue", "cola"): glue("sentence"),
    ("CogComp/mc_taco", None): g_mc_taco,
    ("allenai/swag", "regular"): g_swag,
    ("lighteval/siqa", None): g_siqa,
    ("tau/commonsense_qa", None): g_csqa,
    ("truthfulqa/truthful_qa", "multiple_choice"): g_tqa_mc,
    ("EleutherAI/headqa", "en"): g_headqa,
    ("corypaik/prost", "data/default.jsonl"): g_prost,
    ("juletxara/xstory_cloze", "en"): g_xstory,
    ("facebook/belebele", "eng_Latn"): g_belebele,
    ("community-datasets/qa4mre", "2011.main.EN"): g_qa4mre,
    ("aps/super_glue", "multirc"): g_multirc,
    ("aps/super_glue", "wic"): g_wic,
    ("aps/super_glue", "boolq"): g_boolq,
    ("facebook/xnli", "en"): g_xnli,
    ("LumiOpen/arc_challenge_mt", "de"): g_arc,
    ("allenai/ai2_arc", "ARC-Challenge"): g_arc,
    ("nyu-mll/blimp", "adjunct_island"): g_blimp,
    ("EleutherAI/hendrycks_ethics", "commonsense"): g_ethics,
    ("oskarvanderwal/winogender", "all"): g_winogender,
    ("hishab/openbookqa-bn", None): g_obqa,
    ("EleutherAI/asdiv", None): g_asdiv,
    ("cimec/lambada", None): g_lambada,
    ("NeelNanda/pile-10k", None): g_pile("Pile-CC"),
    ("EleutherAI/pile", "pile_arxiv"): g_pile("ArXiv"),
    ("mandarjoshi/trivia_qa", "rc.nocontext"): g_triviaqa,
    ("google-research-datasets/nq_open", None): g_nq,
    ("SaylorTwift/bbh", "boolean_expressions"): g_bbh_bool,
    ("SaylorTwift/bbh", "navigate"): g_bbh_nav,
    ("juletxara/mgsm", "en"): g_mgsm,
    ("madrylab/gsm8k-platinum", "main"): g_gsm_plat,
    ("EleutherAI/unscramble", "mid_word_1_anagrams"): g_unscramble,
    ("wmt/wmt16", "de-en"): g_wmt,
    ("goeval_custom/qa", None): g_c_qa,
    ("goeval_custom/mcq", None): g_c_mcq,
    ("goeval_custom/samples", None): g_c_samples,
    ("goeval_custom/wino", None): g_c_wino,
    ("goeval_custom/nli", None): g_c_nli,
    ("goeval_custom/lm", None): g_c_lm,
}

HF_PREFIX = "hf://datasets/"


def is_local(cfg):
    """Whether a task's data are files it names itself (hand-written, next to its YAML)."""
    if cfg.get("dataset_path") not in ("json", "csv"):
        return False
    files = cfg["dataset_kwargs"]["data_files"]
    names = files.values() if isinstance(files, dict) else (files if isinstance(files, list) else [files])
    return not any(str(f).startswith(HF_PREFIX) for f in names)


def data_location(cfg):
    """(dataset key, {split: path relative to data/}) of a task's merged config."""
    splits = sorted({cfg.get(k) for k in ("training_split", "validation_split", "test_split", "fewshot_split")} - {None})
    path, name = cfg.get("dataset_path"), cfg.get("dataset_name")
    if path == "json":
        files = cfg["dataset_kwargs"]["data_files"]
        out = {}
        for split in splits:
            f = files[split]
            assert f.startswith(HF_PREFIX), f
            out[split] = f[len(HF_PREFIX):]
        repo = "/".join(next(iter(out.values())).split("/")[:2])
        files_in_repo = {f[len(repo) + 1:] for f in out.values()}
        assert len(files_in_repo) == 1, out
        return (repo, files_in_repo.pop()), out
    return (path, name), {s: f"{path}/{name or 'default'}/{s}.jsonl" for s in splits}


def write_data(tm, out):
    """Synthetic documents for every split the tasks use."""
    want = {}
    for t in TASKS + CUSTOM_TASKS:
        cfg = tm.task_index[t].cfg
        if is_local(cfg):
            continue
        key, files = data_location(cfg)
        want.setdefault(key, {}).update(files)
    for key in sorted(want, key=lambda k: (k[0], k[1] or "")):
        gen = DATASETS[key]
        for split, rel in sorted(want[key].items()):
            rng = random.Random(f"{key[0]}/{key[1]}/{split}")
            n = (10 if key[0].startswith(CUSTOM_DIR + "/") else N_DOCS) + (2 if split.startswith("train") else 0)
            p = os.path.join(out, "data", rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w", encoding="utf-8") as f:
                for i in range(n):
                    f.write(json.dumps(gen(rng, i, split), ensure_ascii=False) + "\n")


# ---------------------------------------------------------------- YAML files

class _IncludeLoader(yaml.SafeLoader):
    pass


_IncludeLoader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def copy_yaml(src_root, rel, out, seen):
    if rel in seen:
        return
    seen.add(rel)
    src = os.path.join(src_root, rel)
    dst = os.path.join(out, "tasks", rel)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(src, dst)
    with open(src, "rb") as f:
        raw = f.read()
    assert b"!function" not in raw, rel
    cfg = yaml.load(raw, Loader=_IncludeLoader)
    inc = cfg.get("include")
    for i in inc if isinstance(inc, list) else ([inc] if inc else []):
        assert not os.path.isabs(i), i
        copy_yaml(src_root, os.path.normpath(os.path.join(os.path.dirname(rel), i)), out, seen)


README = """# lm-eval YAML task parity data

`tasks/` holds task files of EleutherAI lm-evaluation-harness 0.4.13 (MIT
license, copyright EleutherAI), copied byte for byte from the installed
`lm_eval/tasks/` folder by `parity/lmeval/dump_yaml_tasks.py`, which also
writes everything else here, except `tasks/goeval_custom/`: goeval's own,
hand-written task files (and their local data files), which the script keeps
and reads. The documents under `data/` are synthetic (in each dataset's
Hugging Face schema); `golden/` is what lm-eval's own task objects build from
them (requests at the default few-shot, seed 1234, and in `golden/variants/`
at other few-shot counts; `golden/groups/`: the custom groups and tags;
`golden/scoring/`: filters and metrics over canned answers);
`golden_examples/` the same for `examples/tasks/`.

Regenerate: `.venv/bin/python parity/lmeval/dump_yaml_tasks.py`; verify:
`.venv/bin/python parity/lmeval/dump_yaml_tasks.py --check`.
"""

# ---------------------------------------------------------------- lm-eval run

DATA_DIR = None
CACHE_DIR = None
YAML_DIR = None  # folder of the task file being built: relative data_files are read from there


def check_docs(f, ds):
    """The documents lm-eval sees must be the file's, types and key order included
    (no ints turned floats, no strings turned timestamps)."""
    got = [json.dumps(dump_tasks.jsonable(d), ensure_ascii=False) for d in ds]
    with open(f, encoding="utf-8") as fh:
        if f.endswith(".json"):
            want = [json.dumps(d, ensure_ascii=False) for d in json.load(fh)]
        else:
            want = fh.read().splitlines()
    assert got == want, f"{f}: datasets' json loader changes the documents"


def load_local_files(path, data_files):
    """A task's own json/csv files, named relative to the working directory in
    lm-eval (and datasets): here relative to the task file's folder, as if
    lm-eval ran there. All splits in one load_dataset call, as lm-eval makes it."""
    def absolute(f):
        return f if os.path.isabs(f) else os.path.join(YAML_DIR, f)
    if isinstance(data_files, dict):
        files = {k: absolute(v) if isinstance(v, str) else [absolute(x) for x in v] for k, v in data_files.items()}
    elif isinstance(data_files, list):
        files = [absolute(x) for x in data_files]
    else:
        files = absolute(data_files)
    out = dump_tasks._real_load_dataset(path, data_files=files, cache_dir=CACHE_DIR)
    if path == "json":
        for split, ds in out.items():
            f = files[split] if isinstance(files, dict) else files
            check_docs(f, ds)
    return out


def local_load_dataset(path=None, name=None, data_files=None, **kwargs):
    """datasets.load_dataset replacement reading the synthetic jsonl files."""
    if path in ("json", "csv") and not any(
            str(f).startswith(HF_PREFIX)
            for f in (data_files.values() if isinstance(data_files, dict) else [data_files])):
        return load_local_files(path, data_files)
    if path == "json":
        files = {}
        for split, f in data_files.items():
            assert f.startswith(HF_PREFIX), f
            files[split] = os.path.join(DATA_DIR, f[len(HF_PREFIX):])
    else:
        d = os.path.join(DATA_DIR, path, name or "default")
        files = {f[:-len(".jsonl")]: os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".jsonl")}
    if not files:
        raise FileNotFoundError(f"no synthetic data for {path} {name}")
    # One split at a time: each file's column types are inferred on their own (a split whose
    # column is all null, such as mgsm's test answers, must not fix the type for the others).
    out = datasets.DatasetDict()
    for split, f in files.items():
        ds = dump_tasks._real_load_dataset("json", data_files={"train": f}, split="train", cache_dir=CACHE_DIR)
        check_docs(f, ds)
        out[split] = ds
    return out


def golden(task, name, yaml_rel, k=None):
    text = dump_task(task, name, k)
    head, rest = text.split("\n", 1)
    h = json.loads(head)
    cfg = task.config
    h["output_type"] = cfg.output_type
    h["metrics"] = [m["metric"] for m in cfg.metric_list or []]
    h["filters"] = [f["name"] for f in cfg.filter_list] if cfg.filter_list else ["none"]
    h["repeats"] = cfg.repeats
    h["yaml"] = yaml_rel
    if cfg.task_alias is not None:
        h["task_alias"] = cfg.task_alias
    return json.dumps(h, ensure_ascii=False) + "\n" + rest


def group_golden(tm, name, yaml_rel):
    """A group or tag as TaskManager.load gives it: members in order with their
    aliases and num_fewshot, and the group's own fields."""
    loaded = tm.load([name])
    tasks = loaded["tasks"]
    out = {"name": name}
    if loaded["groups"]:
        (g,) = loaded["groups"].values()
        out.update(kind="group", yaml=yaml_rel, group_alias=g.alias, version=g.version,
                   aggregate_metric_list=[dataclasses.asdict(a) for a in g.aggregate_metric_list or []],
                   metadata={k: v for k, v in (g.metadata or {}).items() if k != "config_source"},
                   members=g.child_names)
    else:
        out.update(kind="tag", members=list(tasks))
    out["tasks"] = [{"task": t, "task_alias": tk.config.task_alias, "num_fewshot": tk.config.num_fewshot,
                     "metrics": [m["metric"] for m in tk.config.metric_list or []]} for t, tk in tasks.items()]
    return json.dumps(out, ensure_ascii=False, indent=1) + "\n"


# Canned answers for the scoring golden, one per test doc, built from its aliases.
# Docs 2, 5 and 8 have one alias: their target is a string, and lm-eval (the first
# doc's target being a list, the task has multiple_target) scores it as list(string),
# its characters: "y" matches "yellow", " The answer is river." does not match "river".
CANNED = [
    lambda a: f" The answer is {a[0]}.",  # extract: the alias
    lambda a: f"[{a[-1].upper()}] so the answer is something else",  # group_select -1: the last match
    lambda a: a[0][0],  # a single character of the (string) target
    lambda a: f"ANSWER:   {a[0]}  \nmore",  # the second alternative; spaces stripped
    lambda a: "y",  # map: "yes"
    lambda a: f"The {a[-1]}!",  # regexes_to_ignore run before ignore_case: "The" stays
    lambda a: f"  {a[0].upper()}, the end.",
    lambda a: "forest",  # map: "the forest"
    lambda a: f" The answer is {a[0]}.",
    lambda a: f"the {a[-1]}!",  # "the" removed, then the leading space ("^ +")
]


def scoring_golden(task):
    """After golden(): give every request a canned answer, run lm-eval's filters
    and process_results; per doc the answer, each filter's output and the scores."""
    by_doc = {}
    for inst in task.instances:
        by_doc.setdefault(inst.doc_id, []).append(inst)
        inst.resps = [CANNED[inst.doc_id](inst.doc["aliases"])]
    task.apply_filters()
    lines = []
    for doc_id in sorted(by_doc):
        (inst,) = by_doc[doc_id]
        filtered = {k: v for k, v in inst.filtered_resps.items()}
        scores = {k: {m: float(x) for m, x in task.process_results(inst.doc, [v]).items()} for k, v in filtered.items()}
        lines.append(json.dumps({"doc_id": doc_id, "target": dump_tasks.jsonable(task.doc_to_target(inst.doc)),
                                 "response": inst.resps[0], "filtered": filtered, "scores": scores},
                                ensure_ascii=False))
    return "\n".join(lines) + "\n"


def generate(out):
    """Write everything but tasks/goeval_custom (which must already be in out) into out."""
    global DATA_DIR, CACHE_DIR, YAML_DIR
    import lm_eval.api.task as api_task
    from lm_eval.tasks import TaskManager, get_task_dict

    custom = os.path.join(out, "tasks", CUSTOM_DIR)
    assert os.path.isdir(custom), custom
    tm = TaskManager(include_path=custom)
    src_root = os.path.dirname(os.path.abspath(__import__("lm_eval.tasks", fromlist=["x"]).__file__))
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8") as f:
        f.write(README)
    seen = set()
    yaml_rel = {}
    yaml_dir = {}
    for t in TASKS:
        rel = os.path.relpath(str(tm.task_index[t].yaml_path), src_root)
        yaml_rel[t] = rel
        copy_yaml(src_root, rel, out, seen)
    tasks_root = os.path.abspath(os.path.join(out, "tasks"))
    for t in CUSTOM_TASKS + CUSTOM_GROUPS:
        p = tm.task_index[t].yaml_path
        if p is not None:
            yaml_rel[t] = os.path.relpath(str(p), tasks_root)
            yaml_dir[t] = os.path.dirname(str(p))
            assert not yaml_rel[t].startswith(".."), (t, p)
    write_data(tm, out)

    ex_tm = {}
    for name, rel in EXAMPLES:
        p = os.path.abspath(rel)
        ex_tm[name] = TaskManager(include_path=os.path.dirname(p), include_defaults=False)
        assert str(ex_tm[name].task_index[name].yaml_path) == p, p
        # relative to the committed tasks/ folder (also under --check, which writes elsewhere)
        yaml_rel[name] = os.path.relpath(p, os.path.abspath(os.path.join(OUT, "tasks")))
        yaml_dir[name] = os.path.dirname(p)

    DATA_DIR = os.path.join(out, "data")
    api_task.datasets.load_dataset = local_load_dataset
    api_task.tqdm = lambda it, *a, **kw: it  # no progress bars
    failed = []
    with tempfile.TemporaryDirectory() as cache:
        CACHE_DIR = cache
        gdir = os.path.join(out, "golden")
        for d in ("variants", "groups", "scoring"):
            os.makedirs(os.path.join(gdir, d), exist_ok=True)
        os.makedirs(os.path.join(out, "golden_examples"), exist_ok=True)
        jobs = [(tm, t, t, None, gdir) for t in TASKS + CUSTOM_TASKS]
        jobs += [(tm, t, dump_tasks.variant_name(t, k, False, False), k, os.path.join(gdir, "variants"))
                 for t, k in VARIANTS]
        jobs += [(ex_tm[n], n, n, None, os.path.join(out, "golden_examples")) for n, _ in EXAMPLES]
        for m, t, name, k, d in jobs:
            YAML_DIR = yaml_dir.get(t)
            try:
                td = get_task_dict([t], m)
                text = golden(td[t], name, yaml_rel[t], k)
                score = scoring_golden(td[t]) if t in SCORING and k is None else None
            except Exception as e:  # noqa: BLE001
                traceback.print_exc()
                failed.append(f"{name}: {type(e).__name__}: {e}")
                continue
            with open(os.path.join(d, name + ".jsonl"), "w", encoding="utf-8") as f:
                f.write(text)
            if score is not None:
                with open(os.path.join(gdir, "scoring", name + ".jsonl"), "w", encoding="utf-8") as f:
                    f.write(score)
        for g in CUSTOM_GROUPS:
            try:
                text = group_golden(tm, g, yaml_rel.get(g))
            except Exception as e:  # noqa: BLE001
                traceback.print_exc()
                failed.append(f"{g}: {type(e).__name__}: {e}")
                continue
            with open(os.path.join(gdir, "groups", g + ".json"), "w", encoding="utf-8") as f:
                f.write(text)
        YAML_DIR = None
    return failed


def wipe(out):
    """Delete everything under out except tasks/goeval_custom."""
    if not os.path.isdir(out):
        return
    for e in os.listdir(out):
        p = os.path.join(out, e)
        if e == "tasks" and os.path.isdir(p):
            for t in os.listdir(p):
                if t != CUSTOM_DIR:
                    q = os.path.join(p, t)
                    shutil.rmtree(q) if os.path.isdir(q) else os.remove(q)
        elif os.path.isdir(p):
            shutil.rmtree(p)
        else:
            os.remove(p)


def all_files(root):
    out = set()
    for d, _, fs in os.walk(root):
        for f in fs:
            out.add(os.path.relpath(os.path.join(d, f), root))
    return out


def diff_trees(want, got):
    bad = []
    for n in sorted(all_files(want) | all_files(got)):
        pw, pg = os.path.join(want, n), os.path.join(got, n)
        if not (os.path.exists(pw) and os.path.exists(pg)):
            bad.append(n + (" (missing)" if not os.path.exists(pw) else " (not regenerated)"))
        elif open(pw, "rb").read() != open(pg, "rb").read():
            bad.append(n)
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    custom = os.path.join(a.out, "tasks", CUSTOM_DIR)
    committed = os.path.join(OUT, "tasks", CUSTOM_DIR)
    if not os.path.isdir(committed):
        sys.exit(f"{committed}: goeval's own task files are missing (they are committed, never generated)")
    if not a.check:
        wipe(a.out)
        if not os.path.isdir(custom):  # --out elsewhere: take them from the repo
            shutil.copytree(committed, custom)
        failed = generate(a.out)
        for f in failed:
            print("lm-eval failed:", f, file=sys.stderr)
        sys.exit(1 if failed else 0)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        shutil.copytree(custom if os.path.isdir(custom) else committed, os.path.join(out, "tasks", CUSTOM_DIR))
        failed = generate(out)
        bad = failed + diff_trees(a.out, out)
        if bad:
            sys.exit("lm-eval YAML task data differ from the committed files: " + ", ".join(bad))
        print(f"lm-eval YAML task data identical ({len(TASKS)} lm-eval tasks + {len(CUSTOM_TASKS)} custom tasks "
              f"+ {len(CUSTOM_GROUPS)} groups/tags + {len(VARIANTS)} variants + {len(EXAMPLES)} examples)")


if __name__ == "__main__":
    main()
