#!/usr/bin/env bash
# samebytes.sh OLD NEW: run the same commands with two tokenfare binaries on the bundled
# sample and say where their stdout, stderr or exit code differ. The workbook is compared
# cell by cell (python3 with openpyxl), the FOCUS file byte for byte, serve's /metrics
# without the Go runtime's and the process's own series, and the state file's answers.
#
# The --group-budget cases make the engine spill its groups to disk (a hidden flag).
# A refactoring that changes no behaviour must print "same" for every case. Run it from
# the repository root:
#   go build -o /tmp/old ./cmd/tokenfare   # on the commit before
#   go build -o /tmp/new ./cmd/tokenfare   # on the commit after
#   bench/samebytes.sh /tmp/old /tmp/new
# IGNORE_METRICS=REGEX leaves series the new binary adds on purpose out of the comparison,
# e.g. IGNORE_METRICS=tokenfare_month_saving.
set -u
old=$(realpath "$1") new=$(realpath "$2")
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
S=testdata/sample/spendlogs-2026-10.csv
D=testdata/sample/spendlogs-dump-2026-10.csv
bad=$work/bad.csv
head -5 "$S" >"$bad"
printf 'not,a,valid,row\n' >>"$bad"
# The dump's calls as /spend/logs answers them, and that array with an
# element that is not a call and a malformed one (the decoder reads the rest).
J=$work/spendlogs.json
python3 bench/dump2json.py <"$D" >"$J"
badj=$work/bad.json
{ head -c 20000 "$J" | sed '$d'; printf '1,\n{"request_id": tru}\n]\n'; } >"$badj"

cases=(
	"reconcile --calls $S"
	"reconcile --calls $S -o json --by model,key,day"
	"reconcile --calls $D -o csv --by team"
	"reconcile --calls $S --calls $D --month 2026-10 -o json"
	"reconcile --calls $J -o json --by model,key,day"
	"chargeback --calls $J --by team -o csv"
	"price --calls $J -o csv"
	"reconcile --calls $badj -o json"
	"reconcile --calls $bad"
	"reconcile --calls $bad --strict"
	"reconcile --calls missing.csv"
	"reconcile --calls $S -o json --by model,key,day --group-budget 64"
	"chargeback --calls $S"
	"chargeback --calls $S --by key,model,day -o csv --group-budget 64"
	"chargeback --calls $S -o json --by team"
	"blend --calls $S --as-of 2026-11-01T00:00:00Z"
	"blend --calls $S --as-of 2026-11-01T00:00:00Z -o yaml"
	"blend --calls $S --as-of 2026-11-01T00:00:00Z --write gateway/litellm/testdata/blend/before.yaml --dry-run"
	"blend --calls $S --as-of 2026-11-01T00:00:00Z --write gateway/litellm/testdata/blend/before.yaml --check"
	"blend --calls $S --month 2026-10 --state @STATE@"
	"price --calls $S -o csv"
	"failures --calls $S"
	"check --config gateway/litellm/testdata/blend/before.yaml"
	"tariffs validate"
	"tariffs show deepseek-flash --at 2026-10-16T03:00:00Z"
	"tariffs show claude-sonnet-5 --at 2026-10-15"
	"tariffs next"
	"reconcile --calls $S --state @STATE@ -o json"
	"chargeback --calls $S --state @STATE@"
	"report --calls $S --month 2026-10 --xlsx @OUT@/book.xlsx --focus @OUT@/focus.csv"
	"report --calls $S --month 2026-10 --state @STATE@ --xlsx @OUT@/book.xlsx --focus @OUT@/focus.csv"
	"report --calls $S --month 2026-10 --group-budget 64 --xlsx @OUT@/book.xlsx --focus @OUT@/focus.csv"
)

# run BIN SIDE I ARGS: the case's stdout, stderr and exit code into $work/SIDE/I.*.
run() {
	local bin=$1 side=$2 i=$3 args=$4 out=$work/$2/$3
	mkdir -p "$out"
	args=${args//@STATE@/$out/state.db}
	args=${args//@OUT@/$out}
	# shellcheck disable=SC2086
	(cd "$root" && TZ=UTC "$bin" --quiet $args >"$out/stdout" 2>"$out/stderr"; echo $? >"$out/rc")
	sed -i "s#$out#OUT#g" "$out/stdout" "$out/stderr"
	if [ -f "$out/book.xlsx" ]; then cells "$out/book.xlsx" | sed "s#$out#OUT#g" >"$out/book.cells"; rm "$out/book.xlsx"; fi
	rm -f "$out/state.db"
}

cells() {
	/usr/bin/python3 - "$1" <<'EOF'
import datetime, sys, openpyxl
now = datetime.datetime.now()
wb = openpyxl.load_workbook(sys.argv[1])
for ws in wb.worksheets:
    print("#", ws.title, ws.dimensions)
    for row in ws.iter_rows():
        for c in row:
            v = c.value
            if isinstance(v, datetime.datetime) and abs(now - v) < datetime.timedelta(hours=1):
                v = "NOW"  # when the workbook was written
            if v is not None:
                print(c.coordinate, repr(v), c.number_format)
EOF
}

# metrics BIN SIDE: serve the sample on a free port, take /metrics once the first refresh is in.
metrics() {
	local bin=$1 out=$work/$2/serve port
	mkdir -p "$out"
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	(cd "$root" && exec "$bin" serve --calls "$S" --state "$out/state.db" --listen "127.0.0.1:$port" --quiet >"$out/stdout" 2>"$out/stderr") &
	local pid=$!
	for _ in $(seq 100); do
		curl -sf "http://127.0.0.1:$port/metrics" -o "$out/all" 2>/dev/null && grep -q '^tokenfare_official_cost' "$out/all" && break
		sleep 0.2
	done
	kill "$pid"; wait "$pid" 2>/dev/null
	grep -v -E '^(# (HELP|TYPE) )?(go_|process_|promhttp_|tokenfare_(refresh|build|state_bytes|last_refresh|scrape|newest_row_age))' "$out/all" |
		grep -v -E "^(# (HELP|TYPE) )?(${IGNORE_METRICS:-^$})" >"$out/metrics"
	rm -f "$out/all" "$out/state.db"
	sed -i -E 's/"time":"[^"]*",//; s/127\.0\.0\.1:[0-9]+/ADDR/g; s#'"$out"'#OUT#g; s/[0-9.]+(ms|µs|s)\b/DUR/g' "$out/stderr"
}

diffs=0
for i in "${!cases[@]}"; do
	run "$old" old "$i" "${cases[$i]}"
	run "$new" new "$i" "${cases[$i]}"
	if diff -r "$work/old/$i" "$work/new/$i" >"$work/diff" 2>&1; then
		echo "same       ${cases[$i]}"
	else
		echo "DIFFERENT  ${cases[$i]}"; head -20 "$work/diff"; diffs=$((diffs + 1))
	fi
done
metrics "$old" old
metrics "$new" new
if diff "$work/old/serve/metrics" "$work/new/serve/metrics" >"$work/diff"; then
	echo "same       serve /metrics ($(grep -c '^tokenfare' "$work/new/serve/metrics") tokenfare series)"
else
	echo "DIFFERENT  serve /metrics"; head -20 "$work/diff"; diffs=$((diffs + 1))
fi
if diff "$work/old/serve/stderr" "$work/new/serve/stderr" >"$work/diff"; then
	echo "same       serve stderr"
else
	echo "DIFFERENT  serve stderr"; head -20 "$work/diff"; diffs=$((diffs + 1))
fi
echo "$diffs of $((${#cases[@]} + 2)) differ"
[ "$diffs" = 0 ]
