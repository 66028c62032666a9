"""goeval's progress lines, parsed, and where they are shown."""
from __future__ import annotations

import importlib
import re
import sys
from dataclasses import dataclass
from typing import Any, Callable, Optional, TextIO, Union

# progress: STAGE DONE/TOTAL requests (P%), N docs, X tok/s, elapsed E, ETA T|done
_LINE = re.compile(
    r"progress: (?P<stage>\S+) (?P<done>\d+)/(?P<total>\d+) requests \([\d.]+%\), (?P<docs>\d+) docs, "
    r"(?P<tps>[\d.]+) tok/s, elapsed (?P<elapsed>\S+), (?:ETA (?P<eta>\S+)|(?P<fin>done))$")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(h|ms|µs|us|ns|m|s)")
_UNIT = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "µs": 1e-6, "us": 1e-6, "ns": 1e-9}


@dataclass(frozen=True)
class Progress:
    """One progress report of a running evaluation.

    Attributes:
        stage: the request type being answered (``loglikelihood``,
            ``generate_until``, ``loglikelihood_rolling``).
        done: requests answered so far, over every stage.
        total: requests of the whole run of this model.
        docs: documents evaluated.
        tokens_per_sec: model throughput so far.
        elapsed: seconds since the evaluation started.
        eta: estimated seconds left (None once finished).
        finished: every request is answered.
        line: the line goeval printed.
    """

    stage: str
    done: int
    total: int
    docs: int
    tokens_per_sec: float
    elapsed: float
    eta: Optional[float]
    finished: bool
    line: str


ProgressCallback = Callable[[Progress], Any]
ProgressArg = Union[bool, ProgressCallback, None]


def go_duration(s: str) -> float:
    """Seconds in a Go duration string such as ``1m30s`` or ``250ms``."""
    parts = _DURATION.findall(s)
    if not parts or "".join(n + u for n, u in parts) != s:
        raise ValueError(f"not a Go duration: {s!r}")
    return sum(float(n) * _UNIT[u] for n, u in parts)


def parse_progress(line: str) -> Optional[Progress]:
    """The Progress in one of goeval's ``progress:`` lines, else None."""
    m = _LINE.match(line.strip())
    if not m:
        return None
    fin = m.group("fin") is not None
    return Progress(stage=m.group("stage"), done=int(m.group("done")), total=int(m.group("total")),
                    docs=int(m.group("docs")), tokens_per_sec=float(m.group("tps")),
                    elapsed=go_duration(m.group("elapsed")),
                    eta=None if fin else go_duration(m.group("eta")), finished=fin, line=line.strip())


class Reporter:
    """Shows progress: ``report`` for each Progress, ``new_model`` when a
    run of several models moves to the next, ``close`` at the end."""

    def report(self, p: Progress) -> None:
        """Shows p."""

    def new_model(self, line: str) -> None:
        """A run of several models started the next (goeval's ``== model`` line)."""

    def close(self) -> None:
        """The run ended."""


class _CallbackReporter(Reporter):
    def __init__(self, fn: ProgressCallback) -> None:
        self.fn = fn

    def report(self, p: Progress) -> None:
        self.fn(p)


class _StreamReporter(Reporter):
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def report(self, p: Progress) -> None:
        print(p.line, file=self.stream, flush=True)

    def new_model(self, line: str) -> None:
        print(line, file=self.stream, flush=True)


class _TqdmReporter(Reporter):
    """One tqdm bar per model: requests answered of the total."""

    def __init__(self, tqdm: Any) -> None:
        self.tqdm = tqdm
        self.bar: Any = None

    def report(self, p: Progress) -> None:
        if self.bar is not None and (self.bar.total != p.total or p.done < self.bar.n):
            self.close()
        if self.bar is None:
            self.bar = self.tqdm(total=p.total, unit="req", desc=p.stage, dynamic_ncols=True)
        self.bar.set_description(p.stage, refresh=False)
        self.bar.set_postfix_str(f"{p.docs} docs, {p.tokens_per_sec:.0f} tok/s", refresh=False)
        self.bar.update(p.done - self.bar.n)
        if p.finished:
            self.close()

    def new_model(self, line: str) -> None:
        self.close()
        self.tqdm.write(line)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def reporter(progress: ProgressArg) -> Reporter:
    """The Reporter for evaluate's ``progress`` argument: a callable gets
    each Progress; True (auto) draws a tqdm bar when tqdm is installed, else
    writes goeval's lines to stderr; False or None shows nothing."""
    if callable(progress):
        return _CallbackReporter(progress)
    if not progress:
        return Reporter()
    try:
        auto = importlib.import_module("tqdm.auto")
    except ImportError:
        return _StreamReporter(sys.stderr)
    return _TqdmReporter(auto.tqdm)
