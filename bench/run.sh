#!/usr/bin/env bash
# Benchmark `tokenfare reconcile` against two references on a 5M-row spend
# log and write bench/results.md:
#
#   readsum             reads the CSV and sums three integer columns (the floor)
#   tokenfare           tokenfare reconcile --calls FILE -o json (--by model)
#   tokenfare-key-day   the same --by model,key,day
#   duckdb              the same pricing as one SQL query in DuckDB (bench/duckdb)
#   tokenfare-dump, duckdb-dump, tokenfare-json, duckdb-json
#                       the same calls as LiteLLM's table keeps them (the dump, counts in
#                       the metadata JSON) and as /spend/logs answers them (bench/dump2json.py)
#   zcat, tokenfare-gz  the file gzipped: decompression alone, and reconciled
#
# and the peak RSS of tokenfare on 5M rows and on BENCH_BIG_ROWS rows (the
# generator's rows over four months, streamed through stdin, not stored).
#
# Usage: bench/run.sh            (from the repository root, or via make bench-reconcile)
# Environment:
#   BENCH_DIR   where the big file and binaries go (default ${TMPDIR:-/tmp}/tokenfare-bench)
#   BENCH_ROWS  rows in the generated file (default 5000000)
#   BENCH_RUNS  hyperfine runs per command (default 5)
#   BENCH_BIG_ROWS rows of the peak-RSS run on a bigger input (default 20000000; 0 skips it)
#   RESULTS     output file (default bench/results.md)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

dir=${BENCH_DIR:-${TMPDIR:-/tmp}/tokenfare-bench}
rows=${BENCH_ROWS:-5000000}
runs=${BENCH_RUNS:-5}
results=${RESULTS:-$root/bench/results.md}
big_rows=${BENCH_BIG_ROWS:-20000000}
big=$dir/spendlogs-2026-10-$rows.csv
mkdir -p "$dir"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

log() { printf '==> %s\n' "$*" >&2; }

need() { # need COMMAND DEBIAN_PACKAGE
	command -v "$1" >/dev/null 2>&1 && return
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		log "installing $2"
		apt-get install -y -qq "$2" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$2" >/dev/null; }
	else
		echo "bench: $1 not found; install the Debian package $2" >&2
		exit 2
	fi
}

need hyperfine hyperfine
[ -x /usr/bin/time ] || need /usr/bin/time time
need node nodejs
need gzip gzip

if [ ! -s "$big" ]; then
	log "generating $rows rows into $big"
	go run ./cmd/tokenfare-gen -rows "$rows" -seed 1 -start 2026-10-01T00:00:00Z -days 31 -o "$big.tmp"
	mv "$big.tmp" "$big"
fi

dump=$dir/spendlogs-dump-2026-10-$rows.csv
json=$dir/spendlogs-2026-10-$rows.json
if [ ! -s "$dump" ]; then
	log "generating the same $rows rows as the table's dump into $dump"
	go run ./cmd/tokenfare-gen -rows "$rows" -seed 1 -start 2026-10-01T00:00:00Z -days 31 -format dump -o "$dump.tmp"
	mv "$dump.tmp" "$dump"
fi
if [ ! -s "$json" ]; then
	log "writing them as /spend/logs answers them into $json"
	python3 bench/dump2json.py <"$dump" >"$json.tmp"
	mv "$json.tmp" "$json"
fi

if [ ! -s "$big.gz" ]; then
	log "compressing it into $big.gz (gzip -6)"
	gzip -6 -c "$big" >"$big.gz.tmp"
	mv "$big.gz.tmp" "$big.gz"
fi

log "building readsum"
go build -o "$dir/readsum" ./bench/readsum

if [ ! -d bench/duckdb/node_modules/@duckdb/node-api ]; then
	log "installing DuckDB (npm ci)"
	(cd bench/duckdb && npm ci --no-audit --no-fund --silent)
fi

# tokenfare joins the race only if it builds and reconciles the file.
tokenfare_status="not run"
if log "building tokenfare" && go build -pgo=cmd/tokenfare/release.pgo -o "$dir/tokenfare" ./cmd/tokenfare 2>"$dir/tokenfare-build.log"; then
	if "$dir/tokenfare" reconcile --calls "$big" -o json >"$dir/tokenfare.json" 2>"$dir/tokenfare.err"; then
		tokenfare_status="ok"
	else
		tokenfare_status="failed (exit $?): $(head -c 300 "$dir/tokenfare.err" | tr '\n' ' ')"
	fi
else
	tokenfare_status="does not build: $(head -c 300 "$dir/tokenfare-build.log" | tr '\n' ' ')"
fi
log "tokenfare: $tokenfare_status"

names=(readsum)
cmds=("$dir/readsum $big")
if [ "$tokenfare_status" = ok ]; then
	names+=(tokenfare tokenfare-key-day)
	cmds+=("$dir/tokenfare reconcile --calls $big -o json" "$dir/tokenfare reconcile --calls $big -o json --by model,key,day")
fi
names+=(duckdb)
cmds+=("node $root/bench/duckdb/price.mjs $big")
if [ "$tokenfare_status" = ok ]; then
	names+=(tokenfare-dump tokenfare-json)
	cmds+=("$dir/tokenfare reconcile --calls $dump -o json" "$dir/tokenfare reconcile --calls $json -o json")
fi
names+=(duckdb-dump duckdb-json)
cmds+=("node $root/bench/duckdb/price.mjs $dump" "node $root/bench/duckdb/price.mjs $json")
gz_names=(zcat)
gz_cmds=("zcat $big.gz")
if [ "$tokenfare_status" = ok ]; then
	gz_names+=(tokenfare-gz)
	gz_cmds+=("$dir/tokenfare reconcile --calls $big.gz -o json")
fi

# shown TEXT: TEXT with this machine's folders written as $BENCH_DIR and
# the repository root left out, for the tracked results file.
shown() {
	local t=${1//$dir/\$BENCH_DIR}
	echo "${t//$root\//}"
}

# timed NAME NAMES CMDS: one hyperfine run over the commands, exported as
# $dir/NAME.md and $dir/NAME.json.
timed() {
	local -n tn=$2 tc=$3
	local args=(--warmup 1 --runs "$runs" --style basic --export-markdown "$dir/$1.md" --export-json "$dir/$1.json")
	for i in "${!tn[@]}"; do
		args+=(--command-name "${tn[$i]}" "${tc[$i]}")
	done
	hyperfine "${args[@]}" >&2
}
log "timing with hyperfine ($runs runs each)"
timed hyperfine names cmds
timed hyperfine-gz gz_names gz_cmds

# rounds NAME NAMES CMDS: $runs rounds, each running every command once in
# turn, appending "name wall cpu" lines (seconds) to $dir/NAME.txt. Other
# work on a shared machine then slows every command of a round alike,
# where hyperfine's runs of one command come in one stretch of minutes.
rounds() {
	local -n rn=$2 rc=$3
	: >"$dir/$1.txt"
	for ((r = 0; r < runs; r++)); do
		for i in "${!rn[@]}"; do
			# shellcheck disable=SC2086 # the command line is meant to be split
			/usr/bin/time -f "${rn[$i]} %e %U %S" -o "$dir/rounds-time.txt" ${rc[$i]} >/dev/null
			awk '{ printf "%s %s %.3f\n", $1, $2, $3 + $4 }' "$dir/rounds-time.txt" >>"$dir/$1.txt"
		done
	done
}
# The ratios need the floor, tokenfare both ways, zcat and tokenfare on .gz.
r_names=() r_cmds=()
for i in "${!names[@]}"; do
	case ${names[$i]} in duckdb*) continue ;; esac
	r_names+=("${names[$i]}") r_cmds+=("${cmds[$i]}")
done
log "timing in alternating rounds ($runs rounds)"
rounds rounds r_names r_cmds
rounds rounds-gz gz_names gz_cmds

# cpu NAME FILE: mean user + system seconds of a command in a hyperfine export.
cpu() {
	node -e 'const r = require(process.argv[1]).results.find(r => r.command === process.argv[2]);
		console.log(r ? (r.user + r.system).toFixed(3) : "")' "$2" "$1"
}
# mean NAME FILE: its mean wall time in seconds.
mean() {
	node -e 'const r = require(process.argv[1]).results.find(r => r.command === process.argv[2]);
		console.log(r ? r.mean.toFixed(3) : "")' "$2" "$1"
}
# median NAME FILE FIELD: the median of a command's wall (2) or CPU (3)
# seconds in a rounds file.
median() {
	awk -v n="$1" -v f="$3" '$1 == n { print $f }' "$2" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2f", a / b }'; }

# peak_rss COMMAND...: the most memory a command held, in MiB.
peak_rss() {
	/usr/bin/time -v "$@" >/dev/null 2>"$dir/time.txt"
	awk -F': ' '/Maximum resident set size/ {printf "%d", $2 / 1024}' "$dir/time.txt"
}
log "measuring peak RSS"
rss_rows=""
for i in "${!names[@]}"; do
	# shellcheck disable=SC2086 # the command line is meant to be split
	rss_rows+="| ${names[$i]} | $rows | $(peak_rss ${cmds[$i]}) MiB |"$'\n'
done
# stdin_rss ROWS DAYS SEED: peak RSS of tokenfare reading the generator's
# output through stdin, in MiB.
stdin_rss() {
	"$dir/gen" -rows "$1" -seed "$3" -start 2026-10-01T00:00:00Z -days "$2" -o - |
		/usr/bin/time -v "$dir/tokenfare" reconcile --calls - -o json >"$dir/tokenfare-stdin-$1.json" 2>"$dir/time.txt"
	awk -F': ' '/Maximum resident set size/ {printf "%d", $2 / 1024}' "$dir/time.txt"
}
if [ "$tokenfare_status" = ok ] && [ "$big_rows" -gt 0 ]; then
	log "peak RSS of tokenfare on $rows and $big_rows generated rows through stdin"
	go build -o "$dir/gen" ./cmd/tokenfare-gen
	rss_rows+="| tokenfare, stdin, 31 days | $rows | $(stdin_rss "$rows" 31 1) MiB |"$'\n'
	rss_rows+="| tokenfare, stdin, 124 days | $big_rows | $(stdin_rss "$big_rows" 124 2) MiB |"$'\n'
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

size=$(stat -L -c %s "$big")
dump_size=$(stat -L -c %s "$dump")
json_size=$(stat -L -c %s "$json")
gz_size=$(stat -L -c %s "$big.gz")
h=$dir/hyperfine.json
hg=$dir/hyperfine-gz.json
{
	echo "# Reconcile benchmark"
	echo
	echo "Generated by \`bench/run.sh\` (\`make bench-reconcile\`) on $(date -u +%Y-%m-%dT%H:%M:%SZ)."
	echo
	echo "- Input: $rows rows, $((size / 1024 / 1024)) MiB (\`go run ./cmd/tokenfare-gen -rows $rows -seed 1 -start 2026-10-01T00:00:00Z -days 31\`), in the page cache; gzipped (\`gzip -6\`): $((gz_size / 1024 / 1024)) MiB"
	echo "- The same calls as the table's dump: $((dump_size / 1024 / 1024)) MiB (\`-format dump\`); as /spend/logs answers them: $((json_size / 1024 / 1024)) MiB (\`bench/dump2json.py\`)"
	echo "- Machine: $(nproc) cores ($(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)), $(awk '/MemTotal/ {printf "%d GiB", $2/1024/1024}' /proc/meminfo) RAM"
	echo "- Load average (1, 5, 15 min) before: $load_before; after: $load_after. Above $(nproc), other work shared the cores and every time below is longer than on an idle machine."
	echo "- Versions: $(go version | cut -d' ' -f3), node $(node --version), @duckdb/node-api $(node -p "require('$root/bench/duckdb/node_modules/@duckdb/node-api/package.json').version"), $(hyperfine --version), $(gzip --version | head -1)"
	echo "- tokenfare: $tokenfare_status"
	echo
	echo "## Commands"
	echo
	echo "Timed with \`hyperfine --warmup 1 --runs $runs\`, then in $runs alternating rounds under \`/usr/bin/time\` (DuckDB"
	echo "left out); \`\$BENCH_DIR\` holds the file and the built binaries."
	echo
	echo "| name | command |"
	echo "|:---|:---|"
	for i in "${!names[@]}"; do echo "| $(shown "${names[$i]}") | \`$(shown "${cmds[$i]}")\` |"; done
	for i in "${!gz_names[@]}"; do echo "| $(shown "${gz_names[$i]}") | \`$(shown "${gz_cmds[$i]}")\` |"; done
	echo
	echo "readsum is the floor: one goroutine reading the file and summing three integer columns. tokenfare"
	echo "parses every column on all cores and prices; DuckDB uses every core."
	echo
	echo "## Wall time"
	echo
	cat "$dir/hyperfine.md"
	echo
	cat "$dir/hyperfine-gz.md"
	echo
	echo "## Ratios"
	echo
	echo "Medians of $runs alternating rounds (each round runs every command once in turn, so that"
	echo "other work on the machine weighs on the commands compared alike), then hyperfine's means."
	echo
	echo "| measure | rounds (median) | hyperfine (mean) |"
	echo "|:---|---:|---:|"
	rr=$dir/rounds.txt rg=$dir/rounds-gz.txt
	echo "| tokenfare / readsum, wall | $(ratio "$(median tokenfare "$rr" 2)" "$(median readsum "$rr" 2)") | $(ratio "$(mean tokenfare "$h")" "$(mean readsum "$h")") |"
	echo "| tokenfare --by model,key,day / --by model, wall | $(ratio "$(median tokenfare-key-day "$rr" 2)" "$(median tokenfare "$rr" 2)") | $(ratio "$(mean tokenfare-key-day "$h")" "$(mean tokenfare "$h")") |"
	echo "| tokenfare --by model,key,day / --by model, CPU | $(ratio "$(median tokenfare-key-day "$rr" 3)" "$(median tokenfare "$rr" 3)") | $(ratio "$(cpu tokenfare-key-day "$h")" "$(cpu tokenfare "$h")") |"
	echo "| tokenfare on .gz / zcat, wall | $(ratio "$(median tokenfare-gz "$rg" 2)" "$(median zcat "$rg" 2)") | $(ratio "$(mean tokenfare-gz "$hg")" "$(mean zcat "$hg")") |"
	# perbyte NAME SIZE: a command's median CPU a byte, over tokenfare's on the flat export.
	perbyte() { awk -v a="$(median "$1" "$rr" 3)" -v as="$2" -v b="$(median tokenfare "$rr" 3)" -v bs="$size" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2f", (a / as) / (b / bs) }'; }
	echo "| tokenfare on the dump / on the flat export, CPU a byte | $(perbyte tokenfare-dump "$dump_size") | - |"
	echo "| tokenfare on /spend/logs JSON / on the flat export, CPU a byte | $(perbyte tokenfare-json "$json_size") | - |"
	echo "| tokenfare / DuckDB on the flat export, wall | - | $(ratio "$(mean tokenfare "$h")" "$(mean duckdb "$h")") |"
	echo "| tokenfare / DuckDB on the dump, wall | - | $(ratio "$(mean tokenfare-dump "$h")" "$(mean duckdb-dump "$h")") |"
	echo "| tokenfare / DuckDB on the dump, CPU | - | $(ratio "$(cpu tokenfare-dump "$h")" "$(cpu duckdb-dump "$h")") |"
	echo "| tokenfare / DuckDB on /spend/logs JSON, wall | - | $(ratio "$(mean tokenfare-json "$h")" "$(mean duckdb-json "$h")") |"
	echo "| tokenfare / DuckDB on /spend/logs JSON, CPU | - | $(ratio "$(cpu tokenfare-json "$h")" "$(cpu duckdb-json "$h")") |"
	for n in readsum tokenfare tokenfare-key-day tokenfare-dump tokenfare-json; do
		c=$(cpu "$n" "$h")
		m=$(median "$n" "$rr" 3)
		[ -n "$c" ] && echo "| $n CPU (user + system) per row | $(awk -v c="$m" -v r="$rows" 'BEGIN { printf "%.0f ns", c * 1e9 / r }') | $(awk -v c="$c" -v r="$rows" 'BEGIN { printf "%.0f ns", c * 1e9 / r }') |"
	done
	echo
	echo "## Peak RSS (/usr/bin/time -v)"
	echo
	echo "| command | rows | max RSS |"
	echo "|:---|---:|---:|"
	printf '%s' "$rss_rows"
	echo
	echo "## Outputs"
	echo
	echo '```'
	echo "readsum: $("$dir/readsum" "$big")"
	echo "duckdb total: $(node "$root/bench/duckdb/price.mjs" "$big" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.stringify(JSON.parse(s).total)))')"
	echo "duckdb total on the dump: $(node "$root/bench/duckdb/price.mjs" "$dump" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.stringify(JSON.parse(s).total)))')"
	echo "duckdb total on /spend/logs JSON: $(node "$root/bench/duckdb/price.mjs" "$json" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.stringify(JSON.parse(s).total)))')"
	echo '```'
} >"$results"
log "wrote $results"
