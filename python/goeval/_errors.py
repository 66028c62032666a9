"""The exceptions goeval's Python API raises."""
from __future__ import annotations

from typing import Sequence


class GoevalError(RuntimeError):
    """The goeval binary failed (exit status 1: a runtime failure).

    Attributes:
        line: goeval's one-line error message (``goeval run: ...``).
        returncode: the binary's exit status.
        command: the command line that was run.
        stderr: the last lines goeval wrote to stderr, progress excluded.
    """

    def __init__(self, line: str, returncode: int = 1, command: Sequence[str] = (),
                 stderr: Sequence[str] = ()) -> None:
        super().__init__(line)
        self.line = line
        self.returncode = returncode
        self.command = list(command)
        self.stderr = list(stderr)


class BadInputError(GoevalError, ValueError):
    """goeval refused its input (exit status 2): a bad flag or argument, a
    malformed checkpoint, config or dataset, an unknown task. Nothing was
    evaluated; ``line`` names the file or flag."""


class BinaryNotFoundError(GoevalError):
    """The goeval binary is not installed where the package looks for it
    (``$GOEVAL_BIN``, the environment's scripts folder, ``PATH``)."""
