#!/usr/bin/env bash
# Real-server tests of goeval's Hub client (make hub-test; .ci/run after
# make parity). olah, a self-hosted Hugging Face mirror, serves git
# repositories made from `goeval synth` output on loopback; huggingface_hub
# (the parity venv's) checks the cache both ways:
#   1. goeval run --model ORG/NAME --tasks arc_easy,gsm8k --limit 10 from an
#      empty cache, then with HF_HUB_OFFLINE=1: the same results;
#   2. huggingface_hub offline finds every file goeval fetched;
#   3. huggingface_hub's snapshot_download fills a cache; goeval runs offline
#      from it, with the same results;
#   4. a corrupted blob is detected and fetched again; a partial .incomplete
#      left by a killed download is completed;
#   5. the committed huggingface_hub cache listing (hub/testdata) is
#      regenerated from huggingface_hub and must not change.
# Usage: scripts/hub_test.sh [GOEVAL_BINARY]   (PY: the parity venv's python)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
GOEVAL="$(realpath "${1:-bin/goeval}")"
PY="${PY:-.venv/bin/python}"
PY="$(cd "$(dirname "$PY")" && pwd)/$(basename "$PY")" # absolute, the venv's link kept
HUBVENV="$root/.venv-hub"
step() { printf '\n== %s\n' "$*"; }
fail() { echo "hub_test: FAIL: $*" >&2; exit 1; }

if [[ ! -x "$HUBVENV/bin/olah-cli" || scripts/hub-requirements.lock -nt "$HUBVENV/.installed" ]]; then
  step "installing olah into $HUBVENV (scripts/hub-requirements.lock)"
  python3 -m venv "$HUBVENV"
  "$HUBVENV/bin/pip" install -q -r scripts/hub-requirements.lock
  touch "$HUBVENV/.installed"
fi

tmp="$(mktemp -d)"
olah_pid=""
cleanup() { [[ -n "$olah_pid" ]] && kill "$olah_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
cd "$tmp"

step "repositories from goeval synth"
"$GOEVAL" synth tokenizer --out tok --vocab 300 >/dev/null
"$GOEVAL" synth model --hidden 32 --layers 1 --heads 2 --kv-heads 1 --intermediate 64 --tokenizer tok --out src/model >/dev/null
for t in arc_easy gsm8k; do "$GOEVAL" synth data --task "$t" --out src/data --n 20 >/dev/null; done
"$root/scripts/hub_mkrepo.sh" src/model mirrors/models/goeval-test/tiny
"$root/scripts/hub_mkrepo.sh" src/data/allenai/ai2_arc mirrors/datasets/allenai/ai2_arc
"$root/scripts/hub_mkrepo.sh" src/data/openai/gsm8k mirrors/datasets/openai/gsm8k

port="$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
cat >olah.toml <<TOML
[basic]
host = "127.0.0.1"
port = $port
repos-path = "$tmp/olah-repos"
mirrors-path = ["$tmp/mirrors"]
mirror-netloc = "127.0.0.1:$port"
mirror-lfs-netloc = "127.0.0.1:$port"
[accessibility]
offline = true
TOML
step "olah on 127.0.0.1:$port"
"$HUBVENV/bin/olah-cli" -c olah.toml --log-path "$tmp/logs" >olah.log 2>&1 &
olah_pid=$!
for _ in $(seq 60); do
  curl -sf "http://127.0.0.1:$port/api/models/goeval-test/tiny/revision/main" >/dev/null && break
  kill -0 "$olah_pid" 2>/dev/null || { cat olah.log; fail "olah exited"; }
  sleep 0.5
done
curl -sf "http://127.0.0.1:$port/api/models/goeval-test/tiny/revision/main" >/dev/null || { cat olah.log; fail "olah not ready"; }

unset HF_TOKEN HUGGING_FACE_HUB_TOKEN HF_HUB_CACHE HUGGINGFACE_HUB_CACHE TRANSFORMERS_OFFLINE
export HF_ENDPOINT="http://127.0.0.1:$port" HF_HUB_DISABLE_TELEMETRY=1
run=(run --model goeval-test/tiny --tasks arc_easy,gsm8k --limit 10 --bootstrap-iters 10 --device cpu)
same_results() { "$PY" - "$@" <<'PY'
import glob, json, sys
a, b = (json.load(open(glob.glob(d + "/goeval-test__tiny/results_*.json")[0])) for d in sys.argv[1:3])
if a["results"] != b["results"]:
    sys.exit(f"results differ:\n{a['results']}\n{b['results']}")
c = b["config"]
assert c["model_sha"] and c["model_revision"] == "main", c
assert set(b["dataset_sha"]) == {"allenai/ai2_arc", "openai/gsm8k"}, b.get("dataset_sha")
print("same results;", "model_sha", c["model_sha"], "datasets", b["dataset_sha"])
PY
}

step "1. goeval from an empty cache, then offline"
export HF_HOME="$tmp/hf-goeval"
HF_HUB_OFFLINE=0 "$GOEVAL" "${run[@]}" --output-path online
HF_HUB_OFFLINE=1 "$GOEVAL" "${run[@]}" --output-path offline
same_results online offline || fail "online and offline runs differ"

step "2. huggingface_hub offline finds every file goeval fetched"
HF_HUB_OFFLINE=1 "$PY" - <<'PY' || fail "huggingface_hub offline"
import os
from huggingface_hub import hf_hub_download, snapshot_download, scan_cache_dir
cache = scan_cache_dir()
assert not cache.warnings, cache.warnings
n = 0
for repo in cache.repos:
    for rev in repo.revisions:
        for f in rev.files:
            name = f.file_path.relative_to(rev.snapshot_path).as_posix()
            p = hf_hub_download(repo.repo_id, name, repo_type=repo.repo_type)
            assert os.path.samefile(p, f.file_path), (p, f.file_path)
            n += 1
        assert snapshot_download(repo.repo_id, repo_type=repo.repo_type) == str(rev.snapshot_path)
kinds = sorted((r.repo_type, r.repo_id) for r in cache.repos)
assert kinds == [("dataset", "allenai/ai2_arc"), ("dataset", "openai/gsm8k"), ("model", "goeval-test/tiny")], kinds
print(f"huggingface_hub found all {n} files of {len(kinds)} repositories offline")
PY

step "3. huggingface_hub snapshot_download fills a cache; goeval runs offline from it"
export HF_HOME="$tmp/hf-python"
HF_HUB_OFFLINE=0 "$PY" -c '
from huggingface_hub import snapshot_download
for r, t in [("goeval-test/tiny", "model"), ("allenai/ai2_arc", "dataset"), ("openai/gsm8k", "dataset")]:
    print(snapshot_download(r, repo_type=t))'
HF_HUB_OFFLINE=1 "$GOEVAL" "${run[@]}" --output-path from-python
same_results online from-python || fail "goeval on huggingface_hub's cache differs"

step "4. corrupted blob re-fetched; partial download completed"
export HF_HOME="$tmp/hf-goeval"
blob="$(readlink -f "$HF_HOME"/hub/models--goeval-test--tiny/snapshots/*/model.safetensors)"
want="$(basename "$blob")"
printf 'garbage' | dd of="$blob" bs=1 seek=1000 conv=notrunc status=none
[[ "$(sha256sum "$blob" | cut -d' ' -f1)" != "$want" ]] || fail "corruption did not take"
HF_HUB_OFFLINE=0 "$GOEVAL" download goeval-test/tiny 2>&1 | tee dl.log
grep -q "is corrupt; fetching it again" dl.log || fail "corrupt blob not reported"
[[ "$(sha256sum "$blob" | cut -d' ' -f1)" == "$want" ]] || fail "blob still corrupt"
# A download killed mid-file leaves blobs/<etag>.incomplete: the next run
# completes it. (olah's local mirror ignores HTTP ranges and resends the
# whole file; hub/fetch_test.go TestResume counts the bytes of a ranged
# resume against net/http's range implementation.)
head -c 50000 "$blob" >"$blob.incomplete"
rm "$blob"
HF_HUB_OFFLINE=0 "$GOEVAL" download goeval-test/tiny
[[ "$(sha256sum "$blob" | cut -d' ' -f1)" == "$want" && ! -e "$blob.incomplete" ]] || fail "partial download not completed"

step "5. the committed huggingface_hub cache listing is current"
cd "$root"
GOEVAL_HUB_PYTHON="$PY" go test -count=1 -run TestCacheMatchesHuggingfaceHub ./hub
git diff --exit-code hub/testdata || fail "hub/testdata/hf_cache_listing.txt changed: huggingface_hub's cache layout moved"
echo "hub_test: OK"
