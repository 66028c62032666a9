# Python functions of the plain-Python hook tests (tasks/pyhooks_test.go):
# standard library only, so that any python3 runs them.


def keep(dataset):
    """process_docs: a datasets.Dataset or a list of dicts; a list back."""
    out = []
    for d in dataset:
        if d["keep"]:
            d = dict(d)
            d["query"] = "Q: " + d["q"]
            out.append(d)
    return out


def text(doc):
    return doc["query"] + "\nA:"


def choices(doc):
    return [o.upper() for o in doc["opts"]]


def results(doc, results):
    lls = [ll for ll, _ in results]
    pred = lls.index(max(lls))
    return {"acc": pred == doc["label"], "pair": (doc["label"], pred), "ll": tuple(lls)}


def agg_pair(items):
    """How many (gold, pred) pairs agree, as a float."""
    return sum(1 for g, p in items if g == p) / len(items)


def agg_count(items):
    return len(items)


def gen_text(doc):
    return "Q: " + doc["q"] + "\nA:"


def shots():
    return [{"q": "Sample?", "opts": ["x"], "label": 0, "answer": "yes"}]


def strip(resps, docs):
    """custom filter_fn: every response stripped."""
    return [[r.strip() for r in rs] for rs in resps]


class Upper:
    """A Filter class: apply(resps, docs), built with keyword arguments."""

    def __init__(self, suffix=""):
        self.suffix = suffix

    def apply(self, resps, docs):
        return [[r.upper() + self.suffix for r in rs] for rs in resps]


def match(references, predictions):
    """A metric function, as lm-eval calls it for generate_until."""
    return float(references[0].upper() + "!" == predictions[0])


class Suffix:
    """A Filter class after take_first: each document's one response."""

    def __init__(self, suffix=""):
        self.suffix = suffix

    def apply(self, resps, docs):
        return [r + self.suffix for r in resps]
