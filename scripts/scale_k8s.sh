#!/bin/bash
# Validates examples/k8s against the Kubernetes JSON schemas with PyPI's
# kubernetes-validate (strict: unknown fields are errors), in its own venv,
# for the oldest and newest Kubernetes the Indexed Job's fields need; then
# checks that the validator rejects a broken copy. No cluster runs here:
# kubectl's --dry-run=client still asks the API server for the resource
# types, which the last step shows.
# Usage: WORK=dir scripts/scale_k8s.sh
#   K8S_VENV: the venv (default ~/.cache/goeval-scale/venv-k8s, created when missing)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
examples=$(cd "$here/../examples/k8s" && pwd)
venv=${K8S_VENV:-$HOME/.cache/goeval-scale/venv-k8s}
if [[ ! -x $venv/bin/kubernetes-validate ]]; then
	python3 -m venv "$venv"
	"$venv/bin/pip" install -q 'kubernetes-validate==1.37.0'
fi
validate() { "$venv/bin/kubernetes-validate" --strict "$@"; }
echo "== Kubernetes: examples/k8s against the schemas (kubernetes-validate $("$venv/bin/kubernetes-validate" --version))"
for k in 1.29.0 1.37.0; do # backoffLimitPerIndex: beta in 1.29, GA in 1.33
	validate -k "$k" "$examples"/*.yaml
done
broken=${WORK:-/tmp}/shards-job-broken.yaml
sed 's/completionMode: Indexed/completionMode: Indexd/; s/backoffLimitPerIndex:/backoffLimitPerIndx:/' "$examples/shards-job.yaml" >"$broken"
if validate -k 1.37.0 "$broken" >"$broken.log" 2>&1; then
	echo "kubernetes-validate passed a broken Job" >&2
	exit 1
fi
echo "a broken copy is rejected: $(grep -c ERROR "$broken.log") errors, e.g. $(grep -m1 ERROR "$broken.log" | cut -c1-160)"
if command -v kubectl >/dev/null; then
	echo "kubectl apply --dry-run=client without a cluster:"
	KUBECONFIG=/dev/null kubectl apply --dry-run=client -f "$examples/shards-job.yaml" 2>&1 | head -2 | sed 's/^/  /' || true
fi
