#!/bin/bash
# goeval's shards under a real Slurm (scale_slurm_cluster.sh: slurmctld and a
# slurmd on loopback): examples/slurm/submit.sh submits SHARDS array tasks
# and a merge job that depends on them; the merged run must be the
# one-process run. Then shard 2 of another run is SIGKILLed mid-run
# (scancel --signal=KILL), re-submitted alone with its merge job: the merge
# is again the one-process run, and the re-run computed only what the
# killed shard had not committed to its request cache.
# Usage: GOEVAL=bin WORK=dir scripts/scale_slurm.sh (after scale_lib.sh's make_inputs)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
examples=$(cd "$here/../examples/slurm" && pwd)
source "$here/scale_lib.sh"
"$here/scale_slurm_cluster.sh" start "$WORK/slurm"
trap '"$here/scale_slurm_cluster.sh" stop "$WORK/slurm"' EXIT
export SLURM_CONF=$WORK/slurm/slurm.conf GOEVAL MODEL=m TASKS EXTRA=$FLAGS SHARDS GOEVAL_PROGRESS_INTERVAL=1s
cd "$WORK"

# state JOB: the job's (or array task's) state, "" once it is gone.
state() { scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1 | cut -d= -f2; }

# wait_done JOB: waits until no task of JOB is pending or running.
wait_done() {
	while squeue -h -j "$1" -t PD,R,CG 2>/dev/null | grep -q .; do sleep 0.5; done
}

echo "== Slurm: $SHARDS shards as a job array, a merge job after them"
read -r shards merge < <(OUT=slurm-out "$examples/submit.sh")
wait_done "$merge"
for i in $(seq 0 $((SHARDS - 1))); do echo "shard job ${shards}_$i: $(state "${shards}_$i")"; done
echo "merge job $merge: $(state "$merge")"
cat "goeval-merge-$merge.out" | grep -v '^|'
same_as_one slurm-out

echo "== Slurm: shard 2 SIGKILLed mid-run, re-submitted alone"
read -r shards merge < <(OUT=slurm-kill "$examples/submit.sh")
wait_committed slurm-kill/cache/shard-2-of-$SHARDS
scancel --full --signal=KILL "${shards}_2"
wait_done "$shards"
for i in $(seq 0 $((SHARDS - 1))); do echo "shard job ${shards}_$i: $(state "${shards}_$i")"; done
[[ ! -e slurm-kill/m/shard-2-of-$SHARDS/shard.json ]] || { echo "the killed shard wrote its manifest" >&2; exit 1; }
for _ in $(seq 20); do
	scontrol -o show job "$merge" | grep -q 'Reason=DependencyNeverSatisfied' && break
	sleep 0.5
done
echo "merge job $merge: $(state "$merge"), $(scontrol -o show job "$merge" | grep -o 'Reason=[A-Za-z]*')"
scancel "$merge"
again=$(GOEVAL_SHARD_COUNT=$SHARDS OUT=slurm-kill sbatch --parsable --export=ALL --array=2 "$examples/goeval-shards.sbatch")
merge=$(OUT=slurm-kill sbatch --parsable --export=ALL --dependency=afterok:"$again" "$examples/goeval-merge.sbatch")
wait_done "$merge"
echo "re-submitted shard job ${again}_2: $(state "${again}_2"); merge job $merge: $(state "$merge")"
echo "the killed shard's first run: $(grep -c . "goeval-shard-${shards}_2.out") lines of log, no cache line (SIGKILL)"
echo "its re-run: $(cache_line "goeval-shard-${again}_2.out")"
for i in 0 1 3; do echo "shard $i (not re-run): $(cache_line "goeval-shard-${shards}_$i.out")"; done
read -r reused total computed < <(cache_line "goeval-shard-${again}_2.out" | sed -E 's/.*: ([0-9]+) of ([0-9]+) requests reused, ([0-9]+) computed/\1 \2 \3/')
if ((reused == 0 || computed == 0 || reused + computed != total)); then
	echo "the re-run should reuse the committed requests and compute the rest" >&2
	exit 1
fi
same_as_one slurm-kill
