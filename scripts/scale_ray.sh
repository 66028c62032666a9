#!/bin/bash
# goeval's shards as Ray tasks (examples/ray/goeval_shards.py) on a real
# Ray cluster: a head and a worker node on loopback, PyPI's ray in its own
# venv. The merged run must be the one-process run; then shard 2 of another
# run is SIGKILLed mid-run, Ray runs that task again, and the new attempt
# computes only what the killed one had not committed to its request cache.
# Usage: GOEVAL=bin WORK=dir scripts/scale_ray.sh (after scale_lib.sh's make_inputs)
#   RAY_VENV: the venv (default ~/.cache/goeval-scale/venv-ray, created when missing)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
example=$(cd "$here/../examples/ray" && pwd)/goeval_shards.py
source "$here/scale_lib.sh"
venv=${RAY_VENV:-$HOME/.cache/goeval-scale/venv-ray}
if [[ ! -x $venv/bin/ray ]]; then
	python3 -m venv "$venv"
	"$venv/bin/pip" install -q 'ray==2.60.0'
fi
ray=$venv/bin/ray port=26379
"$ray" stop --force >/dev/null 2>&1 || true
trap '"$ray" stop --force >/dev/null 2>&1 || true' EXIT
# Ray's memory monitor kills tasks when the machine (shared with other
# programs here) is nearly full; the shards are small, so it is off.
export RAY_memory_monitor_refresh_ms=0
"$ray" start --head --node-ip-address=127.0.0.1 --port=$port --num-cpus=1 --include-dashboard=false \
	--object-store-memory=100000000 --disable-usage-stats >"$WORK/ray-head.log" 2>&1
"$ray" start --address=127.0.0.1:$port --node-ip-address=127.0.0.1 --num-cpus=1 \
	--object-store-memory=100000000 --disable-usage-stats >"$WORK/ray-worker.log" 2>&1
cd "$WORK"
# shellcheck disable=SC2086  # FLAGS is a list of flags
run() { "$venv/bin/python" "$example" --address 127.0.0.1:$port --shards $SHARDS --goeval "$GOEVAL" \
	--output-path "$1" -- --model m --tasks "$TASKS" $FLAGS; }

echo "== Ray: $SHARDS shards as tasks on a head and a worker node"
run ray-out | tee ray-out.log
same_as_one ray-out

echo "== Ray: shard 2 SIGKILLed mid-run, the task run again"
run ray-kill >ray-kill.log 2>&1 &
driver=$!
wait_committed ray-kill/cache/shard-2-of-$SHARDS
pid=""
for c in /proc/[0-9]*/cmdline; do # the goeval process of shard 2 of this run, by its arguments
	if tr '\0' ' ' <"$c" 2>/dev/null | grep -q -- "--output-path ray-kill --shard 2/$SHARDS "; then
		pid=${c#/proc/} pid=${pid%/cmdline}
	fi
done
[[ -n $pid ]] || { echo "no goeval process of shard 2" >&2; exit 1; }
kill -KILL "$pid"
echo "killed shard 2's goeval (pid $pid) after its first committed chunk"
wait "$driver"
cat ray-kill.log
grep -q "shard 2/$SHARDS exited with -9" ray-kill.log # the attempt Ray ran again
read -r reused total computed < <(grep '^shard 2: cache ' ray-kill.log | sed -E 's/.*: ([0-9]+) of ([0-9]+) requests reused, ([0-9]+) computed/\1 \2 \3/')
if ((reused == 0 || computed == 0 || reused + computed != total)); then
	echo "the new attempt should reuse the committed requests and compute the rest" >&2
	exit 1
fi
same_as_one ray-kill
