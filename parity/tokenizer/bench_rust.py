"""Rust tokenizers encode throughput (MB/s) on the same corpus as `goeval bench tokenize`.

Usage: bench_rust.py TOKENIZER_JSON [CORPUS_JSONL(.gz)] [--time SECONDS]
Prints single-thread (encode in a loop) and batch (encode_batch, all cores) MB/s.
"""
import gzip, json, os, sys, time

from tokenizers import Tokenizer


def measure(min_time, size, f):
    start, n = time.perf_counter(), 0
    while n == 0 or time.perf_counter() - start < min_time:
        f()
        n += 1
    return size * n / 1e6 / (time.perf_counter() - start)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    min_time = float(sys.argv[sys.argv.index("--time") + 1]) if "--time" in sys.argv else 3.0
    if "--time" in sys.argv:
        args.remove(sys.argv[sys.argv.index("--time") + 1])
    path = args[0]
    corpus = args[1] if len(args) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "models", "tokenizer", "testdata", "corpus.jsonl.gz")
    opener = gzip.open if corpus.endswith(".gz") else open
    with opener(corpus, "rt", encoding="utf-8") as f:
        texts = [json.loads(l)["text"] for l in f]
    if path.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            tok = Tokenizer.from_str(f.read())
    else:
        tok = Tokenizer.from_file(path)
    size = sum(len(t.encode()) for t in texts)
    tok.encode_batch(texts, add_special_tokens=False)  # warm-up
    single = measure(min_time, size, lambda: [tok.encode(t, add_special_tokens=False) for t in texts])
    batch = measure(min_time, size, lambda: tok.encode_batch(texts, add_special_tokens=False))
    print(f"tokenizer={path} texts={len(texts)} bytes={size} rust_single_thread_MBps={single:.2f} rust_batch_MBps={batch:.2f} threads={os.cpu_count()}")


if __name__ == "__main__":
    main()
