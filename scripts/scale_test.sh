#!/bin/bash
# make scale-test: goeval's shards under real schedulers on this machine
# (not part of make test). Slurm (Debian's slurm-wlm and munge, started on
# loopback) and Ray (PyPI's ray in its own venv: a head and a worker on
# loopback) each run a 4-shard evaluation and merge it, and a shard killed
# mid-run is re-run alone; each merge must be the one-process run's files
# (timing keys aside). The Kubernetes manifests are validated against the
# Kubernetes JSON schemas (kubernetes-validate); no cluster runs here.
# Usage: scripts/scale_test.sh [BINARY] [slurm] [ray] [k8s]
#   SCALE_DIR: the work folder (default /tmp/goeval-scale, emptied first)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
GOEVAL=$(realpath "${1:-$root/bin/goeval}")
shift || true
parts=("$@")
((${#parts[@]})) || parts=(slurm ray k8s)
export GOEVAL WORK=${SCALE_DIR:-/tmp/goeval-scale}
rm -rf "$WORK" && mkdir -p "$WORK"
source "$root/scripts/scale_lib.sh"
echo "== inputs and the one-process run in $WORK"
make_inputs
for p in "${parts[@]}"; do
	case $p in
	slurm) "$root/scripts/scale_slurm.sh" ;;
	ray) "$root/scripts/scale_ray.sh" ;;
	k8s) "$root/scripts/scale_k8s.sh" ;;
	*) echo "unknown part $p (slurm, ray, k8s)" >&2 && exit 2 ;;
	esac
done
echo "== scale test passed: ${parts[*]}"
