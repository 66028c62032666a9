"""``python -m goeval ARGS`` runs the goeval binary with ARGS."""
from __future__ import annotations

import os
import subprocess
import sys

from ._binary import binary_path


def main() -> int:
    """Runs the binary in this process's place (POSIX) or as a child."""
    exe = binary_path()
    if sys.platform != "win32":
        os.execv(exe, [exe, *sys.argv[1:]])
    return subprocess.call([exe, *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
