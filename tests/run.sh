#!/bin/bash
# Run the unit test binaries (the fuzz targets' corpus replays among them)
# and the end-to-end suite; print one closing
# line "N passed, N failed".
#   tests/run.sh MODE [--unit-only|--e2e-only|--e2e-modules "M..."] [BIN...]
set -u
mode=$1; shift
what=all
e2e_modules=
case "${1:-}" in
--unit-only|--e2e-only) what=${1#--}; shift ;;
--e2e-modules) e2e_modules=$2; shift 2 ;;
esac
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

# The unit binaries run UNIT_JOBS at a time (default: twice the CPUs, at
# least 4), beside the e2e modules, which runner.py spreads the same way:
# every server binds port 0, and most tests wait on clocks, not a CPU.
jobs=${UNIT_JOBS:-$(( $(nproc) * 2 > 4 ? $(nproc) * 2 : 4 ))}
logs=$(mktemp -d); trap 'rm -rf "$logs"' EXIT
e2e_pid=
if [ "$what" != unit-only ]; then
	export TEST_MODE=$mode
	# Debian's python3 has python3-kubernetes; a pyenv shim may not.
	# shellcheck disable=SC2086 # the module list splits into words
	/usr/bin/python3 tests/e2e/runner.py ${e2e_modules:+--modules $e2e_modules} >"$logs/e2e" 2>&1 &
	e2e_pid=$!
fi
if [ "$what" != e2e-only ]; then
	i=0
	for t in "$@"; do
		i=$((i + 1))
		printf '%s\n' "$i $t"
	done | xargs -P "$jobs" -L 1 sh -c 'timeout 300 "$1" >"'"$logs"'/u$0" 2>&1; echo $? >"'"$logs"'/u$0.rc"'
	i=0
	for t in "$@"; do
		i=$((i + 1))
		echo "== $t"
		if [ "$(cat "$logs/u$i.rc" 2>/dev/null)" != 0 ]; then
			cat "$logs/u$i"
			grep -q ' failed' "$logs/u$i" || failed=$((failed + 1))
		else
			tail -n 1 "$logs/u$i"
		fi
		tally "$logs/u$i"
	done
fi
if [ -n "$e2e_pid" ]; then
	echo "== e2e ($mode)"
	tail -n +1 -f "$logs/e2e" --pid="$e2e_pid"
	wait "$e2e_pid"
	tally "$logs/e2e"
	grep -qE '[0-9]+ passed, [0-9]+ failed' "$logs/e2e" || failed=$((failed + 1))
fi
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
