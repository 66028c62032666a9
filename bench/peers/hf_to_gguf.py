#!/usr/bin/env python3
"""Converts a Hugging Face checkpoint to an f32 GGUF file for llama.cpp.

Usage: hf_to_gguf.py --model DIR --out FILE.gguf [--adapter PEFT_DIR]

With --adapter, the PEFT LoRA adapter (for the base model DIR) is converted
instead, with that revision's convert_lora_to_gguf.py, to a GGUF LoRA file
that llama.cpp applies at run time.

It runs llama.cpp's own convert_hf_to_gguf.py, taken from the llama.cpp
source that the npm package node-llama-cpp ships
(node_modules/node-llama-cpp/llama/gitRelease.bundle, the same llama.cpp
revision as its prebuilt binaries), together with that revision's gguf-py.
The scripts are extracted once into .cache/llama.cpp-convert/<bundle hash>/.
Weights are written as f32 (--outtype f32); tensor names, q/k permutation,
llama3 rope factors and tokenizer metadata are llama.cpp's.
Needs `npm ci` in bench/peers, git, and the .venv (torch, numpy, transformers).
"""

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUNDLE = os.path.join(HERE, "node_modules", "node-llama-cpp", "llama", "gitRelease.bundle")
PATHS = ["convert_hf_to_gguf.py", "convert_lora_to_gguf.py", "conversion", "gguf-py", "LICENSE"]


def bundle_hash():
    """Short sha256 of the bundle, naming the extraction folder."""
    h = hashlib.sha256()
    with open(BUNDLE, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def extract():
    """Extracts the convert script from the bundle; returns its folder."""
    if not os.path.isfile(BUNDLE):
        raise SystemExit(f"hf_to_gguf: {BUNDLE} not found: run 'npm ci' in {HERE}")
    dest = os.path.join(ROOT, ".cache", "llama.cpp-convert", bundle_hash())
    if all(os.path.exists(os.path.join(dest, p)) for p in PATHS):
        return dest
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(dest)) as tmp:
        repo, out = os.path.join(tmp, "repo"), os.path.join(tmp, "out")
        os.makedirs(out)
        run = lambda *a, **kw: subprocess.run(a, check=True, **kw)  # noqa: E731
        run("git", "init", "-q", repo)
        run("git", "-C", repo, "fetch", "-q", BUNDLE, "HEAD")
        archive = subprocess.run(["git", "-C", repo, "archive", "FETCH_HEAD", *PATHS],
                                 check=True, capture_output=True).stdout
        run("tar", "-x", "-C", out, input=archive)
        if os.path.isdir(dest):  # an older extraction without every script
            os.rename(dest, os.path.join(tmp, "old"))
        os.replace(out, dest)
    return dest


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="Hugging Face model folder")
    ap.add_argument("--out", required=True, help="output .gguf file")
    ap.add_argument("--adapter", help="PEFT LoRA adapter folder for --model: convert it instead")
    args = ap.parse_args()
    if not os.path.isfile(os.path.join(args.model, "config.json")):
        raise SystemExit(f"hf_to_gguf: {args.model}/config.json not found")
    src = extract()
    env = dict(os.environ)
    env.pop("NO_LOCAL_GGUF", None)  # use the bundled gguf-py of the same revision
    cmd = [sys.executable, os.path.join(src, "convert_hf_to_gguf.py"), "--outtype", "f32",
           "--outfile", args.out, args.model]
    if args.adapter:
        cmd = [sys.executable, os.path.join(src, "convert_lora_to_gguf.py"), "--outtype", "f32",
               "--base", args.model, "--outfile", args.out, args.adapter]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stderr[-4000:])
        raise SystemExit(f"hf_to_gguf: {os.path.basename(cmd[1])} failed on {args.adapter or args.model}")
    print(args.out)


if __name__ == "__main__":
    main()
