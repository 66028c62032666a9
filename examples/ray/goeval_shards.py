"""Runs one goeval evaluation as N shards, each a Ray task on the cluster's
nodes, then merges them (goeval merge) into the run's results files.

    python goeval_shards.py --address HEAD:6379 --shards 4 --goeval /path/goeval \
        --output-path /shared/res -- --model /models/qwen --tasks arc_easy,gsm8k --log-samples

Everything after "--" goes to every `goeval run`; the output path (and the
model and data folders) must be on a filesystem every node shares. Each
shard caches its answered requests (--use-cache OUT/cache): when a shard
fails (its node lost, the process killed, out of memory) Ray runs that task
again, and the new attempt computes only the requests the failed one had
not committed.
"""
import argparse
import os
import subprocess

import ray


@ray.remote(num_cpus=1, max_retries=3, retry_exceptions=True)
def shard(goeval, index, count, out, args, cwd):
    """goeval run --shard index/count; returns its stderr's summary lines."""
    cmd = [goeval, "run", *args, "--output-path", out, "--shard", f"{index}/{count}",
           "--use-cache", os.path.join(out, "cache")]
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"shard {index}/{count} exited with {r.returncode}: {r.stderr[-2000:]}")
    return [line for line in r.stderr.splitlines() if line.startswith(("cache ", "shard ", "engine: "))]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--address", default="auto", help="the Ray cluster (default: the one this node belongs to)")
    p.add_argument("--shards", type=int, default=4)
    p.add_argument("--goeval", default="goeval", help="the goeval binary, on every node")
    p.add_argument("--output-path", required=True, help="the shards' --output-path, shared by every node")
    p.add_argument("--cwd", default=os.getcwd(), help="the folder goeval runs in (default: this one)")
    p.add_argument("run_args", nargs=argparse.REMAINDER, help="-- then goeval run's flags")
    a = p.parse_args()
    args = a.run_args[1:] if a.run_args[:1] == ["--"] else a.run_args
    ray.init(address=a.address)
    print(f"ray: {len(ray.nodes())} nodes, {ray.cluster_resources().get('CPU', 0):g} CPUs", flush=True)
    refs = [shard.remote(a.goeval, i, a.shards, a.output_path, args, a.cwd) for i in range(a.shards)]
    for i, lines in enumerate(ray.get(refs)):
        for line in lines:
            print(f"shard {i}: {line}" if not line.startswith("shard ") else line, flush=True)
    r = subprocess.run([a.goeval, "merge", a.output_path], cwd=a.cwd, capture_output=True, text=True)
    print(r.stderr, end="", flush=True)
    if r.returncode != 0:
        raise SystemExit(r.returncode)


if __name__ == "__main__":
    main()
