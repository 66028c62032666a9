# goeval's Python worker: runs the Python functions of lm-eval task files
# (`!function module.attr`) for a goeval process. Requests come as JSON
# lines on stdin, answers go as JSON lines to the original stdout; values
# cross in the tagged encoding of internal/pyworker (codec.go). The hooks'
# own prints are caught: a hook that writes to stdout fails its call. A
# module's prints while it is imported go to stderr, as lm-eval shows them
# on its console (leaderboard/ifeval's instructions_util prints whether it
# downloaded nltk's punkt_tab).
import base64
import importlib.util
import inspect
import io
import json
import math
import os
import sys
import traceback

sys.dont_write_bytecode = True  # no __pycache__ beside the user's task files
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]  # `python -c` puts the working folder first: no shadowing
_IN = os.fdopen(os.dup(0), "rb")
_OUT = os.fdopen(os.dup(1), "wb")
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)  # a hook reading stdin reads nothing
os.dup2(2, 1)  # C-level writes to stdout land on stderr, not in the protocol
sys.stdin = open(os.devnull)
_MODS = {}


class Fail(Exception):
    """An error goeval reports as it is: kind says which."""

    def __init__(self, kind, msg, **extra):
        super().__init__(msg)
        self.kind, self.msg, self.extra = kind, msg, extra


# ------------------------------------------------------------------ values

def _np_value(v, np):
    if isinstance(v, np.ndarray):
        return {"$ndarray": [str(v.dtype), list(v.shape), enc(v.tolist())]}
    return {"$np": [v.dtype.str, enc(v.item())]}


def enc(v):
    """v in the tagged JSON form (see codec.go)."""
    if v is None or v is True or v is False or type(v) is str:
        return v
    np = sys.modules.get("numpy")
    if np is not None and isinstance(v, (np.ndarray, np.generic)):
        return _np_value(v, np)
    if isinstance(v, bool):
        return bool(v)
    if isinstance(v, int):
        v = int(v)
        return v if -(1 << 63) <= v < (1 << 63) else {"$int": str(v)}
    if isinstance(v, float):
        v = float(v)
        if math.isfinite(v):
            return v
        return {"$float": "nan" if v != v else ("inf" if v > 0 else "-inf")}
    if isinstance(v, str):
        return str(v)
    if isinstance(v, list):
        return [enc(x) for x in v]
    if isinstance(v, tuple):
        return {"$tuple": [enc(x) for x in v]}
    if isinstance(v, dict):
        if all(type(k) is str for k in v) and not (len(v) == 1 and next(iter(v)).startswith("$")):
            return {k: enc(x) for k, x in v.items()}
        return {"$dict": [[enc(k), enc(x)] for k, x in v.items()]}
    if isinstance(v, (set, frozenset)):
        return {"$set": [enc(x) for x in v]}
    if isinstance(v, bytes):
        return {"$bytes": base64.b64encode(v).decode("ascii")}
    raise Fail("value", f"a value of type {type(v).__module__}.{type(v).__qualname__} cannot be passed to goeval")


def dec(v):
    """The Python value of the tagged JSON form v."""
    if isinstance(v, list):
        return [dec(x) for x in v]
    if not isinstance(v, dict):
        return v
    if len(v) == 1:
        (k, x), = v.items()
        if k.startswith("$"):
            return _dec_tag(k, x)
    return {k: dec(x) for k, x in v.items()}


def _dec_tag(k, x):
    if k == "$tuple":
        return tuple(dec(e) for e in x)
    if k == "$dict":
        return {dec(a): dec(b) for a, b in x}
    if k == "$float":
        return float(x)
    if k == "$int":
        return int(x)
    if k == "$set":
        return set(dec(e) for e in x)
    if k == "$bytes":
        return base64.b64decode(x)
    import numpy as np
    if k == "$np":
        return np.dtype(x[0]).type(dec(x[1]))
    if k == "$ndarray":
        return np.array(dec(x[2]), dtype=x[0]).reshape(x[1])
    raise Fail("value", f"unknown tag {k}")


def logged(v):
    """v as lm-eval's samples file writes it (json.dumps with its default=)."""
    def default(o):
        np = sys.modules.get("numpy")
        if np is not None:
            if isinstance(o, np.bool_):
                return bool(o)
            if isinstance(o, np.integer):
                return int(o)
            if isinstance(o, np.floating):
                return float(o)
        if isinstance(o, set):
            return list(o)
        return str(o)
    return enc(json.loads(json.dumps(v, default=default)))


# ------------------------------------------------------------------ functions

def module(path):
    m = _MODS.get(path)
    if m is not None:
        return m
    if not os.path.isfile(path):
        raise Fail("no_module", f"{path} does not exist")
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.append(folder)
    name = os.path.basename(path)[:-3]
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    try:
        to_stderr(spec.loader.exec_module, m)
    except ModuleNotFoundError as e:
        if e.name is None:
            raise
        raise Fail("no_package", f"{os.path.basename(path)} imports {e.name}, which this Python cannot import: {e}",
                   package=e.name) from None
    _MODS[path] = m
    return m


def function(ref):
    if "lmeval" in ref:
        return lmeval_object(ref["lmeval"], ref["attr"])
    m = module(ref["file"])
    try:
        return getattr(m, ref["attr"])
    except AttributeError:
        raise Fail("no_attr", f"{os.path.basename(ref['file'])} has no {ref['attr']}") from None


def lmeval_object(kind, name):
    """lm-eval's registered metric, aggregation or filter of that name."""
    from lm_eval.api import registry
    import lm_eval.api.metrics  # noqa: F401  (fills the registries)
    import lm_eval.filters  # noqa: F401
    table = {"metric": registry.metric_registry, "aggregation": registry.aggregation_registry,
             "filter": registry.filter_registry}[kind]
    if name not in table:
        raise Fail("no_attr", f"lm-eval has no {kind} {name}")
    return table.get(name)


def registered_name(f, kind):
    """The registry name of f when f is lm-eval's own object (only when the
    task's module already imported lm-eval)."""
    reg = sys.modules.get("lm_eval.api.registry")
    table = {"aggregation": "aggregation_registry", "metric": "metric_registry",
             "filter": "filter_registry"}.get(kind)
    if reg is None or table is None:
        return None
    for k, v in getattr(reg, table).items():
        if v is f:
            return k
    return None


def metric_defaults(name):
    """A registered metric's aggregation (by name) and higher_is_better."""
    from lm_eval.api import registry
    agg = registry.metric_agg_registry.get(name, None)
    agg_name = next((k for k, v in registry.aggregation_registry.items() if v is agg), None)
    return {"agg": agg_name, "higher": registry.higher_is_better_registry.get(name, None)}


def to_stderr(fn, *args):
    """fn(*args) with sys.stdout sent to stderr (a module printing as it loads)."""
    keep = sys.stdout
    sys.stdout = sys.stderr
    try:
        return fn(*args)
    finally:
        sys.stdout = keep


def quiet(fn, *args, **kwargs):
    """fn(*args) with sys.stdout caught: anything written fails the call."""
    buf, keep = io.StringIO(), sys.stdout
    sys.stdout = buf
    try:
        out = fn(*args, **kwargs)
    finally:
        sys.stdout = keep
    if buf.getvalue():
        first = buf.getvalue().strip().splitlines() or [""]
        raise Fail("stdout", f"wrote to stdout ({first[0][:80]!r}); goeval's worker talks to goeval there")
    return out


def op_resolve(req):
    f = function(req["ref"])
    if not callable(f):
        raise Fail("not_callable", f"{req['ref']['attr']} is a {type(f).__name__}, not a function")
    n = req.get("nargs")
    if n is not None:
        try:
            sig = inspect.signature(f)
        except (TypeError, ValueError):
            sig = None
        if sig is not None:
            try:
                sig.bind(*([None] * n), **{k: None for k in req.get("kwargs", [])})
            except TypeError:
                raise Fail("arity", f"{req['ref']['attr']}{sig} cannot be called with {req['want']}") from None
    ref = req["ref"]
    out = {"lmeval": ref["attr"] if "lmeval" in ref else registered_name(f, req.get("kind")),
           "name": getattr(f, "__name__", None)}
    if ref.get("lmeval") == "metric":
        out.update(metric_defaults(ref["attr"]))
    return out


# ------------------------------------------------------------------ operations

def op_hello(req):
    spec = importlib.util.find_spec
    return {"python": sys.version.split()[0], "lm_eval": spec("lm_eval") is not None,
            "datasets": spec("datasets") is not None}


_DS = []


def datasets_module():
    if not _DS:
        try:
            import datasets
            datasets.disable_progress_bars()
            datasets.utils.logging.set_verbosity_error()
            _DS.append(datasets)
        except ImportError:
            _DS.append(None)
    return _DS[0]


_LM_RANDOM = {"epoch": None, "ids": 0}


def lm_random(state):
    """Puts the global random where lm-eval's is when it builds the task:
    seeded 0 at each new evaluation (epoch), then random_task_id's
    random.choices(k=8) once per task name lm-eval read before (tasks/lmrandom.go)."""
    import random
    import string
    if state["epoch"] != _LM_RANDOM["epoch"]:
        random.seed(0)
        if "numpy" in sys.modules:
            sys.modules["numpy"].random.seed(1234)  # simple_evaluate's numpy seed, too
        _LM_RANDOM.update(epoch=state["epoch"], ids=0)
    while _LM_RANDOM["ids"] < state["task_ids"]:
        random.choices(string.ascii_lowercase + string.digits, k=8)
        _LM_RANDOM["ids"] += 1


def op_process_docs(req):
    docs, cols = dec(req["docs"]), req["columns"]
    if req.get("lm_random") is not None:
        lm_random(req["lm_random"])
    ds = datasets_module()
    arg = ds.Dataset.from_dict({c: [d.get(c) for d in docs] for c in cols}) if ds is not None else docs
    out = quiet(function(req["ref"]), arg)
    if ds is not None and isinstance(out, ds.Dataset):
        return {"columns": list(out.column_names), "docs": enc(out.to_list())}
    rows = list(out)
    for i, r in enumerate(rows):
        if not isinstance(r, dict):
            raise Fail("value", f"returned a {type(r).__name__} as document {i}, want a dict")
    return {"columns": list(rows[0]) if rows else cols, "docs": enc([dict(r) for r in rows])}


def op_custom_dataset(req):
    """custom_dataset(**kwargs): each split's columns and documents, in the mapping's order."""
    out = quiet(function(req["ref"]), **dec(req.get("kwargs", {})))
    ds = datasets_module()
    splits = []
    for name, rows in dict(out).items():
        if ds is not None and isinstance(rows, ds.Dataset):
            splits.append({"name": str(name), "columns": list(rows.column_names), "docs": enc(rows.to_list())})
            continue
        rows = [dict(r) for r in rows]
        splits.append({"name": str(name), "columns": list(rows[0]) if rows else [], "docs": enc(rows)})
    return {"splits": splits}


def op_doc(req):
    """f(doc) for each document: {"v": value} or {"e": error} each."""
    f = function(req["ref"])
    return [answer_of(lambda: enc(quiet(f, d)), "v", "e") for d in dec(req["docs"])]


def op_call(req):
    """f(*args, **kwargs); with want_logged, also the samples-file form."""
    f = function(req["ref"])
    v = quiet(f, *dec(req.get("args", [])), **dec(req.get("kwargs", {})))
    return {"value": enc(v), "logged": logged(v) if req.get("want_logged") else None}


def op_metric(req):
    """A generate_until metric as ConfigurableTask.process_results calls it:
    gold is doc_to_target (already the choice it indexes when has_choices)."""
    f, name = function(req["ref"]), req["metric"]
    gold, result, kw = dec(req["gold"]), dec(req["result"]), dec(req.get("kwargs", {}))
    if req.get("has_choices"):
        pass
    elif req.get("multiple"):
        gold = list(gold)
    elif type(gold) is not type(result) and not (req.get("bypass") or isinstance(result, list)):
        gold = type(result)(gold)
    if not req.get("multiple"):
        v = call_metric(f, name, [gold], [result], kw, expand=False)
    else:
        if not isinstance(gold, list):
            gold = [gold]
        if name == "exact_match":
            v = 1.0 if quiet(f, references=gold, predictions=[result] * len(gold), **kw)[name] > 0.0 else 0.0
        else:
            v = 1.0 if any(call_metric(f, name, [g], [result], kw, expand=True) for g in gold) else 0.0
    return {"value": enc(v), "logged": logged(v)}


def call_metric(f, name, refs, preds, kw, expand):
    try:
        v = quiet(f, references=refs, predictions=preds, **kw)
    except TypeError:
        v = quiet(f, [refs[0], preds[0]])
    if expand and isinstance(v, dict):
        v = v[name]
    return v


def op_filter(req):
    """A Filter class's apply (built with kwargs), or a custom filter_fn."""
    f, resps, docs = function(req["ref"]), dec(req["resps"]), dec(req["docs"])
    if req.get("fn"):
        return enc(quiet(lambda: list(f(resps, docs))))
    return enc(quiet(lambda: list(f(**dec(req.get("kwargs", {}))).apply(resps, docs))))


OPS = {"hello": op_hello, "resolve": op_resolve, "process_docs": op_process_docs,
       "custom_dataset": op_custom_dataset, "doc": op_doc,
       "call": op_call, "metric": op_metric, "filter": op_filter}


def where(tb):
    """file:line of the innermost frame outside this worker."""
    frames = [f for f in traceback.extract_tb(tb) if f.filename != "<string>"]
    return f"{os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""


def answer_of(fn, ok="ok", err="err"):
    """{ok: fn()}, or {err: what went wrong}."""
    try:
        return {ok: fn()}
    except Fail as e:
        return {err: {"kind": e.kind, "msg": e.msg, **e.extra}}
    except BaseException as e:  # noqa: BLE001  (SystemExit, KeyboardInterrupt too)
        msg = " ".join(str(e).split())
        return {err: {"kind": "raised", "type": type(e).__name__, "msg": msg, "where": where(e.__traceback__)}}


def answer(req):
    return answer_of(lambda: OPS[req["op"]](req))


def main():
    import random
    random.seed(0)  # the seeds of lm-eval's simple_evaluate
    try:
        import numpy
        numpy.random.seed(1234)
    except ImportError:
        pass
    for line in _IN:
        req = json.loads(line)
        resp = answer(req)
        try:
            data = json.dumps(resp, ensure_ascii=False, allow_nan=False)
        except ValueError as e:
            data = json.dumps({"err": {"kind": "value", "msg": str(e)}})
        _OUT.write(data.encode("utf-8", "surrogatepass") + b"\n")
        _OUT.flush()


main()
