"""Running the goeval binary: stderr streamed line by line (progress to a
Reporter, the rest to the ``goeval`` logger), its exit status turned into
exceptions."""
from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from typing import IO, Mapping, Optional, Sequence, Union

from ._binary import binary_path
from ._errors import BadInputError, GoevalError
from ._progress import Reporter, parse_progress

log = logging.getLogger("goeval")

PathArg = Union[str, "os.PathLike[str]"]


@dataclass
class Completed:
    """A finished goeval command: its stdout and its stderr lines other
    than progress."""

    command: list[str]
    stdout: str
    stderr: list[str] = field(default_factory=list)


def _log_line(line: str) -> None:
    if "warning" in line or line.startswith("notice:"):
        log.warning("%s", line)
    else:
        log.info("%s", line)


def _read_all(stream: IO[str], out: list[str]) -> None:
    out.append(stream.read())


def _error_line(lines: Sequence[str], code: int) -> str:
    for line in reversed(lines):
        if line.startswith("goeval"):
            return line
    for line in reversed(lines):
        if line.strip():
            return line
    return f"goeval exited with status {code}"


def _stop(proc: "subprocess.Popen[str]") -> None:
    """Interrupts proc as Ctrl-C would, then kills it if it lingers."""
    try:
        if sys.platform == "win32":
            proc.send_signal(signal.CTRL_BREAK_EVENT)
        else:
            proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)
    except (OSError, subprocess.TimeoutExpired, ValueError):
        proc.kill()
        proc.wait()


def run_goeval(args: Sequence[str], *, reporter: Optional[Reporter] = None,
               env: Optional[Mapping[str, str]] = None, cwd: Optional[PathArg] = None,
               binary: Optional[PathArg] = None, stderr_file: Optional[IO[str]] = None) -> Completed:
    """Runs ``goeval ARGS`` to its end.

    Progress lines go to reporter; other stderr lines to the ``goeval``
    logger (warnings at WARNING, the rest at INFO) and, when given, to
    stderr_file.

    Raises:
        BadInputError: exit status 2.
        GoevalError: any other non-zero exit status.
    """
    cmd = [os.fspath(binary) if binary else binary_path(), *args]
    rep = reporter or Reporter()
    flags = 0
    if sys.platform == "win32":  # its own group: _stop's Ctrl-Break reaches goeval only
        flags = subprocess.CREATE_NEW_PROCESS_GROUP
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            text=True, encoding="utf-8", errors="replace", env=dict(env) if env else None,
                            cwd=cwd, creationflags=flags)
    assert proc.stdout is not None and proc.stderr is not None
    out: list[str] = []
    reader = threading.Thread(target=_read_all, args=(proc.stdout, out), daemon=True)
    reader.start()
    lines: list[str] = []
    try:
        for raw in proc.stderr:
            line = raw.rstrip("\r\n")
            if stderr_file is not None:
                stderr_file.write(raw)
                stderr_file.flush()
            p = parse_progress(line)
            if p is not None:
                rep.report(p)
                continue
            if line.startswith("== model "):
                rep.new_model(line)
            lines.append(line)
            _log_line(line)
        code = proc.wait()
    except BaseException:
        _stop(proc)
        raise
    finally:
        rep.close()
        reader.join()
    if code == 0:
        return Completed(cmd, out[0] if out else "", lines)
    err = BadInputError if code == 2 else GoevalError
    raise err(_error_line(lines, code), code, cmd, lines[-50:])
