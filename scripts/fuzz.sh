#!/usr/bin/env bash
# Runs every Go fuzz target of the parsers of user input, one after another,
# for SECONDS each (default 5; a Go duration such as 10m works too) with one
# worker, and prints one line per target: name, package, executions,
# result. Exits non-zero if any target fails; the failing input is then in
# the package's testdata/fuzz/TARGET/ (commit it as a regression test once
# the parser is fixed) and the target's output is printed below its line.
#
#   scripts/fuzz.sh            # 5 s each (make test)
#   scripts/fuzz.sh 600        # the 10-minute run
#   FUZZ_TARGETS='FuzzHeader FuzzIndex' scripts/fuzz.sh 60
#
# Each package's test binary is built once (instrumented, as go test -fuzz
# builds it) and run for each of its targets in the package directory, with
# go test's corpus cache ($GOCACHE/fuzz). New inputs that widen coverage
# are minimized for at most FUZZ_MINIMIZE (default 2s) instead of Go's 60 s,
# which would stall a short run on one input. "execs" is the count Go
# reports; a run that ends while replaying the corpus shows "baseline".
set -uo pipefail
fuzztime=${1:-5}
[[ $fuzztime =~ ^[0-9]+$ ]] && fuzztime=${fuzztime}s
minimize=${FUZZ_MINIMIZE:-2s}
GO=${GO:-go}

# package: its targets.
all="./models/safetensors: FuzzHeader FuzzIndex
./models: FuzzConfig FuzzAdapterConfig
./models/tokenizer: FuzzFromJSON FuzzChatTemplate FuzzEncodeDecode
./engine: FuzzGenerationConfig
./tasks: FuzzJSONL FuzzParquet FuzzGenKwargs FuzzTaskYAML FuzzJinja
./report: FuzzResults FuzzSamples
./cmd/goeval: FuzzJSONLines
./serve: FuzzRequest
./metrics/mathverify: FuzzParse FuzzIsEquiv
./internal/pyworker: FuzzDecode"

root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cache=$($GO env GOCACHE)/fuzz
failed=0

# report TARGET PKG LOG RC prints the target's summary line (and its output
# when it failed).
report() {
	local execs
	execs=$(grep -o 'execs: [0-9]*' "$3" | tail -1 | cut -d' ' -f2)
	[ -z "$execs" ] && execs=baseline
	if [ "$4" -eq 0 ]; then
		printf '%-22s %-22s execs %-10s ok\n' "$1" "$2" "$execs"
	else
		failed=1
		printf '%-22s %-22s execs %-10s FAIL\n' "$1" "$2" "$execs"
		grep -v '^fuzz: elapsed' "$3" | tail -40 | sed 's/^/    /'
	fi
}

# fuzz_one PKG BIN IMPORTPATH TARGET [FLAG...] runs one target into $tmp/log;
# the FLAGs go last, so they override the defaults (Go's last flag wins).
fuzz_one() {
	(cd "$root/$1" && "$2" -test.run='^$' -test.fuzz="^$4\$" -test.fuzztime="$fuzztime" \
		-test.fuzzminimizetime="$minimize" -test.parallel=1 -test.fuzzcachedir="$cache/$3" \
		-test.paniconexit0 "${@:5}") >"$tmp/log" 2>&1
}

while IFS=: read -r pkg targets; do
	run=()
	for t in $targets; do
		if [ -z "${FUZZ_TARGETS:-}" ] || grep -qw -- "$t" <<<"$FUZZ_TARGETS"; then
			run+=("$t")
		fi
	done
	[ ${#run[@]} -eq 0 ] && continue
	bin=$tmp/$(basename "$pkg").test
	if ! $GO test -c -fuzz=. -o "$bin" "$pkg" >"$tmp/log" 2>&1; then
		for t in "${run[@]}"; do report "$t" "$pkg" "$tmp/log" 1; done
		continue
	fi
	importpath=$($GO list "$pkg")
	for t in "${run[@]}"; do
		fuzz_one "$pkg" "$bin" "$importpath" "$t"
		rc=$?
		# Go 1.26's fuzz coordinator can end a timed run with a bare
		# "context deadline exceeded" and no failing input: a race between
		# the -fuzztime deadline and its workers' context (go.dev/issue/75804,
		# fixed in Go 1.27), likelier on a loaded machine (CI hit it twice in
		# a row on FuzzParquet). A real finding always writes "Failing input
		# written to …". Only the bare error is run again, by execution count
		# (at least as many as the timed run made), which has no deadline to
		# race; -test.timeout bounds it.
		if [ $rc -ne 0 ] && grep -q 'context deadline exceeded' "$tmp/log" && ! grep -q 'Failing input written' "$tmp/log"; then
			n=$(grep -o 'execs: [0-9]*' "$tmp/log" | tail -1 | cut -d' ' -f2)
			n=$(( ${n:-0} > 200 ? ${n:-0} : 200 ))
			echo "$t: Go's fuzz deadline race (go.dev/issue/75804), no failing input; running it again for ${n} executions" >&2
			fuzz_one "$pkg" "$bin" "$importpath" "$t" -test.fuzztime="${n}x" -test.timeout=10m
			rc=$?
		fi
		report "$t" "$pkg" "$tmp/log" $rc
	done
done <<<"$all"
exit $failed
