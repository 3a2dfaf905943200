#!/bin/bash
# bench/run.sh: the performance suite (B1-B20), run by `make bench`.
#
# Builds what it needs (the proxy, the fake apiserver, bin/loadgen and the
# two reference programs bench/static_server.c and bench/fanout_ceiling.c),
# then runs bench/bench.py, which measures every figure next to its
# reference in the same run, prints the table and writes bench/results.json.
# About 2 minutes on 2 cores; loopback only.
#
#   bench/run.sh                 everything
#   bench/run.sh B1 B3           only some benchmarks
#   bench/run.sh B14             10,000 watchers on one proxy: memory per
#                                idle watcher, RSS after, write -> last
#                                delivery at 10 writes/s; 5 rounds, about
#                                6 minutes
#   bench/run.sh P1              a 10k LIST in protobuf against JSON, and
#                                the memory of kept encodings (1-2 min)
#   bench/run.sh B16             the ceiling program's send modes (copy,
#                                MSG_ZEROCOPY, splice, tee), about 1 minute
#   bench/run.sh B15             a million pods (make bench-large, never in
#                                the default run): about 3 minutes and 13 GB;
#                                it refuses to start without the memory.
#                                B15_PODS=N for another count
#   BENCH_OUT=FILE bench/run.sh  write the JSON elsewhere
#   B13_PROXY_ARGS="--watch-inline-max 0" bench/run.sh B13
#                                the tree's proxies with more flags
#
# bench/sizing.py, apart: memory per 10,000 objects of each kind, the
# chart's sizing table.
set -euo pipefail
cd "$(dirname "$0")/.."

CC=${CC:-cc}
CFLAGS_B="-std=c11 -D_GNU_SOURCE -pthread -O2 -g -Wall -Wextra -Wno-unused-parameter"

# A sanitizer build would measure the sanitizer: insist on release binaries.
make --no-print-directory bin/informer-proxy bin/fake-apiserver

# Until the top-level Makefile has rules for these, build them here.
if grep -q '^bin/loadgen:' Makefile; then
	make --no-print-directory bin/loadgen
elif [ ! -x bin/loadgen ] || [ -n "$(find tests/load -newer bin/loadgen -name '*.[ch]')" ]; then
	echo "  CC bin/loadgen"
	$CC $CFLAGS_B -I. tests/load/*.c -o bin/loadgen -lm
fi
mkdir -p build/bench
for prog in static_server fanout_ceiling; do
	if grep -q "^build/bench/$prog:" Makefile; then
		make --no-print-directory "build/bench/$prog"
	elif [ ! -x "build/bench/$prog" ] || [ "bench/$prog.c" -nt "build/bench/$prog" ]; then
		echo "  CC build/bench/$prog"
		libs=""
		[ "$prog" = static_server ] && libs=$(pkg-config --cflags --libs libmicrohttpd)
		# shellcheck disable=SC2086
		$CC $CFLAGS_B "bench/$prog.c" -o "build/bench/$prog" $libs
	fi
done

command -v wrk >/dev/null || { echo "bench: wrk is missing (scripts/deps.sh bench)" >&2; exit 1; }

# 1000 watchers need 1000+ descriptors in the proxy and in loadgen, B14's
# 10,000 more than 10,000 each (the proxy and loadgen raise their own soft
# limit to the hard one too; B14 is marked missed below 10,100).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

exec /usr/bin/python3 bench/bench.py "$@"
