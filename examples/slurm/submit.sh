#!/bin/bash
# Submits a goeval run as SHARDS array tasks and a merge job that waits for
# them; prints the two job ids. Usage:
#   GOEVAL=/path/goeval MODEL=/models/qwen TASKS=arc_easy,gsm8k OUT=/shared/res \
#   SHARDS=4 EXTRA="--log-samples" examples/slurm/submit.sh [sbatch options…]
# To re-run one failed shard alone, then merge:
#   GOEVAL_SHARD_COUNT=4 sbatch --array=2 --export=ALL examples/slurm/goeval-shards.sbatch
#   sbatch --dependency=afterok:<that job> --export=ALL examples/slurm/goeval-merge.sbatch
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${GOEVAL:?} ${MODEL:?} ${TASKS:?} ${OUT:?}"
export GOEVAL MODEL TASKS OUT EXTRA="${EXTRA:-}" GOEVAL_SHARD_COUNT="${SHARDS:=4}"
shards=$(sbatch --parsable --export=ALL --array=0-$((SHARDS - 1)) "$@" "$here/goeval-shards.sbatch")
merge=$(sbatch --parsable --export=ALL --dependency=afterok:"$shards" "$@" "$here/goeval-merge.sbatch")
echo "$shards $merge"
