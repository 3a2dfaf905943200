#!/bin/bash
# Fuzz each target for SECONDS with libFuzzer, one after the other (a
# single process each: the machine is shared). New inputs go to
# build/fuzz/work/NAME, never to the committed corpus; crashes, leaks,
# timeouts and out-of-memory inputs to build/fuzz/artifacts/NAME/. Prints
# one line per target and fails if any target found anything.
#
# Usage: tests/fuzz/run.sh SECONDS NAME...   (after make's fuzz build)
# With FUZZ_RUNS=N in the environment a target also stops after N inputs;
# FUZZ_FLAGS adds libFuzzer flags (e.g. -max_len=256).
set -u
secs=$1; shift
runs=${FUZZ_RUNS:+-runs=$FUZZ_RUNS}
cd "$(dirname "$0")/../.."
out=build/fuzz
mkdir -p "$out/logs"
# UBSan findings must stop the run so libFuzzer keeps the input.
export UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1"
export ASAN_OPTIONS="detect_leaks=1"
summary=$out/summary.txt
: >"$summary"
bad=0
for t in "$@"; do
	mkdir -p "$out/work/$t" "$out/artifacts/$t"
	log=$out/logs/$t.log
	start=$(date +%s)
	# shellcheck disable=SC2086
	"$out/bin/$t" $runs ${FUZZ_FLAGS:-} -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 \
		-dict="tests/fuzz/$t.dict" -artifact_prefix="$out/artifacts/$t/" \
		-print_final_stats=1 "$out/work/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	took=$(( $(date +%s) - start ))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -n 1)
	line="$t: ${execs:-?} execs in ${took} s, ${rate:-?}/s, ${cov:-cov: ?}"
	if [ "$rc" -ne 0 ]; then
		line="$line, FAILED (exit $rc): $(ls "$out/artifacts/$t" | head -n 3 | tr '\n' ' ')"
		bad=$((bad + 1))
		grep -m 5 -E 'ERROR|invariant|SUMMARY' "$log"
	fi
	echo "$line" | tee -a "$summary"
done
echo "fuzz: $(( $# - bad )) targets clean, $bad failed (logs in $out/logs)"
[ "$bad" -eq 0 ]
