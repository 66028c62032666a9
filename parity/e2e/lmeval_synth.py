"""Run the lm_eval CLI with every dataset read from goeval's synthetic data.

Usage: python parity/e2e/lmeval_synth.py [--synth-dir D] [--yaml-data-dir Y] [--data-files-dir F]
       [--bootstrap-iters N] [lm_eval CLI args...]

datasets.load_dataset is replaced by a reader of local files, so lm-eval's own
task YAMLs run unchanged on the synthetic documents:
- --synth-dir D (as parity/lmeval/dump_tasks.py does): the `goeval synth data`
  layout D/ORG/NAME/CONFIG/<split>-00000-of-00001.parquet;
- --yaml-data-dir Y (as parity/lmeval/dump_yaml_tasks.py does): the jsonl layout
  of tasks/testdata/lmeval_yaml/data, Y/<path>/<name or default>/<split>.jsonl,
  and for `path == "json"` tasks each hf://datasets/ORG/NAME/PATH data file at
  Y/ORG/NAME/PATH.
With both, a dataset is read from Y when Y has it, else from D.
--data-files-dir F: a `path == "json"` dataset whose data_files are relative
local files (a {split: file} mapping) reads them from F, as datasets would
from its working directory (e.g. examples/tasks/capitals: lm_eval runs from
the repo root, so that the results record the YAML path under it), through
the real json loader one split at a time with the same document check.
--bootstrap-iters N passes bootstrap_iters=N to simple_evaluate (lm_eval's CLI
has no such flag and always uses 100000).
"""
import glob
import json
import os
import sys
import tempfile

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import datasets  # noqa: E402

_real_load_dataset = datasets.load_dataset
SYNTH_DIR = None
YAML_DATA_DIR = None
DATA_FILES_DIR = None
CACHE_DIR = None
HF_PREFIX = "hf://datasets/"


def jsonable(x):
    """parity/lmeval/dump_tasks.py's jsonable: tuples as lists."""
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, dict):
        return {k: jsonable(v) for k, v in x.items()}
    return x


def yaml_files(path, name, data_files):
    """{split: jsonl file} of a dataset in YAML_DATA_DIR (empty if it has none)."""
    if path == "json":
        files = {}
        for split, f in (data_files or {}).items():
            if not f.startswith(HF_PREFIX):
                raise ValueError(f"json data file {f}: only {HF_PREFIX}... files are synthesized")
            files[split] = os.path.join(YAML_DATA_DIR, f[len(HF_PREFIX):])
        return files
    d = os.path.join(YAML_DATA_DIR, path, name or "default")
    if not os.path.isdir(d):
        return {}
    return {f[:-len(".jsonl")]: os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".jsonl")}


def load_yaml_data(files):
    """parity/lmeval/dump_yaml_tasks.py's local_load_dataset: one split at a
    time (each file's column types are inferred on their own: a split whose
    column is all null must not fix the type for the others), each checked to
    give back the file's documents, types and key order included."""
    out = datasets.DatasetDict()
    for split, f in files.items():
        ds = _real_load_dataset("json", data_files={"train": f}, split="train", cache_dir=CACHE_DIR)
        with open(f, encoding="utf-8") as fh:
            want = fh.read().splitlines()
        got = [json.dumps(jsonable(d), ensure_ascii=False) for d in ds]
        assert got == want, f"{f}: datasets' json loader changes the documents"
        out[split] = ds
    return out


def relative_json_files(path, data_files):
    """{split: file under DATA_FILES_DIR} of a json dataset naming relative
    local files (empty for any other dataset)."""
    if not DATA_FILES_DIR or path != "json" or not isinstance(data_files, dict):
        return {}
    if any(not isinstance(f, str) or f.startswith(HF_PREFIX) or os.path.isabs(f) for f in data_files.values()):
        return {}
    return {split: os.path.join(DATA_FILES_DIR, f) for split, f in data_files.items()}


def local_load_dataset(path=None, name=None, data_files=None, **kwargs):
    """datasets.load_dataset replacement reading the local synthetic files."""
    files = relative_json_files(path, data_files)
    if files:
        return load_yaml_data(files)
    if YAML_DATA_DIR:
        files = yaml_files(path, name, data_files)
        if files:
            return load_yaml_data(files)
    if SYNTH_DIR is None:
        raise FileNotFoundError(f"no synthetic data for {path} {name} under {YAML_DATA_DIR}")
    root = os.path.join(SYNTH_DIR, path)
    sub = "data" if name in (None, "default") else name
    files = {}
    for f in sorted(glob.glob(os.path.join(root, sub, "*-00000-of-00001.parquet"))):
        files[os.path.basename(f).split("-00000-of-")[0]] = f
    if not files:
        raise FileNotFoundError(f"no synthetic data for {path} {name} under {root}")
    return _real_load_dataset("parquet", data_files=files)


def main():
    global SYNTH_DIR, YAML_DATA_DIR, DATA_FILES_DIR, CACHE_DIR
    args = sys.argv[1:]
    bootstrap_iters = None
    while len(args) >= 2 and args[0] in ("--synth-dir", "--yaml-data-dir", "--data-files-dir",
                                             "--bootstrap-iters"):
        if args[0] == "--synth-dir":
            SYNTH_DIR = os.path.abspath(args[1])
        elif args[0] == "--yaml-data-dir":
            YAML_DATA_DIR = os.path.abspath(args[1])
        elif args[0] == "--data-files-dir":
            DATA_FILES_DIR = os.path.abspath(args[1])
        else:
            bootstrap_iters = int(args[1])
        args = args[2:]
    if SYNTH_DIR is None and YAML_DATA_DIR is None and DATA_FILES_DIR is None:
        sys.exit("usage: lmeval_synth.py [--synth-dir DIR] [--yaml-data-dir DIR] [--data-files-dir DIR] "
                 "[--bootstrap-iters N] [lm_eval args...]")
    datasets.load_dataset = local_load_dataset
    if bootstrap_iters is not None:
        import lm_eval.evaluator

        simple_evaluate = lm_eval.evaluator.simple_evaluate

        def simple_evaluate_iters(*a, **kw):
            kw["bootstrap_iters"] = bootstrap_iters
            return simple_evaluate(*a, **kw)

        # The CLI imports it through lm_eval.__getattr__, i.e. from lm_eval.evaluator, at run time.
        lm_eval.evaluator.simple_evaluate = simple_evaluate_iters
    from lm_eval.__main__ import cli_evaluate

    sys.argv = ["lm_eval"] + args
    with tempfile.TemporaryDirectory() as cache:
        CACHE_DIR = cache
        cli_evaluate()


if __name__ == "__main__":
    main()
