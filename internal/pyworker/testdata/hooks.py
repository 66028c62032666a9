# Functions the pyworker tests call: values both ways, and every way a hook
# can fail.
import os
import time


def ident(x):
    return x


def show(x):
    """repr of x with the type of every element, to check what Go sent."""
    def t(v):
        if isinstance(v, dict):
            return "{" + ", ".join(f"{t(k)}: {t(x)}" for k, x in v.items()) + "}"
        if isinstance(v, (list, tuple)):
            inner = ", ".join(t(x) for x in v)
            return ("[%s]" if isinstance(v, list) else "(%s)") % inner
        if isinstance(v, (set, frozenset)):
            return "{" + ", ".join(sorted(t(x) for x in v)) + "}"
        return f"{type(v).__name__}:{v!r}"
    return t(x)


def made():
    return {"int": 1, "float": 1.0, "big": 2**70, "neg": -(2**63), "tuple": (1, "a", None),
            "nan": float("nan"), "inf": float("-inf"), 3: "int key", (1, 2): "tuple key",
            "set": {7}, "bytes": b"\x00\xff", "nested": [{"$x": 1}]}


def made_numpy():
    import numpy as np
    return [np.float64(0.5), np.int64(3), np.bool_(True), np.array([[1, 2], [3, 4]], dtype=np.int32)]


def loud(x):
    print("hello from the hook")
    return x


def boom(x):
    raise ValueError("no\nway")


def hang(x):
    time.sleep(60)


def die(x):
    os._exit(3)


def reads_stdin(x):
    import sys
    return sys.stdin.read()


def c_level_stdout(x):
    os.write(1, b"C-level noise\n")
    return x


def opaque(x):
    return object()


def two(a, b):
    return [a, b]
