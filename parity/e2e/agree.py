"""Per-document agreement of two runs of the same tasks and documents
(lm-eval's and goeval's output folders) where their log-likelihoods may
differ by more than compare.py's 1e-4: in bfloat16, say. Also run as a
script:

  python parity/e2e/agree.py LMEVAL_DIR GOEVAL_DIR [--min 0.99] [--json FILE]

A document agrees when every per-sample metric (acc, acc_norm,
exact_match, ...) of each of its rows (one per filter) has the same value
in both samples files. Every document
that does not is listed with each engine's log-likelihood margin (the
largest choice's log-likelihood minus the second's: a near-tie is a small
margin) or, for generation, the two outputs. Generation documents whose
outputs differ while their metrics agree are counted too (rows). Exits 1 when the
agreeing share is below --min.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402


def margin(sample):
    """The top log-likelihood minus the second one, or None."""
    lls = sorted((compare.asfloat(r[0]) for r in sample.get("filtered_resps", [])
                  if isinstance(r, list) and r and compare.asfloat(r[0]) is not None), reverse=True)
    return lls[0] - lls[1] if len(lls) >= 2 else None


def text(sample):
    """A generation's output (its first response), shortened; None for a
    log-likelihood sample (whose filtered responses are lists)."""
    fr = sample.get("filtered_resps")
    if not isinstance(fr, list) or not fr or not all(isinstance(x, str) for x in fr):
        return None
    r = sample.get("resps")
    while isinstance(r, list) and r:
        r = r[0]
    return compare.short(r) if isinstance(r, str) else None


def agree_runs(lsamp, gsamp):
    """(documents, agreeing, differences, generations that differ) of two
    runs' samples ({task: rows}); a document's rows (one per filter) must
    all agree."""
    same_doc = {}
    gen_differs = 0
    diffs = []
    for task in sorted(set(lsamp) & set(gsamp)):
        for a, b in zip(lsamp[task], gsamp[task]):
            keys = [k for k in a.get("metrics", []) if k in b]
            same = all(a[k] == b[k] for k in keys)
            doc = (task, a.get("doc_id"))
            same_doc[doc] = same_doc.get(doc, True) and same
            ta, tb = text(a), text(b)
            if ta is not None and ta != tb and same:
                gen_differs += 1
            if same:
                continue
            d = {"task": task, "doc_id": a.get("doc_id"), "filter": a.get("filter"),
                 "metrics": {k: [a[k], b[k]] for k in keys if a[k] != b[k]}}
            ma, mb = margin(a), margin(b)
            if ma is not None or mb is not None:
                d["margins"] = [ma, mb]
            elif ta is not None:
                d["outputs"] = [ta, tb]
            diffs.append(d)
    return len(same_doc), sum(same_doc.values()), diffs, gen_differs


def describe(d):
    """One difference as a line."""
    s = f"  {d['task']} doc {d['doc_id']} ({d['filter']}): " + ", ".join(
        f"{k} lm-eval {x} goeval {y}" for k, (x, y) in d["metrics"].items())
    if "margins" in d:
        ma, mb = d["margins"]
        fmt = lambda m: "-" if m is None else f"{m:.4g}"  # noqa: E731
        s += f"; log-likelihood margins lm-eval {fmt(ma)}, goeval {fmt(mb)}"
    if "outputs" in d:
        s += f"; outputs {d['outputs'][0]} / {d['outputs'][1]}"
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lmeval_dir")
    ap.add_argument("goeval_dir")
    ap.add_argument("--min", type=float, default=0.99, help="the least agreeing share that passes")
    ap.add_argument("--json", default="", help="append the summary as one JSON line to this file")
    args = ap.parse_args()
    _, lsamp = compare.load_run(args.lmeval_dir)
    _, gsamp = compare.load_run(args.goeval_dir)
    docs, agreeing, diffs, gen_differs = agree_runs(lsamp, gsamp)
    share = agreeing / docs if docs else 1.0
    print(f"per-document agreement: {agreeing}/{docs} ({100 * share:.2f} %), {len(diffs)} differ"
          + (f"; {gen_differs} generations differ with the same metrics" if gen_differs else ""))
    for d in diffs:
        print(describe(d))
    if args.json:
        with open(args.json, "a", encoding="utf-8") as f:
            f.write(json.dumps({"lmeval": args.lmeval_dir, "goeval": args.goeval_dir, "docs": docs,
                                "agreeing": agreeing, "share": share, "differences": diffs,
                                "generations_differ": gen_differs}) + "\n")
    sys.exit(0 if share >= args.min else 1)


if __name__ == "__main__":
    main()
