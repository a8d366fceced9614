#!/usr/bin/env bash
# Gather into bench/results.md (bench/run.sh's) the group-scaling table of
# bench/groups.md (bench/groups.sh's) and the PostgreSQL figures of
# bench/postgres.md (bench/postgres.sh's), each under a section of its own
# with the line that says when it was generated; a section already there is
# replaced. Warns when they were not generated on the day results.md was.
#
# Usage: bench/collect.sh          (make bench-reconcile and make bench-postgres run it)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
results=${RESULTS:-$root/bench/results.md}
day() { grep -o 'on [0-9]\{4\}-[0-9][0-9]-[0-9][0-9]' "$1" | head -1 | cut -c4-; }
[ -f "$results" ] || { echo "bench/collect.sh: no $results (run bench/run.sh first)" >&2; exit 1; }
want=$(day "$results")

# section TITLE FILE: the file under TITLE, its own title dropped, its
# sections one level down.
section() {
	printf '\n## %s\n\n' "$1"
	printf 'From [%s](%s). ' "$(basename "$2")" "$(basename "$2")"
	awk 'NR == 1 && /^# / { next } { sub(/^## /, "### "); print }' "$2" | sed '/./,$!d'
}

body=$(awk '/^## (Group scaling|PostgreSQL)$/ { skip = 1; next } /^## / { skip = 0 } !skip' "$results" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}')
{
	printf '%s\n' "$body"
	for f in groups postgres; do
		src=$root/bench/$f.md
		[ -f "$src" ] || continue
		if [ "$(day "$src")" != "$want" ]; then
			echo "bench/collect.sh: bench/$f.md was generated on $(day "$src"), results.md on $want" >&2
		fi
		case $f in
		groups) section "Group scaling" "$src" ;;
		postgres) section "PostgreSQL" "$src" ;;
		esac
	done
} > "$results.new"
mv "$results.new" "$results"
echo "wrote $results" >&2
