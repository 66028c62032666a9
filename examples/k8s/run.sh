#!/bin/bash
# Runs the example on the cluster kubectl points at: the shared volume, the
# downloads, the 4 shards, then the merge; prints the merge's output.
# Jobs have no dependencies in Kubernetes, so this script waits for each.
set -euo pipefail
cd "$(dirname "$0")"
kubectl apply -f pvc.yaml -f prepare-job.yaml
kubectl wait --for=condition=complete --timeout=2h job/goeval-prepare
kubectl apply -f shards-job.yaml
kubectl wait --for=condition=complete --timeout=24h job/goeval-shards
kubectl apply -f merge-job.yaml
kubectl wait --for=condition=complete --timeout=1h job/goeval-merge
kubectl logs job/goeval-merge
