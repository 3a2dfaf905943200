#!/bin/bash
# Run the unit test binaries (the fuzz targets' corpus replays among them)
# and the end-to-end suite; print one closing
# line "N passed, N failed". Usage: tests/run.sh MODE [--unit-only|--e2e-only] [BIN...]
set -u
mode=$1; shift
what=all
case "${1:-}" in --unit-only|--e2e-only) what=${1#--}; shift ;; esac
cd "$(dirname "$0")/.."

# Sanitizer settings for every binary the tests start.
export TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp halt_on_error=1 second_deadlock_stack=1"
export ASAN_OPTIONS="detect_leaks=1 abort_on_error=0"
export UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp"

passed=0 failed=0
tally() { # parse "... N passed, N failed" lines from a log
	local p f
	p=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$1" | awk '{s+=$1} END {print s+0}')
	f=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' "$1" | awk '{s+=$3} END {print s+0}')
	passed=$((passed + p)); failed=$((failed + f))
}

log=$(mktemp); trap 'rm -f "$log"' EXIT
if [ "$what" != e2e-only ]; then
	for t in "$@"; do
		echo "== $t"
		if ! timeout 300 "$t" >"$log" 2>&1; then
			cat "$log"
			grep -q ' failed' "$log" || failed=$((failed + 1))
		else
			tail -n 1 "$log"
		fi
		tally "$log"
	done
fi
if [ "$what" != unit-only ]; then
	echo "== e2e ($mode)"
	export TEST_MODE=$mode
	# Debian's python3 has python3-kubernetes; a pyenv shim may not.
	/usr/bin/python3 tests/e2e/runner.py 2>&1 | tee "$log"
	tally "$log"
	grep -qE '[0-9]+ passed, [0-9]+ failed' "$log" || failed=$((failed + 1))
fi
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
