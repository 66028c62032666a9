"""GoevalCallback: a ``transformers.TrainerCallback`` that evaluates every
checkpoint the Trainer saves with goeval, in a background process, and logs
the scores with the checkpoint's global step to the Trainer's loggers.

Works with ``transformers.Trainer`` and the trainers built on it (TRL's
SFTTrainer, DPOTrainer, ...; LLaMA-Factory's ``run_exp(callbacks=[...])``).
Needs transformers; import it as ``from goeval.callback import
GoevalCallback`` (or ``goeval.GoevalCallback``).
"""
from __future__ import annotations

import copy
import logging
import os
import queue
import re
import shutil
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Mapping, Optional, Sequence, Union

from transformers import TrainerCallback

from ._errors import GoevalError
from ._process import PathArg, run_goeval
from ._results import Results, load_results, results_paths
from ._staging import adapter_base, local_dir, model_dir, stage

log = logging.getLogger("goeval")


@dataclass
class _Job:
    step: int
    epoch: Optional[float]
    name: str  # checkpoint-N: the model (or adapter) folder name and results folder
    cwd: Path  # the folder holding the (staged) checkpoint
    base: Optional[str]  # the base model of an adapter checkpoint


def metrics_of(results: Results, prefix: str = "eval_goeval/") -> dict[str, float]:
    """A results dict's scores as flat log entries: ``PREFIX TASK/METRIC``
    (``,FILTER`` appended unless the filter is ``none``); stderrs and
    non-numbers left out."""
    out: dict[str, float] = {}
    for task, entry in results.get("results", {}).items():
        for key, v in entry.items():
            if "," not in key or "_stderr," in key or isinstance(v, bool) or not isinstance(v, (int, float)):
                continue
            metric, filt = key.split(",", 1)
            out[f"{prefix}{task}/{metric}" + ("" if filt == "none" else f",{filt}")] = float(v)
    return out


class GoevalCallback(TrainerCallback):
    """Evaluates each checkpoint the Trainer saves on tasks, with goeval.

    On every save (``on_save``) the checkpoint folder
    ``<output_dir>/checkpoint-<step>`` (a PEFT adapter folder when the model
    is a PeftModel: evaluated on its base model) is hard-linked into the
    sweep folder, so checkpoint rotation cannot remove it, and queued; one
    background ``goeval run`` at a time evaluates the queue, on the CPU
    unless ``device`` says otherwise. Each checkpoint's results (and
    samples) land in ``<sweep_dir>/checkpoint-<step>/``, as ``goeval plot
    --sweep`` reads them; its log in ``<sweep_dir>/logs/``.

    Finished scores are logged at the next step, save or end of training,
    with the checkpoint's global step: appended to ``state.log_history``
    and passed to every callback's ``on_log`` (the TensorBoard, W&B, MLflow
    ... loggers), as ``Trainer.log`` does. At the end of training the
    callback waits for the queue (``wait_at_end``) and draws
    ``<sweep_dir>/sweep.png`` (``plot``).

    Args:
        tasks: goeval task or group names.
        limit: documents per task (< 1: a fraction).
        sweep_dir: the sweep folder (default ``<output_dir>/goeval``).
        device: goeval's ``--device`` (default ``cpu``: never the training
            GPU unless asked).
        base_model: the base model of adapter checkpoints (default: the
            PeftModel's record, else adapter_config.json's).
        tokenizer_dir: tokenizer files for checkpoints saved without one
            (default: the folder the model was loaded from, when local).
        data_dir, include_path, num_fewshot, batch_size, dtype: ``goeval
            run``'s flags.
        log_samples: keep samples files (``goeval compare`` then runs
            paired tests between checkpoints).
        extra_args: more ``goeval run`` flags.
        metric_prefix: prefix of the logged names (``eval_`` makes W&B
            file them under ``eval/``).
        threads: GOMAXPROCS for goeval (default: every core).
        env: the binary's environment (default: this process's).
        binary: the goeval binary (default: the wheel's).
        trainer: the Trainer, whose callback handler receives the logs
            (default: found from the handler that calls this callback).

    Attributes:
        results: step -> lm-eval results dict, for each finished checkpoint.
        errors: step -> the GoevalError of each failed evaluation.
    """

    def __init__(self, tasks: Union[str, Sequence[str]], *, limit: Union[int, float, None] = None,
                 sweep_dir: Optional[PathArg] = None, device: str = "cpu", base_model: Optional[str] = None,
                 tokenizer_dir: Optional[PathArg] = None, data_dir: Optional[PathArg] = None,
                 include_path: Optional[PathArg] = None, num_fewshot: Optional[int] = None,
                 batch_size: Union[int, str, None] = None, dtype: Optional[str] = None, log_samples: bool = True,
                 extra_args: Sequence[str] = (), metric_prefix: str = "eval_goeval/", wait_at_end: bool = True,
                 plot: bool = True, threads: Optional[int] = None, env: Optional[Mapping[str, str]] = None,
                 binary: Optional[PathArg] = None, trainer: Any = None) -> None:
        self.tasks = [tasks] if isinstance(tasks, str) else list(tasks)
        self.sweep_dir = Path(sweep_dir).resolve() if sweep_dir is not None else None
        self.device, self.metric_prefix = device, metric_prefix
        self.base_model = str(local_dir(base_model) or base_model) if base_model else None
        self.tokenizer_dir = Path(tokenizer_dir).resolve() if tokenizer_dir is not None else None
        self.wait_at_end, self.draw_plot, self.binary = wait_at_end, plot, binary
        self._flags = self._run_flags(limit, data_dir, include_path, num_fewshot, batch_size, dtype,
                                      log_samples, extra_args)
        self._env = dict(os.environ if env is None else env)
        self._env.setdefault("GOEVAL_PROGRESS_INTERVAL", "30s")
        if threads is not None:
            self._env["GOMAXPROCS"] = str(threads)
        self._handler = getattr(trainer, "callback_handler", None)
        self.results: dict[int, Results] = {}
        self.errors: dict[int, GoevalError] = {}
        self._jobs: "queue.Queue[Optional[_Job]]" = queue.Queue()
        self._done: "queue.Queue[tuple[_Job, Union[Results, GoevalError]]]" = queue.Queue()
        self._worker: Optional[threading.Thread] = None
        self._sweep: Optional[Path] = self.sweep_dir

    def _run_flags(self, limit: Any, data_dir: Any, include_path: Any, num_fewshot: Any, batch_size: Any,
                   dtype: Any, log_samples: bool, extra_args: Sequence[str]) -> list[str]:
        flags = ["--tasks=" + ",".join(self.tasks), f"--device={self.device}"]
        for name, v in (("limit", limit), ("num-fewshot", num_fewshot), ("batch-size", batch_size),
                        ("dtype", dtype)):
            if v is not None:
                flags.append(f"--{name}={v}")
        for name, p in (("data-dir", data_dir), ("include-path", include_path)):
            if p is not None:  # absolute: goeval runs in the sweep folder
                flags.append(f"--{name}=" + ",".join(str(Path(x).resolve()) for x in str(p).split(",")))
        if log_samples:
            flags.append("--log-samples")
        return flags + [str(a) for a in extra_args]

    # Trainer events.

    def on_init_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._find_handler()

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._find_handler()

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._find_handler()
        self._emit(args, state, control)

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._find_handler()
        if not state.is_world_process_zero:
            return
        self._enqueue(args, state, kwargs.get("model"))
        if self.wait_at_end and state.max_steps and state.global_step >= state.max_steps:
            self.wait()  # the last save: finish before the loggers close at on_train_end
        self._emit(args, state, control)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._find_handler()
        if not state.is_world_process_zero:
            return
        if self.wait_at_end:
            self.wait()
        self._emit(args, state, control)
        if self.wait_at_end:
            self._jobs.put(None)  # the worker ends; a later train() starts another
            if self._worker is not None:
                self._worker.join()
            self._worker = None
            if self.draw_plot and self.results:
                self.plot()

    # The queue.

    def _enqueue(self, args: Any, state: Any, model: Any) -> None:
        ckpt = Path(args.output_dir) / f"checkpoint-{state.global_step}"
        if not ckpt.is_dir():
            log.warning("goeval callback: no checkpoint folder %s after a save; not evaluated", ckpt)
            return
        sweep = self._sweep = self.sweep_for(args)
        staged = stage(ckpt, sweep / ".staging" / ckpt.name, self.tokenizer_dir or model_dir(model))
        base = None
        if (staged / "adapter_config.json").is_file():
            base = self.base_model or adapter_base(staged, model)
        self._jobs.put(_Job(state.global_step, state.epoch, ckpt.name, staged.parent, base))
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, args=(sweep,), name="goeval-callback", daemon=True)
            self._worker.start()

    def sweep_for(self, args: Any) -> Path:
        """The sweep folder for the Trainer's arguments."""
        return self.sweep_dir or (Path(args.output_dir) / "goeval").resolve()

    def _work(self, sweep: Path) -> None:
        while True:
            job = self._jobs.get()
            try:
                if job is None:
                    return
                self._done.put((job, self._evaluate(job, sweep)))
            finally:
                self._jobs.task_done()

    def _evaluate(self, job: _Job, sweep: Path) -> Union[Results, GoevalError]:
        args = ["run", f"--output-path={sweep}", *self._flags]
        if job.base:
            args += [f"--model={job.base}", f"--adapter={job.name}", "--skip-base"]
        else:
            args += [f"--model={job.name}"]
        (sweep / "logs").mkdir(parents=True, exist_ok=True)
        try:
            with open(sweep / "logs" / f"{job.name}.log", "w", encoding="utf-8") as logf:
                done = run_goeval(args, env=self._env, cwd=job.cwd, binary=self.binary, stderr_file=logf)
            paths = results_paths(done.stderr, job.cwd)
            if not paths:
                return GoevalError(f"goeval run wrote no results for {job.name}")
            return load_results(paths[-1], samples=False)
        except GoevalError as e:
            return e
        except OSError as e:
            return GoevalError(f"{job.name}: {e}")
        finally:
            if job.cwd.name == ".staging" and (job.cwd / job.name).is_dir():
                shutil.rmtree(job.cwd / job.name, ignore_errors=True)

    def wait(self) -> None:
        """Blocks until every queued checkpoint is evaluated."""
        if self._worker is not None:
            self._jobs.join()

    # Logging.

    def _find_handler(self) -> None:
        """Finds the CallbackHandler calling this callback: the caller's
        ``self`` that holds this callback in its ``callbacks``."""
        if self._handler is not None:
            return
        f: Optional[FrameType] = sys._getframe(2)
        for _ in range(4):
            if f is None:
                return
            h = f.f_locals.get("self")
            if h is not None and hasattr(h, "on_log") and any(c is self for c in getattr(h, "callbacks", ())):
                self._handler = h
                return
            f = f.f_back

    def _emit(self, args: Any, state: Any, control: Any) -> None:
        """Logs every finished evaluation, as Trainer.log would at its step."""
        while True:
            try:
                job, res = self._done.get_nowait()
            except queue.Empty:
                return
            if isinstance(res, GoevalError):
                self.errors[job.step] = res
                log.warning("goeval callback: checkpoint %s not evaluated: %s", job.name, res.line)
                continue
            self.results[job.step] = res
            logs: dict[str, float] = metrics_of(res, self.metric_prefix)
            if job.epoch is not None:
                logs["epoch"] = job.epoch
            state.log_history.append({**logs, "step": job.step})
            if self._handler is not None:
                # Copies: the loggers see the checkpoint's step, and the
                # handler's on_log clears control.should_log, which must
                # stay set for the Trainer's own log of this step.
                at = copy.copy(state)
                at.global_step = job.step
                self._handler.on_log(args, at, copy.copy(control), dict(logs))

    def plot(self, output: Optional[PathArg] = None, sweep_dir: Optional[PathArg] = None) -> Optional[str]:
        """Draws the sweep (``goeval plot --sweep``, checkpoints in step
        order) into output (default ``<sweep_dir>/sweep.png``); returns its
        path, or None when no checkpoint has results."""
        sweep = Path(sweep_dir) if sweep_dir is not None else self._sweep
        if sweep is None:
            return None
        runs = sorted((d for d in sweep.glob("checkpoint-*") if d.is_dir() and any(d.glob("results_*.json"))),
                      key=lambda d: int(re.sub(r"\D", "", d.name) or 0))
        if not runs:
            return None
        out = os.fspath(output) if output is not None else str(sweep / "sweep.png")
        try:
            run_goeval(["plot", "--kind=sweep", f"-o={out}", *map(str, runs)], env=self._env, binary=self.binary)
        except GoevalError as e:
            log.warning("goeval callback: sweep plot not drawn: %s", e.line)
            return None
        return out
