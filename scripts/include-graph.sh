#!/usr/bin/env bash
# include-graph: print the import circles between the modules of a
# directory (proxy/ by default) and exit 1 if there is any.
#
# A module is NAME.c with NAME.h; it imports another when either file
# includes the other's header. server.c is the one dispatch: it includes
# every handler's header, and no handler may include server.h back, so
# any circle at all is a failure. NAME_int.h, a module's header for its
# own files and its tests, belongs to module NAME.
#
#   scripts/include-graph.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-proxy}
edges=$(for f in "$dir"/*.[ch]; do
	from=$(basename "${f%.*}")
	from=${from%_int}
	sed -n "s|^#include \"$dir/\([A-Za-z0-9_]*\)\.h\".*|\1|p" "$f" |
	while read -r to; do
		to=${to%_int}
		[ "$to" = "$from" ] || echo "$from $to"
	done
done | sort -u)
# tsort names each circle it has to break on stderr.
loops=$(printf '%s\n' "$edges" | tsort 2>&1 >/dev/null | sed -n 's/^tsort: //p')
if [ -n "$loops" ]; then
	echo "import circles in $dir/:"
	printf '%s\n' "$loops"
	exit 1
fi
echo "$dir/: $(printf '%s\n' "$edges" | wc -l) imports, no circle"
