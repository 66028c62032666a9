"""Run the lm_eval CLI with every dataset read from goeval's synthetic data.

Usage: python parity/e2e/lmeval_synth.py --synth-dir D [lm_eval CLI args...]

datasets.load_dataset is replaced (as parity/lmeval/dump_tasks.py does) by a
reader of the `goeval synth data` layout D/ORG/NAME/CONFIG/<split>-00000-of-00001.parquet,
so lm-eval's own task YAMLs run unchanged on the synthetic documents.
"""
import glob
import os
import sys

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import datasets  # noqa: E402

_real_load_dataset = datasets.load_dataset
SYNTH_DIR = None


def local_load_dataset(path=None, name=None, **kwargs):
    """datasets.load_dataset replacement reading goeval's synth layout."""
    root = os.path.join(SYNTH_DIR, path)
    sub = "data" if name in (None, "default") else name
    files = {}
    for f in sorted(glob.glob(os.path.join(root, sub, "*-00000-of-00001.parquet"))):
        files[os.path.basename(f).split("-00000-of-")[0]] = f
    if not files:
        raise FileNotFoundError(f"no synthetic data for {path} {name} under {root}")
    return _real_load_dataset("parquet", data_files=files)


def main():
    global SYNTH_DIR
    args = sys.argv[1:]
    if len(args) < 2 or args[0] != "--synth-dir":
        sys.exit("usage: lmeval_synth.py --synth-dir DIR [lm_eval args...]")
    SYNTH_DIR = os.path.abspath(args[1])
    datasets.load_dataset = local_load_dataset
    from lm_eval.__main__ import cli_evaluate

    sys.argv = ["lm_eval"] + args[2:]
    cli_evaluate()


if __name__ == "__main__":
    main()
