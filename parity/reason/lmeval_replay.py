"""Run lm-eval (parity/e2e/lmeval_synth.py) with its Hugging Face model's
generations replaced by recorded ones, so that lm-eval's own filters,
metrics and aggregation score exactly the answers goeval scored.

Usage: python parity/reason/lmeval_replay.py --replay FILE [--think-end TOKEN] [--code-eval DIR]
       [lmeval_synth.py args...]

FILE is JSON: {task: {doc_id: [[answer, ...] per request]}}, the answers of
each request in repeat order (goeval's samples files' "resps"). HFLM loads
the model as usual (its tokenizer, max_length and names go into the results
file); only HFLM.generate_until is replaced: lm-eval sends a request with
repeats K as K consecutive copies of one Instance, and the k-th copy gets
the k-th recorded answer.

With --think-end TOKEN the recorded answers are raw generations holding a
reasoning part, and each goes through lm-eval's own
postprocess_generated_text(answer, until, TOKEN) — what HFLM.generate_until
does with model_args think_end_token — before lm-eval sees it.

With --code-eval DIR, `evaluate.load("code_eval")` (humaneval's and mbpp's
utils.py) loads Hugging Face evaluate's code_eval metric from DIR, a copy of
the evaluate repository's metrics/code_eval folder, instead of the Hub.
"""
import collections
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "e2e"))
import lmeval_synth  # noqa: E402


def install(replay, think_end):
    from lm_eval.models.huggingface import HFLM
    from lm_eval.models.utils import postprocess_generated_text

    served = collections.Counter()

    def generate_until(self, requests, disable_tqdm=False):
        out = []
        for req in requests:
            key = (req.task_name, str(req.doc_id), req.idx)
            answers = replay[req.task_name][str(req.doc_id)][req.idx]
            text = answers[served[key]]
            served[key] += 1
            if think_end is not None:
                until = req.args[1].get("until")
                text = postprocess_generated_text(text, until, think_end)
            out.append(text)
        return out

    HFLM.generate_until = generate_until


def local_code_eval(d):
    import evaluate

    load = evaluate.load

    def load_local(path, *a, **kw):
        return load(d if path == "code_eval" else path, *a, **kw)

    evaluate.load = load_local


def main():
    args = sys.argv[1:]
    replay_file, think_end = None, None
    while len(args) >= 2 and args[0] in ("--replay", "--think-end", "--code-eval"):
        if args[0] == "--replay":
            replay_file = args[1]
        elif args[0] == "--think-end":
            think_end = args[1]
        else:
            local_code_eval(os.path.abspath(args[1]))
        args = args[2:]
    if replay_file is None:
        sys.exit("usage: lmeval_replay.py --replay FILE [--think-end TOKEN] [lmeval_synth.py args...]")
    with open(replay_file, encoding="utf-8") as f:
        install(json.load(f), think_end)
    sys.argv = [sys.argv[0]] + args
    lmeval_synth.main()


if __name__ == "__main__":
    main()
