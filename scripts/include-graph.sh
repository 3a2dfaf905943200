#!/usr/bin/env bash
# include-graph: print the import circles between the modules of a layer
# (proxy/ by default, its wings included) and exit 1 if there is any.
#
# A module is NAME.c with NAME.h, named by its path inside the layer
# (front/conns, table/table_crd). It imports another when one of its
# files includes the other's header. NAME_int.h, a module's header for
# its own files and its tests, belongs to module NAME.
#
# A .c file counts as the file it is: NAME.c is module NAME when NAME.h
# or NAME_int.h exists; a file of a module split in several (table_cols_
# cell.c beside table_cols_int.h) belongs to the module whose _int.h its
# name extends. Any other .c file but main.c is refused: a file with no
# header of its own has its entry points declared in another module's,
# which hides its imports from this graph.
#
# A sealed wing (proxy/table/) is entered through its one public header
# (table/table.h); including any other of its headers from outside fails.
#
#   scripts/include-graph.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-proxy}
sealed="table"
bad=""

# module FILE: the module a file of $dir belongs to, or "" if none.
module() {
	local rel=${1#"$dir"/} base stem
	stem=${rel%.*}
	case $1 in
	*.h) echo "${stem%_int}"; return ;;
	esac
	if [ -f "$dir/$stem.h" ] || [ -f "$dir/${stem}_int.h" ]; then
		echo "$stem"; return
	fi
	[ "$(basename "$stem")" = main ] && { echo "$stem"; return; }
	base=$stem
	while [[ $base == *_* ]]; do
		base=${base%_*}
		[ -f "$dir/${base}_int.h" ] && { echo "$base"; return; }
	done
	echo ""
}

files=$(find "$dir" -name '*.[ch]' | sort)
edges=$(for f in $files; do
	from=$(module "$f")
	if [ -z "$from" ]; then
		echo "NOHEADER $f"
		continue
	fi
	sed -n "s|^#include \"$dir/\([A-Za-z0-9_/]*\)\.h\".*|\1|p" "$f" |
	while read -r to; do
		for w in $sealed; do
			case $to in
			"$w/$w" | "$w"/*_int) ;;
			"$w"/*) [[ ${f#"$dir"/} == "$w"/* ]] || echo "SEALED $f $to" ;;
			esac
		done
		to=${to%_int}
		[ "$to" = "$from" ] || echo "$from $to"
	done
done | sort -u)
bad=$(printf '%s\n' "$edges" | sed -n 's/^NOHEADER \(.*\)/\1 has no header of its own; its entry points hide in another module'"'"'s header/p')
bad+=$(printf '%s\n' "$edges" | sed -n 's/^SEALED \([^ ]*\) \(.*\)/\n\1 includes \2.h; the wing is entered through its public header only/p')
edges=$(printf '%s\n' "$edges" | grep -v '^NOHEADER \|^SEALED ' || true)
# tsort names each circle it has to break on stderr.
loops=$(printf '%s\n' "$edges" | tsort 2>&1 >/dev/null | sed -n 's/^tsort: //p')
if [ -n "$loops" ] || [ -n "${bad//[$'\n']/}" ]; then
	[ -z "$loops" ] || { echo "import circles in $dir/:"; printf '%s\n' "$loops"; }
	[ -z "${bad//[$'\n']/}" ] || printf '%s\n' "$bad" | sed '/^$/d'
	exit 1
fi
echo "$dir/: $(printf '%s\n' "$edges" | wc -l) imports, no circle"
