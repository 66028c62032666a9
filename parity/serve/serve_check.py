"""goeval serve against real clients, on a tiny model with Qwen3's tokenizer.

Usage: python parity/serve/serve_check.py GOEVAL_BINARY [--work DIR] [--limit N]

1. `lm_eval --model local-completions` pointed at `goeval serve` (token-id
   prompts, echo + logprobs for log-likelihoods, generation for gsm8k)
   against `goeval run` on the same model, documents and tasks: the same
   per-sample results, log-likelihoods within 1e-4 (parity/e2e/compare.py).
2. `goeval run --model-type openai-completions` through the server against
   `goeval run` on the checkpoint: identical per-sample results.
3. The official `openai` package: models, completions with echo and
   logprobs (its log-probs sum to `goeval score`'s for the same ids),
   streamed completions and chat joining to the non-streamed answers.
4. goeval as the client of another OpenAI-compatible server, `transformers
   serve` (transformers' own, from PyPI): gsm8k generations through its
   completions (text prompts: it takes no token ids, so no log-likelihoods)
   equal goeval's own on the checkpoint; through its chat completions with
   the chat template, equal up to leading whitespace it strips.
Exits 1 on any difference. Needs .venv (make venv).
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "parity", "e2e"))
import compare  # noqa: E402

TASKS = "arc_easy,hellaswag,gsm8k"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, **kw)


def make_model(goeval, work):
    """A tiny Qwen2 model with the real Qwen3 tokenizer and chat template."""
    m = os.path.join(work, "model")
    os.makedirs(m, exist_ok=True)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        src = os.path.join(ROOT, "models/tokenizer/testdata/qwen3", name + ".gz")
        run(["sh", "-c", f"zcat '{src}' > '{os.path.join(m, name)}'"])
    run([goeval, "synth", "model", "--arch", "qwen2", "--hidden", "64", "--layers", "2", "--heads", "4",
         "--kv-heads", "2", "--intermediate", "128", "--tokenizer", m, "--seed", "5", "--out", m])
    return m


def wait_ready(url, proc):
    for _ in range(300):
        if proc.poll() is not None:
            raise SystemExit(f"goeval serve exited with {proc.returncode}")
        try:
            import urllib.request
            urllib.request.urlopen(url + "/v1/models", timeout=1).read()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("goeval serve did not answer within 30 s")


def lmeval_vs_run(goeval, model, data, url, work, limit):
    """lm-eval's local-completions through the server vs goeval run."""
    go_out, lm_out = os.path.join(work, "goeval-run"), os.path.join(work, "lmeval-serve")
    run([goeval, "run", "--model", model, "--data-dir", data, "--tasks", TASKS, "--limit", str(limit),
         "--device", "cpu", "--log-samples", "--output-path", go_out])
    args = (f"model={model},base_url={url}/v1/completions,tokenizer={model},tokenized_requests=True,"
            f"num_concurrent=4,max_retries=1,timeout=600")
    run([sys.executable, os.path.join(ROOT, "parity/e2e/lmeval_synth.py"), "--synth-dir", data,
         "--model", "local-completions", "--model_args", args, "--tasks", TASKS, "--limit", str(limit),
         "--log_samples", "--output_path", lm_out])
    return same_samples(f"lm_eval local-completions via goeval serve vs goeval run ({TASKS}, limit {limit})", lm_out, go_out)


def api_run_vs_run(goeval, model, data, url, work, limit):
    """goeval run --model-type openai-completions through the server vs goeval run."""
    go_out, api_out = os.path.join(work, "goeval-run"), os.path.join(work, "goeval-api-run")
    run([goeval, "run", "--model-type", "openai-completions", "--base-url", url + "/v1", "--model", model,
         "--tasks", TASKS, "--limit", str(limit), "--data-dir", data, "--log-samples", "--output-path", api_out])
    return same_samples("goeval run --model-type openai-completions via goeval serve vs goeval run", go_out, api_out)


def same_samples(what, want_dir, got_dir):
    """compare.py on two output folders, run-specific keys aside: prints the
    verdict and the first differences; true when there is none."""
    problems, notes = compare.compare_dirs(want_dir, got_dir, {})
    problems = [p for p in problems if not run_specific(p)]
    print(f"{what}: {len(problems)} differences, {len(notes)} near-tie notes")
    for p in problems[:20]:
        print("  DIFF:", p[:400])
    return len(problems) == 0


def samples(out_dir, task):
    import glob
    path = sorted(glob.glob(os.path.join(out_dir, "*", f"samples_{task}_*.jsonl")))[0]
    return [json.loads(x)["resps"][0][0] for x in open(path, encoding="utf-8")]


def transformers_serve(goeval, model, data, work):
    """goeval run --model-type openai-completions/openai-chat against `transformers serve`
    (a samples file has one line per document and filter: gsm8k's two)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(os.path.join(work, "transformers_serve.log"), "w")
    proc = subprocess.Popen([os.path.join(os.path.dirname(sys.executable), "transformers"), "serve", model,
                             "--host", "127.0.0.1", "--port", str(port)], stdout=log, stderr=subprocess.STDOUT,
                            env=dict(os.environ, HF_HUB_OFFLINE="1"))
    ok = True
    try:
        for _ in range(600):
            try:
                import urllib.request
                urllib.request.urlopen(url + "/health", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        common = ["--tasks", "gsm8k", "--limit", "4", "--data-dir", data, "--log-samples", "--gen-kwargs", "max_gen_toks=32"]
        for name, extra, api in (("completions", [], ["--model-type", "openai-completions", "--api-tokenized=false"]),
                                 ("chat", ["--apply-chat-template"], ["--model-type", "openai-chat"])):
            own, theirs = os.path.join(work, f"own-{name}"), os.path.join(work, f"tserve-{name}")
            run([goeval, "run", "--model", model, "--device", "cpu", "--output-path", own] + common + extra)
            run([goeval, "run"] + api + ["--base-url", url + "/v1", "--model", model, "--output-path", theirs] + common + extra)
            a, b = samples(own, "gsm8k"), samples(theirs, "gsm8k")
            exact = sum(x == y for x, y in zip(a, b))
            loose = sum(x.strip() == y.strip() for x, y in zip(a, b))
            print(f"transformers serve {name}: {exact}/{len(a)} generations identical to goeval's, {loose}/{len(a)} up to surrounding whitespace")
            ok &= len(a) == len(b) > 0 and (exact if name == "completions" else loose) == len(a)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    return ok


def run_specific(p):
    """The runs name different models (an API model with its URL, a
    checkpoint with its path): config, each task's metadata and the API
    model's own max_length differ by design; samples and metrics may not."""
    where = p.split(":", 1)[0].split(" ", 1)[0]
    return (where == "max_length" or where.startswith(("goeval_", "config.")) or where == "config"
            or (where.startswith("configs.") and where.endswith(".metadata")))


def openai_checks(goeval, model, url):
    """The openai package's chat, completions (echo/logprobs) and streams."""
    import openai
    c = openai.OpenAI(base_url=url + "/v1", api_key="unused")
    ok = True
    names = [m.id for m in c.models.list().data]
    if names != [model]:
        print("models.list:", names)
        ok = False
    ids = [9707, 1879, 11, 419, 374, 264, 1273, 13]
    r = c.completions.create(model=model, prompt=ids, max_tokens=1, temperature=0, logprobs=1, echo=True)
    lp = r.choices[0].logprobs
    got = sum(lp.token_logprobs[1:-1])
    score = subprocess.run([goeval, "score", "--model", model, "--device", "cpu"], check=True, capture_output=True, text=True,
                           input=json.dumps({"context_ids": ids[:1], "continuation_ids": ids[1:]}) + "\n")
    want = json.loads(score.stdout)["logprob"]
    print(f"openai completions echo+logprobs: Σ prompt log-probs {got:.9f}, goeval score {want:.9f}")
    ok &= abs(got - want) <= 1e-4 and len(lp.token_logprobs) == len(ids) + 1 and lp.token_logprobs[0] is None
    whole = c.completions.create(model=model, prompt="The capital of France is", max_tokens=12, temperature=0, stop=["\n"])
    streamed = "".join(ch.choices[0].text for ch in c.completions.create(
        model=model, prompt="The capital of France is", max_tokens=12, temperature=0, stop=["\n"], stream=True) if ch.choices)
    print(f"openai completions stream: {streamed!r} vs whole {whole.choices[0].text!r}")
    ok &= streamed == whole.choices[0].text
    msgs = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Name a colour."}]
    chat = c.chat.completions.create(model=model, messages=msgs, max_tokens=10, temperature=0.7, seed=3)
    chat2 = c.chat.completions.create(model=model, messages=msgs, max_tokens=10, temperature=0.7, seed=3)
    parts = [ch.choices[0].delta.content or "" for ch in c.chat.completions.create(
        model=model, messages=msgs, max_tokens=10, temperature=0.7, seed=3, stream=True) if ch.choices]
    text = chat.choices[0].message.content
    print(f"openai chat (seed 3): {text!r}, again {chat2.choices[0].message.content!r}, streamed {''.join(parts)!r}")
    ok &= text == chat2.choices[0].message.content == "".join(parts) and chat.usage.completion_tokens > 0
    try:
        c.completions.create(model=model, prompt="x", max_tokens=1, temperature=5)
        print("temperature 5 accepted")
        ok = False
    except openai.BadRequestError as e:
        print("openai error for temperature 5:", str(e)[:120])
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("goeval")
    ap.add_argument("--work", default="")
    ap.add_argument("--limit", type=int, default=8)
    a = ap.parse_args()
    goeval = os.path.abspath(a.goeval)
    work = a.work or tempfile.mkdtemp(prefix="serve_check_")
    model = make_model(goeval, work)
    data = os.path.join(work, "data")
    run([goeval, "synth", "data", "--task", TASKS, "--n", "20", "--out", data])
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(os.path.join(work, "serve.log"), "w")
    proc = subprocess.Popen([goeval, "serve", "--model", model, "--port", str(port), "--device", "cpu"],
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_ready(url, proc)
        ok = lmeval_vs_run(goeval, model, data, url, work, a.limit)
        ok &= api_run_vs_run(goeval, model, data, url, work, a.limit)
        ok &= openai_checks(goeval, model, url)
        ok &= transformers_serve(goeval, model, data, work)
    finally:
        proc.terminate()
        code = proc.wait(timeout=60)
    print(f"goeval serve stopped with status {code} after SIGTERM (a clean shutdown: 0); log {log.name}")
    ok &= code == 0
    print("serve check:", "OK" if ok else "FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
