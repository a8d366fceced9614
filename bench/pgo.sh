#!/usr/bin/env bash
# Make cmd/tokenfare/release.pgo, the CPU profile release builds optimise
# tokenfare with (profile-guided optimisation, `go build -pgo=FILE`:
# .goreleaser.yaml, make build and the benchmarks' builds pass it). It is
# not named default.pgo, which `go build`, `go run`, `go install` and the
# tests would take on their own: a first build with a profile compiles
# the standard library again, minutes on a small machine, for a few per
# cent of speed that a test or a first try does not need. The profile is
# the sum of the workloads the project's benchmarks time, so that what is
# hot in them is what the compiler inlines and lays out first:
#   reconcile of the flat export (1M rows), of the table dump (1M rows, the
#   metadata JSON), by model, key and day (1M rows of 8,000 keys, about
#   240,000 groups, spilled), chargeback and the 28-day blend of the flat
#   export; and, when TOKENFARE_PGO_DATABASE_URL names a database holding
#   LiteLLM's table of September 2026 (bench/postgres.sh fills one),
#   reconcile --db in rows.
# A profile from an older tree still serves (the compiler matches functions
# by name and line offsets); regenerate it after changes to the hot paths.
# Takes about three minutes, most of it making the inputs the first time.
#
# Usage: bench/pgo.sh   (or make pgo), from the repository root
# Environment:
#   BENCH_DIR                   where the inputs and profiles go (default ${TMPDIR:-/tmp}/tokenfare-bench)
#   TOKENFARE_PGO_DATABASE_URL  a database with "LiteLLM_SpendLogs" to profile row mode on (optional)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dir=${BENCH_DIR:-${TMPDIR:-/tmp}/tokenfare-bench}
mkdir -p "$dir/pgo"
# The profiled binary is built without a profile, so that the profile
# says what the plain build spends its time on.
go build -pgo=off -o "$dir/pgo/tokenfare" ./cmd/tokenfare
go build -o "$dir/pgo/tokenfare-gen" ./cmd/tokenfare-gen
tf=$dir/pgo/tokenfare

# make FILE ARGS...: the generator's rows into FILE, once.
make_input() {
	local f=$1
	shift
	if [ ! -s "$f" ]; then
		echo "==> generating $f" >&2
		"$dir/pgo/tokenfare-gen" "$@" -o "$f.tmp"
		mv "$f.tmp" "$f"
	fi
}
start="-seed 1 -start 2026-10-01T00:00:00Z -days 31"
flat=$dir/pgo/flat-1m.csv dump=$dir/pgo/dump-1m.csv keys=$dir/pgo/keys-1m.csv
# shellcheck disable=SC2086
make_input "$flat" -rows 1000000 $start
# shellcheck disable=SC2086
make_input "$dump" -rows 1000000 $start -format dump
# shellcheck disable=SC2086
make_input "$keys" -rows 1000000 $start -keys 8000

profiles=()
# profile NAME ARGS...: one run of tokenfare ARGS with its CPU profile.
profile() {
	local name=$1
	shift
	echo "==> $name" >&2
	# A failed run's profile would be of its failure: stop, with its stderr.
	if ! "$tf" "$@" --cpuprofile "$dir/pgo/$name.prof" >/dev/null 2>"$dir/pgo/$name.err"; then
		echo "bench: $name failed:" >&2
		cat "$dir/pgo/$name.err" >&2
		exit 1
	fi
	profiles+=("$dir/pgo/$name.prof")
}
profile flat reconcile --calls "$flat" -o json
profile dump reconcile --calls "$dump" -o json
profile groups reconcile --calls "$keys" --by model,key,day -o json --group-budget 60000
profile chargeback chargeback --calls "$flat" --month 2026-10 -o json
profile blend blend --calls "$flat" --as-of 2026-11-01 -o json
if [ -n "${TOKENFARE_PGO_DATABASE_URL:-}" ]; then
	profile rows reconcile --db "$TOKENFARE_PGO_DATABASE_URL" --rows --month 2026-09 -o json
fi
go tool pprof -proto "${profiles[@]}" >cmd/tokenfare/release.pgo
echo "==> cmd/tokenfare/release.pgo: $(wc -c <cmd/tokenfare/release.pgo) bytes from ${#profiles[@]} profiles" >&2
