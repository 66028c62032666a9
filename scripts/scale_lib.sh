# Shared by the scale tests (scripts/scale_test.sh): the run they all
# evaluate, and checks. Source it with GOEVAL and WORK set.

# The run: arc_easy, gsm8k and mmlu's stem group (60 documents of each
# task) on a tiny generated model and synthetic data, every sample logged.
# Every run goes from $WORK with --model m, so that all record the same
# model name.
TASKS=arc_easy,gsm8k,mmlu_stem
FLAGS="--limit 60 --data-dir $WORK/data --log-samples --bootstrap-iters 1000 --gen-kwargs max_gen_toks=32"
SHARDS=4

# make_inputs writes the model and data, and the one-process run into
# $WORK/one.
make_inputs() {
	"$GOEVAL" synth tokenizer --out "$WORK/tok" --vocab 400
	"$GOEVAL" synth model --hidden 256 --layers 4 --heads 4 --kv-heads 2 --intermediate 768 \
		--tokenizer "$WORK/tok" --seed 1 --out "$WORK/m"
	"$GOEVAL" synth data --task arc_easy,gsm8k,mmlu_stem --out "$WORK/data" --n 80 >/dev/null
	# shellcheck disable=SC2086  # FLAGS is a list of flags
	(cd "$WORK" && "$GOEVAL" run --model m --tasks "$TASKS" $FLAGS --output-path one >one.table 2>one.log)
	grep 'results written' "$WORK/one.log"
}

# same_as_one DIR: the merged run in DIR/m is the one-process run's.
same_as_one() {
	python3 "$(dirname "${BASH_SOURCE[0]}")/scale_compare.py" "$WORK/one/m" "$1/m"
}

# wait_committed CACHE_DIR: returns once the request cache in CACHE_DIR
# holds a first committed chunk (its bbolt file grows past 32 KiB) but
# before the shard is done, so that a kill then loses only the rest.
wait_committed() {
	local f
	for _ in $(seq 1200); do
		for f in "$1"/*.bolt; do
			if [[ -e $f && $(stat -c %s "$f") -gt 32768 ]]; then
				return 0
			fi
		done
		sleep 0.05
	done
	echo "no committed chunk in $1" >&2
	return 1
}

# cache_line LOG: the "cache …: X of Y requests reused, Z computed" line.
cache_line() { grep -h '^cache ' "$1"; }
