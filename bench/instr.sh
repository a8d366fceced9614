#!/usr/bin/env bash
# Count what a row costs in instructions, which other work on a shared
# machine does not change (wall and CPU time it does): readsum and
# `tokenfare reconcile --calls FILE -o json` under valgrind's cachegrind,
# user space only, on ROWS generated rows and on one row, the difference
# divided by ROWS (so tokenfare's start-up, the catalog read, is left out
# and given apart). Prints a Markdown table.
#
# Usage: bench/instr.sh [ROWS]   (default 200000; from the repository root, or make bench-instr)
# Environment:
#   BENCH_DIR   where the files and binaries go (default ${TMPDIR:-/tmp}/tokenfare-bench)
#   TOKENFARE   a tokenfare binary to count instead of one built from the tree
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
rows=${1:-200000}
dir=${BENCH_DIR:-${TMPDIR:-/tmp}/tokenfare-bench}
mkdir -p "$dir"

if ! command -v valgrind >/dev/null 2>&1; then
	echo "bench: valgrind not found; install the Debian package valgrind" >&2
	exit 2
fi

# As dense in time as bench/run.sh's 5M rows over 31 days.
days=$(( (31 * rows + 2500000) / 5000000 ))
[ "$days" -ge 1 ] || days=1
file=$dir/spendlogs-instr-$rows.csv
one=$dir/spendlogs-instr-1.csv
if [ ! -s "$file" ]; then
	go run ./cmd/tokenfare-gen -rows "$rows" -seed 1 -start 2026-10-01T00:00:00Z -days "$days" -o "$file"
fi
head -2 "$file" > "$one"
go build -o "$dir/readsum" ./bench/readsum
tf=${TOKENFARE:-$dir/tokenfare-instr}
[ -n "${TOKENFARE:-}" ] || go build -pgo=cmd/tokenfare/release.pgo -o "$tf" ./cmd/tokenfare

count() { # count COMMAND...: instructions executed in user space, whatever COMMAND's exit status
	# (one row may price nothing, which tokenfare reports with exit status 1).
	# --fair-sched=yes: valgrind runs one thread at a time, and with its default
	# lock the Go scheduler's idle threads spin while they wait for it, which
	# counted 1.8 to 4.2 billion instructions for the same run of 200,000 rows;
	# with a fair lock the runs agree within 1%. GODEBUG=cpu.rdtscp=off: Go's
	# runtime reads the time stamp counter with RDTSCP, which valgrind does not
	# know, when a lock is contended; the run then dies of SIGILL, and its count
	# stops there.
	local err
	err=$(mktemp)
	GODEBUG=cpu.rdtscp=off valgrind --tool=cachegrind --cache-sim=no --fair-sched=yes --cachegrind-out-file=/dev/null "$@" >/dev/null 2>"$err" || true
	if grep -q SIGILL "$err"; then
		echo "bench: $* died under valgrind:" >&2
		grep -m1 -A3 SIGILL "$err" >&2
		rm -f "$err"
		exit 1
	fi
	sed -n 's/.*I *refs: *//p' "$err" | tr -d ,
	rm -f "$err"
}

rs=$(count "$dir/readsum" "$file")
rs1=$(count "$dir/readsum" "$one")
tfn=$(count "$tf" reconcile --calls "$file" -o json)
tf1=$(count "$tf" reconcile --calls "$one" -o json)
rs_row=$(( (rs - rs1) / rows ))
tf_row=$(( (tfn - tf1) / rows ))

echo "| program | instructions per row | start-up (one row) | per row, relative to readsum |"
echo "|:---|---:|---:|---:|"
echo "| readsum | $rs_row | $rs1 | 1.00 |"
echo "| tokenfare reconcile -o json | $tf_row | $tf1 | $(awk -v a="$tf_row" -v b="$rs_row" 'BEGIN {printf "%.2f", a / b}') |"
echo
echo "$rows rows over $days day(s) from cmd/tokenfare-gen, $(valgrind --version), $(go env GOVERSION), $(date -u +%Y-%m-%d)."
