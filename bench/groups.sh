#!/usr/bin/env bash
# Benchmark how tokenfare reconcile scales with the number of groups: from
# a few groups (by model) to about a million (by model, key and day on a
# file of thousands of keys), and ten million on request. Each case is a
# generated file (cmd/tokenfare-gen, -keys giving it that many distinct
# keys, users and teams) read by model and by more, in JSON, CSV and table.
# For each: wall, CPU (user + system) and peak RSS, medians of BENCH_RUNS
# runs taken in turns, and per group the CPU and peak memory beyond the
# same file by model in the same format. Writes bench/groups.md.
#
# Usage: bench/groups.sh            (or make bench-groups; make bench-reconcile runs it too)
# Environment:
#   BENCH_DIR         where the files and the binary go (default ${TMPDIR:-/tmp}/tokenfare-bench)
#   BENCH_RUNS        runs per command (default 3)
#   BENCH_RUNS_10M    runs per command of the 10m case (default 1: each takes minutes)
#   BENCH_FORMATS     formats of the many-group runs (default "json csv table")
#   BENCH_CASES       the cases to run, of: 4 800 48k 1m 10m (default "4 800 48k 1m")
#   RESULTS           output file (default bench/groups.md)
# The 10m case streams 40M generated rows into --calls - (about 14 GB of
# CSV, never written to disk), twice per format and run.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

dir=${BENCH_DIR:-${TMPDIR:-/tmp}/tokenfare-bench}
runs=${BENCH_RUNS:-3}
runs10=${BENCH_RUNS_10M:-1}
formats=${BENCH_FORMATS:-json csv table}
want=${BENCH_CASES:-4 800 48k 1m}
results=${RESULTS:-$root/bench/groups.md}
mkdir -p "$dir"
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time not found; install the Debian package time" >&2; exit 2; }
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
go build -pgo=cmd/tokenfare/release.pgo -o "$dir/tokenfare" ./cmd/tokenfare
go build -o "$dir/tokenfare-gen" ./cmd/tokenfare-gen
tf=$dir/tokenfare

# The cases: name|rows|keys (0: the generator's 40)|--by. Each is run
# beside the same input by model, its base.
declare -A spec=(
	[4]="1000000|0|model"
	[800]="1000000|134|model,key"
	[48k]="1000000|400|model,key,day"
	[1m]="4000000|8000|model,key,day"
	[10m]="40000000|90000|model,key,day"
)
genargs() { # genargs ROWS KEYS
	echo "-rows $1 -seed 1 -start 2026-10-01T00:00:00Z -days 31$([ "$2" != 0 ] && echo " -keys $2")"
}
# input ROWS KEYS: the file of those rows and keys, made once; "-" for the
# 10m case, whose rows are streamed.
input() {
	if [ "$1" -ge 20000000 ]; then
		echo -
		return
	fi
	local f=$dir/spendlogs-2026-10-$1-keys-$2.csv
	if [ ! -s "$f" ]; then
		echo "==> generating $1 rows, keys $2, into $f" >&2
		# shellcheck disable=SC2046
		"$dir/tokenfare-gen" $(genargs "$1" "$2") -o "$f.tmp"
		mv "$f.tmp" "$f"
	fi
	echo "$f"
}

# run NAME ROWS KEYS BY FORMAT: one timed run; each line of groups-runs.txt
# is name|wall|cpu|rss_kib, of groups-count.txt name|groups.
run() {
	local name=$1 rows=$2 keys=$3 by=$4 format=$5 file
	file=$(input "$rows" "$keys")
	if [ "$file" = - ]; then
		# shellcheck disable=SC2046
		"$dir/tokenfare-gen" $(genargs "$rows" "$keys") |
			/usr/bin/time -f '%e %U %S %M' -o "$dir/groups-time.txt" \
				"$tf" reconcile --calls - --by "$by" -o "$format" >"$dir/groups-out.$format" 2>/dev/null
	else
		/usr/bin/time -f '%e %U %S %M' -o "$dir/groups-time.txt" \
			"$tf" reconcile --calls "$file" --by "$by" -o "$format" >"$dir/groups-out.$format" 2>/dev/null
	fi
	read -r wall user sys kib <"$dir/groups-time.txt"
	if [ "$format" = json ]; then
		# The number of groups, from the JSON: one "keys" object each.
		echo "$name|$(grep -c '^      "keys": {' "$dir/groups-out.json" || true)" >>"$dir/groups-count.txt"
	fi
	echo "$name|$wall|$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')|$kib" >>"$dir/groups-runs.txt"
}

# Runs in turns: every case once per round, so that other work on the
# machine weighs on them alike. JSON first: it counts the groups.
: >"$dir/groups-runs.txt"
: >"$dir/groups-count.txt"
for round in $(seq "$runs"); do
	for c in $want; do
		[ "$c" = 10m ] && [ "$round" -gt "$runs10" ] && continue
		IFS='|' read -r rows keys by <<<"${spec[$c]}"
		for f in json $(echo "$formats" | tr ' ' '\n' | grep -vx json || true); do
			run "$c base $f" "$rows" "$keys" model "$f"
			[ "$by" = model ] || run "$c $f" "$rows" "$keys" "$by" "$f"
		done
	done
done
# median NAME FIELD (2 wall, 3 CPU, 4 RSS in KiB).
median() {
	awk -F'|' -v n="$1" -v f="$2" '$1 == n { print $f }' "$dir/groups-runs.txt" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# rounds NAME BASE: the CPU of NAME less that of BASE, round by round (each
# round runs BASE, then NAME), least first.
rounds() {
	paste -d' ' <(awk -F'|' -v n="$1" '$1 == n { print $3 }' "$dir/groups-runs.txt") \
		<(awk -F'|' -v n="$2" '$1 == n { print $3 }' "$dir/groups-runs.txt") |
		awk '{ print $1 - $2 }' | sort -g | tr '\n' ' '
}
count() { awk -F'|' -v n="$1" '$1 == n { g = $2 } END { print g }' "$dir/groups-count.txt"; }
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

{
	echo "# Group-scaling benchmark"
	echo
	echo "Generated by \`bench/groups.sh\` (\`make bench-groups\`, also run by \`make bench-reconcile\`) on $(date -u +%Y-%m-%dT%H:%M:%SZ), at $(git rev-parse --short HEAD)."
	echo
	echo "- Inputs: \`go run ./cmd/tokenfare-gen ARGS\`, ARGS in the table; in the page cache (the 10m case's rows"
	echo "  are streamed from the generator into \`--calls -\`, its CPU counted apart)"
	echo "- Machine: $(nproc) cores ($(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)), $(awk '/MemTotal/ {printf "%d GiB", $2/1024/1024}' /proc/meminfo) RAM, $(go version | cut -d' ' -f3)"
	echo "- Load average (1, 5, 15 min) before: $load_before; after: $load_after. The machine is shared: above $(nproc), other work took"
	echo "  the cores too, and wall times are longer than on an idle machine. Read CPU (user + system), which other work"
	echo "  inflates less, and the ratios, not the walls."
	echo "- Medians of $runs runs$(echo " $want " | grep -q ' 10m ' && echo " ($runs10 of the 10m case)"), every case once per round, under \`/usr/bin/time\`. Per group: (CPU or peak RSS of the case"
	echo "  − the same file by model, in the same format) / (its groups − the groups by model): the cost of a group beyond the read;"
	echo "  in brackets the least and most of the same, round by round (each round runs the file by model, then the case)."
	echo
	echo "| case | generator | --by | -o | groups | wall | CPU | peak RSS | CPU per group | peak RSS per group |"
	echo "|:---|:---|:---|:---|---:|---:|---:|---:|---:|---:|"
	for c in $want; do
		IFS='|' read -r rows keys by <<<"${spec[$c]}"
		for f in $formats; do
			name="$c $f" base="$c base $f"
			[ "$by" = model ] && name=$base
			[ "$by" = model ] && [ "$f" != json ] && continue
			g=$(count "$c json") g0=$(count "$c base json")
			[ "$by" = model ] && g=$g0
			cpu=$(median "$name" 3) rss=$(median "$name" 4) wall=$(median "$name" 2)
			cpu0=$(median "$base" 3) rss0=$(median "$base" 4)
			per=$(awk -v c="$cpu" -v c0="$cpu0" -v r="$rss" -v r0="$rss0" -v g="$g" -v g0="$g0" -v rounds="$(rounds "$name" "$base")" 'BEGIN {
				if (g - g0 <= 0) { print "-|-"; exit }
				n = split(rounds, d, " ")
				spread = ""
				if (n > 1) spread = sprintf(" (%.2f–%.2f)", d[1] * 1e6 / (g - g0), d[n] * 1e6 / (g - g0))
				printf "%.2f µs%s|%.0f B", (c - c0) * 1e6 / (g - g0), spread, (r - r0) * 1024 / (g - g0) }')
			echo "| $c | \`$(genargs "$rows" "$keys")\` | $by | $f | $g | $wall s | $cpu s (by model $cpu0 s) | $(awk -v r="$rss" 'BEGIN { printf "%.0f MiB", r / 1024 }') | ${per%|*} | ${per#*|} |"
		done
	done
} >"$results"
echo "==> wrote $results" >&2
