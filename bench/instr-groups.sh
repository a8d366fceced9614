#!/usr/bin/env bash
# Count what a group costs beyond the read in instructions, which other
# work on a shared machine does not change (its CPU time it does, by a
# tenth and more: docs/scale.md, "What did not move a group's cost"):
# `tokenfare reconcile --calls FILE --by model` and `--by model,key,day`
# under valgrind's cachegrind, user space only, on 1M generated rows of
# 2,000 keys over 31 days (about 244,000 groups by model, key and day,
# four calls a group as in bench/groups.sh's 1m case, whose 4M rows take
# minutes under valgrind), in each format; the difference divided by the
# groups beyond by model's. Prints a Markdown table.
#
# The collector is off (GOGC=off): when it runs, and how much of its work
# lands in the run, moves the count by hundreds of instructions a group.
# Go's runtime reads the time stamp counter with RDTSCP, which valgrind
# does not know; GODEBUG=cpu.rdtscp=off keeps it to RDTSC.
#
# Usage: bench/instr-groups.sh [FORMATS]   (default "csv json table"; from the repository root)
# Environment:
#   BENCH_DIR   where the file and binary go (default ${TMPDIR:-/tmp}/tokenfare-bench)
#   TOKENFARE   a tokenfare binary to count instead of one built from the tree
#   BASELINE    a second binary (an older build), counted beside it
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
formats=${1:-csv json table}
dir=${BENCH_DIR:-${TMPDIR:-/tmp}/tokenfare-bench}
mkdir -p "$dir"

if ! command -v valgrind >/dev/null 2>&1; then
	echo "bench: valgrind not found; install the Debian package valgrind" >&2
	exit 2
fi

echo "bench: about 15 s a run under valgrind, 2 runs a format and binary" >&2
gen="-rows 1000000 -seed 1 -start 2026-10-01T00:00:00Z -days 31 -keys 2000"
file=$dir/spendlogs-instr-groups.csv
if [ ! -s "$file" ]; then
	# shellcheck disable=SC2086
	go run ./cmd/tokenfare-gen $gen -o "$file.tmp"
	mv "$file.tmp" "$file"
fi
tf=${TOKENFARE:-$dir/tokenfare-instr}
[ -n "${TOKENFARE:-}" ] || go build -pgo=cmd/tokenfare/release.pgo -o "$tf" ./cmd/tokenfare

# groups BY: the groups of the file by BY (the CSV's lines past its
# header), from a run outside valgrind.
groups() {
	"$tf" reconcile --calls "$file" --by "$1" -o csv 2>/dev/null | tail -n +2 | wc -l
}

# count BINARY BY FORMAT: the instructions of the run.
count() {
	local err n
	err=$(mktemp)
	GOGC=off GODEBUG=cpu.rdtscp=off valgrind --tool=cachegrind --cache-sim=no --fair-sched=yes \
		--cachegrind-out-file=/dev/null "$1" reconcile --calls "$file" --by "$2" -o "$3" >/dev/null 2>"$err" || true
	n=$(sed -n 's/.*I *refs: *//p' "$err" | tr -d ,)
	if [ -z "$n" ] || grep -q SIGILL "$err"; then
		echo "bench: $1 --by $2 -o $3 did not finish under valgrind:" >&2
		tail -5 "$err" >&2
		rm -f "$err"
		exit 1
	fi
	rm -f "$err"
	echo "$n"
}

extra=$(( $(groups model,key,day) - $(groups model) ))
echo "| binary | -o | instructions by model | by model, key and day | a group beyond by model ($extra groups) |"
echo "|:---|:---|---:|---:|---:|"
for bin in "$tf" ${BASELINE:+"$BASELINE"}; do
	for f in $formats; do
		base=$(count "$bin" model "$f")
		many=$(count "$bin" model,key,day "$f")
		echo "| $(basename "$bin") | $f | $base | $many | $(( (many - base) / extra )) |"
	done
done
echo
echo "\`tokenfare-gen $gen\`, $(valgrind --version), $(go env GOVERSION), $(date -u +%Y-%m-%d)."
