#!/usr/bin/env bash
# Benchmark tokenfare serve on generated spend logs in a real PostgreSQL:
# the initial sync, then a refresh after one more day of rows against a
# full 28-day blend of the same rows (taking turns), then serve's RSS over
# a long run of batches. The target: a refresh at most 1/20 of the blend,
# RSS flat. Writes bench/serve.md.
#
# The server is TOKENFARE_TEST_DATABASE_URL's, else a private one started
# from Debian's postgresql package (internal/pgtest); the benchmark gets a
# database of its own, dropped at the end. A private server (unset
# TOKENFARE_TEST_DATABASE_URL) lets the server's CPU be counted alone.
#
# Usage: bench/serve.sh            (or make bench-serve)
# Environment:
#   BENCH_ROWS     rows over the 28 days (default 5000000)
#   BENCH_RUNS     refreshes and blends each, after a warm-up (default 5)
#   BENCH_BATCHES  batches in the RSS run (default 20)
#   RESULTS        output file (default bench/serve.md)
#   TOKENFARE_BENCH_SERVE_HOLD=FILE  after the turns, write the commands' variables to FILE
#                  and keep the database until FILE is removed (to time them by hand)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

TOKENFARE_BENCH_SERVE_ROWS=${BENCH_ROWS:-5000000} \
TOKENFARE_BENCH_SERVE_RUNS=${BENCH_RUNS:-5} \
TOKENFARE_BENCH_SERVE_BATCHES=${BENCH_BATCHES:-20} \
TOKENFARE_BENCH_SERVE_RESULTS=${RESULTS:-$root/bench/serve.md} \
	go test -count=1 -v -run '^TestBenchServe$' -timeout 3h ./bench/serve
