#!/usr/bin/env python3
"""The measurements of scripts/gpu_check.sh's steps 4, 9 and 10 as rows of
its summary table (STEP<TAB>WHAT<TAB>VALUE lines appended to a file), and
the GPU's dense bfloat16 matmul peak.

  gpu_summary.py peak DEVICE QUICK             prints TFLOP/s (torch)
  gpu_summary.py runs RVL_JSONL TSV            step 4: run_vs_lmeval.sh --summary lines
  gpu_summary.py warm RVL_JSONL COLD TSV       step 4: goeval again on a warm compile cache
  gpu_summary.py bench SIZE PEAK WORK TSV      step 9: WORK/{score,gen}SIZE.{txt,err}, hfSIZE.jsonl
  gpu_summary.py auto RESULTS_DIR LOG TSV      step 10: goeval_timing and the peak device memory
"""
import collections
import glob
import json
import os
import re
import sys


class Notes:
    def __init__(self, path, step):
        self.f, self.step = open(path, "a", encoding="utf-8"), step

    def __call__(self, what, value):
        self.f.write(f"{self.step}\t{what}\t{value}\n")


def jsonl(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.startswith("{")]


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def peak_mib(path):
    """", peak device memory N MiB" from gpu_lib.sh's gpumem, or ""."""
    m = re.search(r"peak_device_mib=(\d+)", read(path))
    return f", peak device memory {m.group(1)} MiB" if m else ""


def peak(device, quick):
    """Dense bfloat16 matmul TFLOP/s: square products timed after warm-up."""
    import time
    import torch
    n, reps = (1024, 3) if quick or device == "cpu" else (8192, 200)
    a = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=device, dtype=torch.bfloat16)

    def run(k):
        for _ in range(k):
            a @ b
        if device != "cpu":
            torch.cuda.synchronize()
    run(3)
    t0 = time.perf_counter()
    run(reps)
    print(f"{2 * n ** 3 * reps / (time.perf_counter() - t0) / 1e12:.1f}")


def runs(path, tsv):
    """Step 4: wall times, compile share and shapes per dtype; per-sample
    agreement (bfloat16) and comparison (float32)."""
    note, rows = Notes(tsv, 4), jsonl(path)
    wall = collections.defaultdict(float)
    comp, shapes = collections.defaultdict(float), collections.defaultdict(int)
    for r in rows:
        if "seconds" in r:
            wall[(r["dtype"], "goeval" if r["engine"].startswith("goeval") else "lm-eval")] += r["seconds"]
        if "goeval_timing" in r:
            comp[r["dtype"]] += r["goeval_timing"]["compile_seconds"]
            shapes[r["dtype"]] += r["goeval_timing"]["shapes_compiled"]
    for dt in ("bfloat16", "float32"):
        g, lm = wall.get((dt, "goeval")), wall.get((dt, "lm-eval"))
        if not g or not lm:
            note(f"(a) {dt} whole runs", "incomplete (see the log)")
            continue
        note(f"(a) {dt} wall: lm-eval, goeval, goeval/lm-eval", f"{lm:.0f} s, {g:.0f} s, {g / lm:.2f} ({lm / g:.2f}× lm-eval's speed)")
        note(f"(a) {dt} goeval compiling", f"{comp[dt]:.1f} s = {100 * comp[dt] / g:.0f} % of its wall time, {shapes[dt]} shapes")
    agree = [r for r in rows if "share" in r]
    if agree:
        docs, ok = sum(r["docs"] for r in agree), sum(r["agreeing"] for r in agree)
        verdict = "pass" if ok >= 0.99 * docs else "FAIL"
        note("(b) bfloat16 per-document agreement", f"{ok}/{docs} = {100 * ok / max(docs, 1):.2f} % ({verdict}: ≥ 99 %)")
        fm = lambda x: "-" if x is None else f"{x:.3g}"  # noqa: E731
        for d in (d for r in agree for d in r["differences"]):
            ma, mb = d.get("margins") or [None, None]
            what = ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in d["metrics"].items())
            note("(b) bfloat16 difference", f"{d['task']} doc {d['doc_id']}: {what}; margins lm-eval {fm(ma)}, goeval {fm(mb)}")
    cmp = [r for r in rows if "compare_differences" in r]
    if cmp:
        n = sum(r["compare_differences"] for r in cmp)
        note("(b) float32 per sample within 1e-4", f"{n} differences, {sum(r['near_ties'] for r in cmp)} near-tie notes "
             f"in {len(cmp)} runs ({'pass' if n == 0 else 'FAIL'})")


def warm(path, cold_path, tsv):
    """Step 4: goeval's bfloat16 runs again with the compile cache the cold
    runs filled: wall time, shapes compiled and loaded, against cold."""
    note, rows, cold = Notes(tsv, 4), jsonl(path), jsonl(cold_path)
    wall = sum(r["seconds"] for r in rows if "seconds" in r)
    t = [r["goeval_timing"] for r in rows if "goeval_timing" in r]
    before = sum(r["seconds"] for r in cold if "seconds" in r and r["dtype"] == "bfloat16" and r["engine"].startswith("goeval"))
    if not t:
        note("(a) bfloat16 goeval, warm compile cache", "incomplete (see the log)")
        return
    comp = sum(x["compile_seconds"] for x in t)
    note("(a) bfloat16 goeval, warm compile cache: wall (cold), compiling, shapes compiled / loaded",
         f"{wall:.0f} s ({before:.0f} s), {comp:.1f} s = {100 * comp / max(wall, 1e-9):.0f} %, "
         f"{sum(x['shapes_compiled'] for x in t)} / {sum(x.get('shapes_from_compile_cache', 0) for x in t)}")


def keyvals(text):
    return dict(re.findall(r"([\w/]+)=(\S+)", text))


def bench(size, peak_tflops, work, tsv):
    """Step 9: scoring tok/s and MFU of goeval and transformers, decode
    tok/s per batch."""
    note = Notes(tsv, 9)
    pk = float(peak_tflops or 0)
    mfu = lambda gf: f"{100 * gf / 1000 / pk:.1f} %" if pk else "?"  # noqa: E731
    hf = jsonl(f"{work}/hf{size}.jsonl")
    hs = next((r for r in hf if "tokens_per_s" in r), None)
    g = keyvals(read(f"{work}/score{size}.txt"))
    if "tokens/s" in g and hs:
        gt, gf = float(g["tokens/s"]), float(g["gflops"])
        note(f"(c) {size} scoring tok/s, bf16, batch 64 (goeval: passes of ≤ 4096 tokens): goeval, transformers (sdpa)",
             f"{gt:.0f}, {hs['tokens_per_s']:.0f}: goeval/transformers {gt / hs['tokens_per_s']:.2f}{peak_mib(f'{work}/score{size}.err')}")
        note(f"(c) {size} model FLOP utilisation: goeval, transformers",
             f"{mfu(gf)} ({gf:.0f} GFLOP/s), {mfu(hs['gflops'])} ({hs['gflops']:.0f} GFLOP/s)")
    else:
        note(f"(c) {size} scoring", "incomplete (see the log)")
    rates = {}
    for line in read(f"{work}/gen{size}.txt").splitlines():
        d = keyvals(line)
        if "decode_tok_per_s" in d:
            rates[int(d["batch"])] = float(d["decode_tok_per_s"])
    done = False
    for r in hf:
        b = r.get("generate_batch")
        if b in rates:
            done = True
            note(f"(d) {size} decode tok/s at {b} rows: goeval, transformers generate()",
                 f"{rates[b]:.0f}, {r['decode_tokens_per_s']:.0f}: {rates[b] / r['decode_tokens_per_s']:.2f}×")
    if done:
        note(f"(d) {size} goeval bench generate", f"done{peak_mib(f'{work}/gen{size}.err')}")
    else:
        note(f"(d) {size} decode", "incomplete (see the log)")


def auto(results, log, tsv):
    """Step 10: the batches goeval run --batch-size auto used."""
    note = Notes(tsv, 10)
    f = sorted(glob.glob(results + "/**/results_*.json", recursive=True))
    if not f:
        note("(e) 8B --batch-size auto", "no results (see the log)")
        return
    with open(f[-1], encoding="utf-8") as fh:
        t = json.load(fh)["goeval_timing"]
    note("(e) 8B --batch-size auto: scoring, generation batch; back-offs",
         f"{t.get('scoring_batch_size', '-')}, {t.get('generation_batch_size', '-')}; {t.get('oom_backoffs', 0)}")
    m = re.search(r"peak_device_mib=(\d+)", read(log))
    note("(e) 8B memory: peak device, peak host RSS", f"{m.group(1) if m else '?'} MiB, {t.get('peak_rss_mb', '?')} MiB")
    note("(e) 8B compiles", f"{t['shapes_compiled']} shapes, {t['compile_seconds']:.1f} s")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "peak":
        peak(args[0], args[1] == "1")
    elif cmd == "runs":
        runs(*args)
    elif cmd == "warm":
        warm(*args)
    elif cmd == "bench":
        bench(*args)
    elif cmd == "auto":
        auto(*args)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
