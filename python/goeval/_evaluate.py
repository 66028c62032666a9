"""goeval.evaluate: lm_eval.simple_evaluate's arguments in, its results
dict out, computed by ``goeval run``."""
from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Mapping, Optional, Sequence, Union

from ._errors import BadInputError
from ._process import PathArg, run_goeval
from ._progress import reporter
from ._results import Results, load_results, results_paths

Args = Union[str, Mapping[str, Any], None]


def _json_or_str(v: Any) -> str:
    return json.dumps(v) if isinstance(v, Mapping) else str(v)


def _seeds(random_seed: int, numpy_random_seed: int, torch_random_seed: int, fewshot_random_seed: int) -> str:
    return f"{random_seed},{numpy_random_seed},{torch_random_seed},{fewshot_random_seed}"


def _flag(name: str, value: Any) -> list[str]:
    """goeval run's flag for one argument; [] for None and False."""
    if value is None or value is False:
        return []
    if value is True:
        return [f"--{name}"]
    return [f"--{name}={value}"]


def _duration(v: Any) -> Any:
    """A timeout as goeval's flags take it: seconds (a number) as a Go
    duration, a string as given."""
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"python_timeout must be seconds or a duration string like \"90s\", not {v!r}")
    return f"{float(v):g}s"


def run_flags(model: Optional[PathArg], tasks: Union[str, Sequence[str]], o: Mapping[str, Any]) -> list[str]:
    """goeval run's command line for evaluate's arguments (o: the keyword
    arguments by name)."""
    if model is not None and not isinstance(model, (str, os.PathLike)):
        raise TypeError("model must be a checkpoint path, a Hub id or \"hf\" (with model_args); "
                        f"goeval cannot evaluate a Python {type(model).__name__} object")
    names = [tasks] if isinstance(tasks, str) else list(tasks)
    if not names or not all(isinstance(t, str) for t in names):
        raise TypeError("tasks must be task names (or task YAML paths); "
                        "lm-eval Task objects and dicts are not supported")
    args = ["run", "--tasks=" + ",".join(names)]
    if model is not None:
        args.append("--model=" + os.fspath(model))
    for a in o.get("adapters") or ():
        args.append("--adapter=" + os.fspath(a))
    fsm = o.get("fewshot_as_multiturn")
    pairs: list[tuple[str, Any]] = [
        ("model-args", None if o.get("model_args") is None else _json_or_str(o["model_args"])),
        ("num-fewshot", o.get("num_fewshot")), ("batch-size", o.get("batch_size")),
        ("max-batch-size", o.get("max_batch_size")), ("device", o.get("device")), ("dtype", o.get("dtype")),
        ("use-cache", o.get("use_cache")), ("limit", o.get("limit")),
        ("samples", None if o.get("samples") is None else _json_or_str(o["samples"])),
        ("bootstrap-iters", o.get("bootstrap_iters")), ("write-out", o.get("write_out")),
        ("log-samples", o.get("log_samples")), ("system-instruction", o.get("system_instruction")),
        ("apply-chat-template", o.get("apply_chat_template")),
        ("fewshot-as-multiturn", None if fsm is None else str(bool(fsm)).lower()),
        ("gen-kwargs", None if o.get("gen_kwargs") is None else _json_or_str(o["gen_kwargs"])),
        ("metadata", None if o.get("metadata") is None else _json_or_str(o["metadata"])),
        ("seed", o.get("seed")), ("data-dir", o.get("data_dir")), ("include-path", o.get("include_path")),
        ("adapter-mode", o.get("adapter_mode")), ("skip-base", o.get("skip_base")),
        ("output-path", o.get("output_path")), ("overwrite", o.get("overwrite")),
        ("fail-on-nonfinite", o.get("fail_on_nonfinite")), ("predict-only", o.get("predict_only")),
        ("check-integrity", o.get("check_integrity")), ("cache-requests", o.get("cache_requests")),
        ("confirm-run-unsafe-code", o.get("confirm_run_unsafe_code")),
        ("python", o.get("python")), ("python-timeout", _duration(o.get("python_timeout"))),
    ]
    for name, value in pairs:
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        args += _flag(name, value)
    return args + [str(a) for a in o.get("extra_args") or ()]


def _run(model: Optional[PathArg], tasks: Union[str, Sequence[str]], o: dict[str, Any]) -> list[Results]:
    """Runs goeval run and loads every model's results, in order."""
    for k in ("rewrite_requests_cache", "delete_requests_cache"):
        if o.pop(k, False):
            raise BadInputError(f"{k}: goeval has no request cache of prompts to rewrite or delete "
                                "(its --use-cache keeps model responses: remove the folder instead)")
    o["seed"] = _seeds(o.pop("random_seed"), o.pop("numpy_random_seed"), o.pop("torch_random_seed"),
                       o.pop("fewshot_random_seed"))
    env = dict(os.environ if o.get("env") is None else o["env"])
    env.setdefault("GOEVAL_PROGRESS_INTERVAL", f"{float(o.get('progress_interval') or 1.0):g}s")
    cwd, binary, rep = o.get("cwd"), o.get("binary"), reporter(o.get("progress"))
    if o.get("output_path") is not None:
        done = run_goeval(run_flags(model, tasks, o), reporter=rep, env=env, cwd=cwd, binary=binary)
        return [load_results(p, samples=bool(o.get("log_samples"))) for p in results_paths(done.stderr, cwd)]
    with tempfile.TemporaryDirectory(prefix="goeval-") as tmp:
        o["output_path"] = tmp
        done = run_goeval(run_flags(model, tasks, o), reporter=rep, env=env, cwd=cwd, binary=binary)
        return [load_results(p, samples=bool(o.get("log_samples"))) for p in results_paths(done.stderr, cwd)]
