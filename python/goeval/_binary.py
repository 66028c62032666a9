"""Finding the goeval binary the wheel installed."""
from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

from ._errors import BinaryNotFoundError

EXE = "goeval.exe" if sys.platform == "win32" else "goeval"


def _user_scripts() -> str | None:
    scheme = f"{os.name}_user"
    if sys.platform == "darwin" and getattr(sys, "_framework", None):
        scheme = "osx_framework_user"
    try:
        return sysconfig.get_path("scripts", scheme=scheme)
    except KeyError:
        return None


def candidates() -> list[Path]:
    """Where pip or uv put the wheel's binary, most specific first: this
    environment's scripts folder, the user scheme's (``pip install
    --user``), the ``bin`` folder beside the package (``pip install
    --target``)."""
    dirs = [sysconfig.get_path("scripts"), _user_scripts(), str(Path(__file__).resolve().parent.parent / "bin")]
    return [Path(d) / EXE for d in dirs if d]


def binary_path() -> str:
    """The path of the goeval binary: ``$GOEVAL_BIN`` when set, else the
    one this package's wheel installed, else ``goeval`` on ``PATH``.

    Raises:
        BinaryNotFoundError: none of these exists.
    """
    env = os.environ.get("GOEVAL_BIN")
    if env:
        if not Path(env).is_file():
            raise BinaryNotFoundError(f"GOEVAL_BIN={env}: no such file")
        return env
    for c in candidates():
        if c.is_file():
            return str(c)
    found = shutil.which(EXE)
    if found:
        return found
    where = ", ".join(str(c.parent) for c in candidates())
    raise BinaryNotFoundError(f"the goeval binary is not installed ({where} and PATH searched); "
                              "reinstall the wheel (pip install goeval) or set GOEVAL_BIN")
