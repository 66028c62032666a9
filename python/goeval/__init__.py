"""goeval: evaluate language models the way EleutherAI's
lm-evaluation-harness does, with goeval's native Go engine.

The wheel installs the ``goeval`` command; this package runs it:

- :func:`evaluate` — ``lm_eval.simple_evaluate``'s arguments in, its
  results dict out; :func:`evaluate_all` for sweeps and adapters;
- :func:`compare` and :func:`plot` — ``goeval compare`` and ``goeval plot``;
- :class:`GoevalCallback` (``goeval.callback``) — a
  ``transformers.TrainerCallback`` that evaluates every saved checkpoint
  in a background process and logs the scores with the training step.

goeval's one-line errors are raised as :class:`BadInputError` (exit
status 2: bad input) and :class:`GoevalError` (1: a runtime failure).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._api import compare, evaluate, evaluate_all, plot
from ._binary import binary_path
from ._errors import BadInputError, BinaryNotFoundError, GoevalError
from ._progress import Progress
from ._results import Results, load_results

if TYPE_CHECKING:
    from .callback import GoevalCallback

__all__ = ["BadInputError", "BinaryNotFoundError", "GoevalCallback", "GoevalError", "Progress", "Results",
           "__version__", "binary_path", "compare", "evaluate", "evaluate_all", "load_results", "plot"]


def _version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover
        return "0+unknown"
    try:
        return version("goeval")
    except PackageNotFoundError:
        return "0+unknown"


__version__ = _version()


def __getattr__(name: str) -> Any:
    # GoevalCallback needs transformers: imported on first use only.
    if name == "GoevalCallback":
        from .callback import GoevalCallback
        return GoevalCallback
    raise AttributeError(f"module 'goeval' has no attribute {name!r}")
