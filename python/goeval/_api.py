"""The public functions: evaluate, evaluate_all, compare, plot."""
from __future__ import annotations

import json
import os
from typing import Any, Mapping, Optional, Sequence, Union

from ._errors import BadInputError
from ._evaluate import Args, _run
from ._process import PathArg, run_goeval
from ._progress import ProgressArg
from ._results import Results


def evaluate(
    model: Optional[PathArg] = None,
    tasks: Union[str, Sequence[str]] = (),
    *,
    model_args: Args = None,
    limit: Union[int, float, None] = None,
    adapters: Sequence[PathArg] = (),
    num_fewshot: Optional[int] = None,
    batch_size: Union[int, str, None] = None,
    max_batch_size: Optional[int] = None,
    device: Optional[str] = None,
    dtype: Optional[str] = None,
    use_cache: Optional[PathArg] = None,
    samples: Union[Mapping[str, Sequence[int]], str, None] = None,
    bootstrap_iters: Optional[int] = None,
    write_out: bool = False,
    log_samples: bool = True,
    system_instruction: Optional[str] = None,
    apply_chat_template: Union[bool, str] = False,
    fewshot_as_multiturn: Optional[bool] = None,
    gen_kwargs: Args = None,
    random_seed: int = 0,
    numpy_random_seed: int = 1234,
    torch_random_seed: int = 1234,
    fewshot_random_seed: int = 1234,
    metadata: Optional[Mapping[str, Any]] = None,
    predict_only: bool = False,
    check_integrity: bool = False,
    cache_requests: bool = False,
    rewrite_requests_cache: bool = False,
    delete_requests_cache: bool = False,
    confirm_run_unsafe_code: bool = False,
    verbosity: Optional[str] = None,
    task_manager: Any = None,
    evaluation_tracker: Any = None,
    data_dir: Optional[PathArg] = None,
    include_path: Optional[PathArg] = None,
    skip_base: Optional[bool] = None,
    adapter_mode: Optional[str] = None,
    output_path: Optional[PathArg] = None,
    overwrite: bool = False,
    fail_on_nonfinite: bool = False,
    python: Optional[PathArg] = None,
    python_timeout: Union[float, str, None] = None,
    extra_args: Sequence[str] = (),
    progress: ProgressArg = True,
    progress_interval: float = 1.0,
    env: Optional[Mapping[str, str]] = None,
    cwd: Optional[PathArg] = None,
    binary: Optional[PathArg] = None,
) -> Results:
    """Evaluates one model on tasks, as ``lm_eval.simple_evaluate`` does,
    with ``goeval run``; returns lm-eval's results dict.

    The arguments up to ``evaluation_tracker`` are simple_evaluate's (same
    names, defaults and meaning); goeval refuses, with a
    :class:`BadInputError`, those it cannot honour (``predict_only``,
    ``check_integrity``, ``cache_requests``, ``confirm_run_unsafe_code``,
    a named chat template). ``verbosity`` is ignored (goeval's messages go
    to the ``goeval`` logger). ``task_manager`` and ``evaluation_tracker``
    are Python objects of lm-eval's and are refused: use ``include_path``
    and ``output_path``.

    Args:
        model: a checkpoint folder, a Hub id ``ORG/NAME[@REV]``, or ``"hf"``
            with ``model_args="pretrained=DIR,..."`` (lm-eval's spelling);
            None takes the base from the adapter's adapter_config.json.
        tasks: task or group names (``goeval tasks`` lists them), or lm-eval
            task YAML paths.
        limit: documents per task: < 1 a fraction, >= 1 a count.
        adapters: one PEFT LoRA adapter folder to evaluate on ``model``
            (lm-eval's ``peft=``); more than one: :func:`evaluate_all`.
        dtype: ``auto`` (the default: the checkpoint's ``torch_dtype`` on a
            GPU, ``float32`` on a CPU), ``float32``, ``bfloat16`` or
            ``float16``.
        data_dir: a folder of Hugging Face dataset snapshots (``goeval
            synth data`` writes synthetic ones); the HF cache is searched
            after it.
        include_path: folder(s) of lm-eval task YAML files.
        skip_base: with adapters, False also evaluates the base model
            (then use :func:`evaluate_all`); default True here.
        adapter_mode: ``separate``, ``merged`` or ``auto``.
        output_path: also keep goeval's files (results and samples, as
            lm-eval's ``--output_path`` writes them) under this folder;
            default: a temporary folder, removed.
        overwrite, fail_on_nonfinite: ``goeval run``'s flags of those names.
        python: the Python interpreter (a path, or a name on PATH) that runs
            the Python functions task files name with ``!function``
            (``goeval run --python``; default ``python3``; ``"none"``
            refuses such tasks).
        python_timeout: the longest one call of such a function may take:
            seconds, or a Go duration such as ``"90s"``
            (``goeval run --python-timeout``).
        extra_args: more ``goeval run`` flags, as given on its command line.
        progress: True: a tqdm bar when tqdm is installed, else goeval's
            progress lines on stderr; False: nothing; a callable: called
            with each :class:`Progress`.
        progress_interval: seconds between progress reports.
        env: the binary's environment (default: this process's).
        cwd: the binary's working folder (relative paths are resolved there).
        binary: the goeval binary (default: :func:`binary_path`).

    Returns:
        The results dict of ``lm_eval.simple_evaluate``: ``results``,
        ``groups`` (when a group ran), ``group_subtasks``, ``configs``,
        ``versions``, ``n-shot``, ``higher_is_better``, ``n-samples``,
        ``samples`` (with log_samples), ``config``, ``git_hash`` (goeval's
        commit), ``date``, the tokenizer keys; plus the keys lm-eval's
        results file adds (``task_hashes``, ``model_name``, ...,
        ``total_evaluation_time_seconds``) and goeval's own
        (``goeval_version``, ``goeval_timing``). simple_evaluate's
        environment keys (``pretty_env_info``, ``transformers_version``,
        ``lm_eval_version``, ``upper_git_hash``) are absent.

    Raises:
        BadInputError: goeval refused the input (exit status 2), or the
            arguments name more than one model.
        GoevalError: the evaluation failed (exit status 1).
        TypeError: model or tasks are Python objects, or task_manager or
            evaluation_tracker is given.
    """
    o = dict(locals())
    o.pop("model"), o.pop("tasks")
    if skip_base is None and adapters:
        o["skip_base"] = True
    runs = _evaluate_runs(model, tasks, o)
    if len(runs) != 1:
        raise BadInputError(f"the arguments evaluate {len(runs)} models; use goeval.evaluate_all for more than one")
    return runs[0]


def evaluate_all(model: Optional[PathArg] = None, tasks: Union[str, Sequence[str]] = (),
                 **kwargs: Any) -> list[Results]:
    """Evaluates several models in one ``goeval run``, with the arguments
    of :func:`evaluate`; returns their results dicts in evaluation order.

    Several models are a checkpoint sweep (``model="ckpts/step-*"`` or
    ``"a,b,c"``: comma-separated folders and globs) or a base model with
    adapters (the base first unless ``skip_base=True``; the base weights
    are loaded once). With ``output_path``, models whose results of the
    same settings are already there are not evaluated again (their files
    are read), unless ``overwrite=True``.
    """
    o = dict(evaluate.__kwdefaults__ or {})
    unknown = set(kwargs) - set(o)
    if unknown:
        raise TypeError(f"evaluate_all() got unexpected keyword argument(s): {', '.join(sorted(unknown))}")
    o.update(kwargs)
    return _evaluate_runs(model, tasks, o)


def _evaluate_runs(model: Optional[PathArg], tasks: Union[str, Sequence[str]], o: dict[str, Any]) -> list[Results]:
    for k in ("task_manager", "evaluation_tracker"):
        if o.pop(k, None) is not None:
            raise TypeError(f"{k} is an lm-eval object goeval cannot use: give include_path (task folders) "
                            "or output_path (files) instead")
    o.pop("verbosity", None)
    return _run(model, tasks, o)


def compare(*runs: PathArg, bootstrap_iters: Optional[int] = None, seed: Optional[int] = None,
            binary: Optional[PathArg] = None) -> dict[str, Any]:
    """Compares runs against the first with ``goeval compare --format
    json``: per task and metric each run's value and stderr, and each later
    run's change with a paired significance test (exact McNemar for 0/1
    metrics, paired bootstrap otherwise, a z-test without samples files).

    Args:
        runs: results files or folders (a folder: the newest results file
            of every model folder under it); lm-eval's own files too.
        bootstrap_iters: paired bootstrap resamples (goeval's default 10000).
        seed: the bootstrap's seed.

    Returns:
        goeval's JSON: ``runs``, ``results_files``, ``alpha`` and ``rows``
        (``task``, ``metric``, ``filter``, ``higher_is_better``, ``values``,
        ``stderrs``, ``changes``: ``run``, ``abs``, ``rel``, ``test``,
        ``p``, ``ci_low``, ``ci_high``, ``significant``, ...). NaN is None.
    """
    if len(runs) < 2:
        raise BadInputError("compare needs at least two runs (the first is the baseline)")
    args = ["compare", "--format=json"]
    if bootstrap_iters is not None:
        args.append(f"--bootstrap-iters={bootstrap_iters}")
    if seed is not None:
        args.append(f"--seed={seed}")
    done = run_goeval(args + [os.fspath(r) for r in runs], binary=binary)
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def plot(*runs: PathArg, output: PathArg, kind: str = "scores", metric: Optional[str] = None,
         top_k: Optional[int] = None, binary: Optional[PathArg] = None) -> str:
    """Draws runs with ``goeval plot`` into output (.png or .svg) and
    returns its path. kind: ``scores``, ``compare`` (changes against the
    first run) or ``sweep`` (score vs checkpoint; runs in step order)."""
    args = ["plot", f"--kind={kind}", f"-o={os.fspath(output)}"]
    if metric is not None:
        args.append(f"--metric={metric}")
    if top_k is not None:
        args.append(f"--top-k={top_k}")
    run_goeval(args + [os.fspath(r) for r in runs], binary=binary)
    return os.fspath(output)
