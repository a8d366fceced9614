#!/usr/bin/env bash
# Run tokenfare's push-down on a Citus cluster and on one plain PostgreSQL
# holding the same rows, and require byte-identical JSON.
#
# Starts four throwaway servers on loopback from the binaries of pg_config
# (PG_CONFIG): a Citus coordinator and two workers (shared_preload_libraries
# = citus) and a plain PostgreSQL, each initdb'd into a folder under /tmp
# (as the postgres user when run as root; trust authentication, listening on
# 127.0.0.1 only). Loads the sample month (testdata/sample), the odd shapes
# (testdata/litellm) and a generated month (cmd/tokenfare-gen -format dump)
# into the plain server as pgtest loads dumps, fills the key, deleted-key and
# team tables from the rows, and copies every table to the coordinator, where
# "LiteLLM_SpendLogs" is distributed by api_key and the other tables are
# reference tables. Then runs reconcile, chargeback and blend with --db at
# both, in turns, compares their JSON byte for byte, prints wall time,
# the servers' CPU and rows read, and prints the coordinator's plan of the
# push-down query (auto_explain), failing unless each shard's task sums its
# own rows.
#
# Usage: bench/citus/run.sh       (or make test-citus)
# Environment:
#   PG_CONFIG     pg_config of the PostgreSQL Citus is installed into (default: pg_config on PATH)
#   CITUS_PORT    first of four ports (default 9700: coordinator, workers +1 and +2, plain +3)
#   CITUS_ROWS    rows of the generated month (default 200000)
#   CITUS_SHARDS  shards of "LiteLLM_SpendLogs" (default 32)
#   CITUS_RUNS    runs of each command on each server (default 1; medians are shown)
#   CITUS_KEEP    1 keeps the servers running and their folder (default: stopped and removed)
#   RESULTS       also write the figures and the plan to this file (default: none)
# Exits 0 with a note when Citus is not installed.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

skip() { echo "test-citus: skipped: $*" >&2; exit 0; }
pgc=${PG_CONFIG:-pg_config}
command -v "$pgc" >/dev/null || skip "no pg_config (set PG_CONFIG to the pg_config of a PostgreSQL with Citus installed)"
bindir=$("$pgc" --bindir)
libdir=$("$pgc" --pkglibdir)
control=$("$pgc" --sharedir)/extension/citus.control
pgversion=$("$pgc" --version)
[ -x /usr/bin/time ] || { echo "test-citus: /usr/bin/time not found; install the Debian package time" >&2; exit 2; }
[ -x "$bindir/initdb" ] || skip "$pgversion has no server binaries in $bindir (Debian: apt-get install postgresql-15)"
[ -f "$libdir/citus.so" ] && [ -f "$control" ] ||
	skip "Citus is not installed for $pgversion (no $libdir/citus.so or $control); build it from source as docs/scale.md (section 4) says, or set PG_CONFIG"

port=${CITUS_PORT:-9700}
rows=${CITUS_ROWS:-200000}
shards=${CITUS_SHARDS:-32}
runs=${CITUS_RUNS:-1}
names=(coordinator worker1 worker2 single)
declare -A portOf=([coordinator]=$port [worker1]=$((port + 1)) [worker2]=$((port + 2)) [single]=$((port + 3)))
for n in "${names[@]}"; do
	if "$bindir/pg_isready" -q -h 127.0.0.1 -p "${portOf[$n]}" || [ $? -ne 2 ]; then
		echo "test-citus: port ${portOf[$n]} is in use; set CITUS_PORT to the first of four free ports" >&2
		exit 2
	fi
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/tokenfare-citus.XXXXXX")
chmod 755 "$dir"
asPG() { "$@"; }
if [ "$(id -u)" = 0 ]; then
	id postgres >/dev/null 2>&1 || { echo "test-citus: running as root and there is no postgres user" >&2; exit 2; }
	chown postgres "$dir"
	asPG() { runuser -u postgres -- "$@"; }
fi
started=()
cleanup() {
	if [ "${CITUS_KEEP:-}" = 1 ]; then
		echo "test-citus: kept in $dir: ports ${portOf[coordinator]}-${portOf[single]}; stop with pg_ctl -D $dir/NAME stop" >&2
		return
	fi
	for n in "${started[@]}"; do asPG "$bindir/pg_ctl" -D "$dir/$n" -m fast -w stop >/dev/null 2>&1 || true; done
	rm -rf "$dir"
}
trap cleanup EXIT

# sql NODE [PSQL ARGS...]: psql on NODE's database tokenfare.
sql() { "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "${portOf[$1]}" -U postgres -d "${DB:-tokenfare}" "${@:2}"; }
url() { echo "postgres://postgres@127.0.0.1:${portOf[$1]}/tokenfare?sslmode=disable${2:-}"; }
# cpu NODE...: CPU seconds (user + system) the servers' processes have
# used: each postmaster's own and its ended children's (backends, parallel
# workers), and its children's still running.
cpu() {
	local pids="" n
	for n in "$@"; do pids="$pids $(head -1 "$dir/$n/postmaster.pid")"; done
	{ cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v pms="$pids" -v hz="$(getconf CLK_TCK)" '
		BEGIN { split(pms, a, " "); for (i in a) pm[a[i]] = 1 }
		{ match($0, /\) /); split(substr($0, RSTART + 2), f, " ") }
		($1 in pm) { t += f[12] + f[13] + f[14] + f[15] }
		(f[2] in pm) { t += f[12] + f[13] }
		END { printf "%.2f", t / hz }'
}

echo "==> four servers of $pgversion in $dir" >&2
for n in "${names[@]}"; do
	asPG "$bindir/initdb" -D "$dir/$n" -U postgres --auth=trust -E UTF8 --locale=C --no-sync >"$dir/$n.initdb.log"
	extra=""
	[ "$n" = single ] || extra="-c shared_preload_libraries=citus"
	asPG "$bindir/pg_ctl" -D "$dir/$n" -l "$dir/$n/server.log" -w -t 60 -o "-c port=${portOf[$n]} -c listen_addresses=127.0.0.1 \
		-c unix_socket_directories=$dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off $extra" start >/dev/null
	started+=("$n")
	DB=postgres sql "$n" -c 'CREATE DATABASE tokenfare'
done
for n in coordinator worker1 worker2; do sql "$n" -c 'CREATE EXTENSION citus'; done
citus=$(sql coordinator -At -c 'SELECT citus_version()')
echo "==> $citus" >&2
sql coordinator -c "SELECT citus_set_coordinator_host('127.0.0.1', ${portOf[coordinator]})" \
	-c "SELECT citus_add_node('127.0.0.1', ${portOf[worker1]})" -c "SELECT citus_add_node('127.0.0.1', ${portOf[worker2]})" >/dev/null

# LiteLLM's tables. A distributed table's primary key must hold its
# distribution column: on the cluster the key of the spend logs is
# (request_id, api_key).
schema=internal/pgtest/schema/litellm-current.sql
sql single -f "$schema"
sed 's/PRIMARY KEY ("request_id")/PRIMARY KEY ("request_id", "api_key")/' "$schema" | sql coordinator
sql coordinator -c "SET citus.shard_count = $shards" \
	-c "SELECT create_distributed_table('\"LiteLLM_SpendLogs\"', 'api_key')" \
	-c "SELECT create_reference_table('\"LiteLLM_VerificationToken\"')" \
	-c "SELECT create_reference_table('\"LiteLLM_DeletedVerificationToken\"')" \
	-c "SELECT create_reference_table('\"LiteLLM_TeamTable\"')" \
	-c "SELECT create_reference_table('\"LiteLLM_UserTable\"')" >/dev/null

# load FILE: a LiteLLM_SpendLogs CSV dump into the plain server, as
# pgtest.LoadDump does: every column as text, cast to the table's types,
# the first of repeated request ids kept.
load() {
	local header cols
	header=$(head -1 "$1" | tr -d '\r')
	cols=$(tr ',' '\n' <<<"$header" | sed 's/.*/"&"/' | paste -sd,)
	sql single <<-EOF
		CREATE TEMP TABLE stage ($(tr ',' '\n' <<<"$header" | sed 's/.*/"&" text/' | paste -sd,), n bigserial);
		\copy stage ($cols) FROM '$1' CSV HEADER
		DO \$\$ DECLARE cols text; casts text; BEGIN
			SELECT string_agg(format('%I', a.attname), ',' ORDER BY s.attnum),
				string_agg(format('%I::%s', a.attname, format_type(a.atttypid, a.atttypmod)), ',' ORDER BY s.attnum)
			INTO cols, casts
			FROM pg_attribute a JOIN pg_attribute s ON s.attrelid = 'stage'::regclass AND s.attname = a.attname
			WHERE a.attrelid = '"LiteLLM_SpendLogs"'::regclass AND a.attnum > 0 AND NOT a.attisdropped;
			EXECUTE format('INSERT INTO "LiteLLM_SpendLogs" (%s) SELECT %s FROM stage ORDER BY n ON CONFLICT (request_id) DO NOTHING', cols, casts);
		END \$\$;
	EOF
}
echo "==> generating $rows rows of 2026-11 and loading" >&2
go run ./cmd/tokenfare-gen -format dump -rows "$rows" -seed 2 -start 2026-11-01T00:00:00Z -days 30 -o "$dir/generated.csv"
for f in testdata/sample/spendlogs-dump-2026-10.csv testdata/litellm/spendlogs-shapes.csv testdata/litellm/spendlogs-modifiers.csv "$dir/generated.csv"; do
	load "$f"
done
# The key and team tables, made from the rows: every key and team gets an
# alias of its own (the calls' metadata names them too; the tables name
# the calls whose metadata does not), and a few keys a deletion, two for
# one of them, of which the latest names it.
sql single <<-'EOF'
	INSERT INTO "LiteLLM_VerificationToken" (token, key_alias, team_id)
	SELECT api_key, 'key-' || left(api_key, 8), min(team_id) FROM "LiteLLM_SpendLogs" WHERE api_key <> '' AND api_key NOT IN
		(SELECT api_key FROM "LiteLLM_SpendLogs" WHERE api_key <> '' GROUP BY api_key ORDER BY api_key LIMIT 3)
	GROUP BY api_key;
	INSERT INTO "LiteLLM_DeletedVerificationToken" (id, token, key_alias, deleted_at)
	SELECT 'del-' || n || '-' || api_key, api_key, 'deleted-' || n || '-' || left(api_key, 8), timestamp '2026-10-15' + n * interval '1 day'
	FROM (SELECT api_key FROM "LiteLLM_SpendLogs" WHERE api_key <> '' GROUP BY api_key ORDER BY api_key LIMIT 3) k,
		generate_series(1, 2) n WHERE n = 1 OR api_key = (SELECT min(api_key) FROM "LiteLLM_SpendLogs" WHERE api_key <> '');
	INSERT INTO "LiteLLM_TeamTable" (team_id, team_alias)
	SELECT team_id, 'team-' || left(team_id, 8) FROM "LiteLLM_SpendLogs" WHERE COALESCE(team_id, '') <> '' GROUP BY team_id;
EOF
for t in LiteLLM_SpendLogs LiteLLM_VerificationToken LiteLLM_DeletedVerificationToken LiteLLM_TeamTable; do
	sql single -c "COPY \"$t\" TO STDOUT" | sql coordinator -c "COPY \"$t\" FROM STDIN"
done
for n in single coordinator; do sql "$n" -c 'VACUUM ANALYZE'; done
# The same rows on both: count and a sum of each row's hash.
check='SELECT count(*), sum(hashtext(request_id || spend::text || metadata::text)::numeric) FROM "LiteLLM_SpendLogs"'
a=$(sql single -At -c "$check")
b=$(sql coordinator -At -c "$check")
[ "$a" = "$b" ] || { echo "test-citus: the servers hold different rows: $a against $b" >&2; exit 1; }
total=${a%%|*}
echo "==> $total rows on both; $(sql coordinator -At -c "SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = '\"LiteLLM_SpendLogs\"'::regclass") shards on two workers" >&2

bin=$dir/tokenfare
go build -pgo=cmd/tokenfare/release.pgo -o "$bin" ./cmd/tokenfare
cases=(
	"reconcile by model|reconcile -o json"
	"reconcile by model,key,team,user,day|reconcile --by model,key,team,user,day --tz Asia/Shanghai -o json"
	"chargeback 2026-11 by key,team,user,model|chargeback --month 2026-11 --tz Asia/Shanghai --by key,team,user,model -o json"
	"blend as of 2026-12-01|blend --as-of 2026-12-01 -o json"
	"reconcile October row by row|reconcile --rows --since 2026-10-01 --until 2026-11-01 -o json"
)
# Each run: case|node|wall. Every case runs on both servers in turn, so that
# other work on the machine weighs on them alike.
: >"$dir/runs.txt"
failed=0
for r in $(seq "$runs"); do
	for c in "${cases[@]}"; do
		name=${c%%|*}
		read -ra args <<<"${c#*|}"
		for n in single coordinator; do
			out=$dir/out-$r-${name// /_}-$n
			nodes=$n
			[ "$n" = single ] || nodes="coordinator worker1 worker2"
			# shellcheck disable=SC2086
			c0=$(cpu $nodes)
			code=0
			# The single server is asked to sum, as the coordinator
			# chooses to (its table distributed): sums against sums.
			mode=()
			[ "$n" = single ] && [[ " ${args[*]} " != *" --rows "* ]] && mode=(--push-down)
			/usr/bin/time -f '%e %U %S' -o "$out.time" "$bin" "${args[@]}" "${mode[@]}" --quiet --db "$(url "$n")" >"$out.json" 2>"$out.err" || code=$?
			# shellcheck disable=SC2086
			c1=$(cpu $nodes)
			if [ "$code" -ne 0 ] || grep -q 'not exact' "$out.err"; then
				echo "test-citus: $name on $n: exit $code:" >&2
				cat "$out.err" >&2
				failed=1
			fi
			if [ "$n" = coordinator ] && [[ " ${args[*]} " != *" --rows "* ]] && ! grep -q 'is distributed (Citus)' "$out.err"; then
				echo "test-citus: $name on the coordinator: the run did not choose to sum in the distributed database:" >&2
				cat "$out.err" >&2
				failed=1
			fi
			read -r wall user sys <"$out.time"
			echo "$name|$n|$wall|$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.2f", b - a }')|$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')" >>"$dir/runs.txt"
		done
		if ! cmp -s "$dir/out-$r-${name// /_}-single.json" "$dir/out-$r-${name// /_}-coordinator.json"; then
			echo "test-citus: $name: the coordinator's JSON differs from the single server's:" >&2
			diff "$dir/out-$r-${name// /_}-single.json" "$dir/out-$r-${name// /_}-coordinator.json" | head -20 >&2
			failed=1
		fi
	done
done
median() { # median CASE NODE FIELD (3 wall, 4 server CPU, 5 tokenfare's CPU)
	awk -F'|' -v c="$1" -v n="$2" -v f="$3" '$1 == c && $2 == n { print $f }' "$dir/runs.txt" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
scan() { # scan NODE: wall of a bare count/sum scan, in seconds
	sql "$1" -c '\timing on' -c 'SELECT count(*), sum(prompt_tokens), sum(completion_tokens) FROM "LiteLLM_SpendLogs"' |
		sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | awk '{ printf "%.2f", $1 / 1000 }'
}

# The coordinator's plan of the push-down query, as it ran: auto_explain,
# loaded for one more run of each shape of the query (grouped by api_key,
# the distribution column, or not). plans.txt gets the plan of the entry
# that sums (its outer query selects from the groups, g), its long lines cut.
explain=$(url coordinator "&session_preload_libraries=auto_explain&auto_explain.log_min_duration=0")
: >"$dir/plans.txt"
for c in "reconcile by model|reconcile -o json" "chargeback by key|chargeback --month 2026-11 --by key -o json"; do
	name=${c%%|*}
	read -ra args <<<"${c#*|}"
	log=$dir/coordinator/server.log
	from=$(wc -l <"$log")
	"$bin" "${args[@]}" --quiet --db "$explain" >/dev/null 2>&1 || true
	echo "== $name: \`${c#*|}\`" >>"$dir/plans.txt"
	tail -n +"$((from + 1))" "$log" | awk '
		/^20[0-9][0-9]-[0-9][0-9]-[0-9][0-9] / { if (sums) printf "%s", plan; sums = 0; inplan = 0; plan = "" }
		/Query Text: SELECT g\./ { sums = 1 }
		/^\tCustom Scan \(Citus Adaptive\)/ { inplan = 1 }
		inplan { sub(/^\t/, ""); plan = plan substr($0, 1, 150) "\n" }
		END { if (sums) printf "%s", plan }' >>"$dir/plans.txt"
done
# Pushed down: a Citus scan runs one task per shard, and the task's plan
# sums (an Aggregate node) over a scan of its shard of the spend logs.
plan_ok=1
for name in "reconcile by model" "chargeback by key"; do
	p=$(awk -v h="== $name:" 'index($0, h) == 1 { on = 1; next } /^== / { on = 0 } on' "$dir/plans.txt")
	task=$(sed -n '/->  Task$/,$p' <<<"$p" | sed -n '2,/Scan on "LiteLLM_SpendLogs_[0-9]*"/p')
	if ! grep -q "Task Count: $shards" <<<"$p" || ! grep -q 'Aggregate' <<<"$task" || ! grep -q 'Scan on "LiteLLM_SpendLogs_' <<<"$task"; then
		echo "test-citus: $name: the plan does not sum on the shards:" >&2
		echo "$p" >&2
		plan_ok=0
	fi
done

report() {
	echo "$citus; a coordinator and two workers on one machine (loopback), $shards shards; $(date -u +%Y-%m-%d)"
	echo "Rows: $total (the sample month, the odd shapes, $rows generated rows of 2026-11); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "| command | rows read | single PostgreSQL: wall | server CPU | tokenfare CPU | Citus: wall | servers' CPU | tokenfare CPU | JSON |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
	echo "| bare count/sum scan | $total | $(scan single) s | | | $(scan coordinator) s | | | |"
	for c in "${cases[@]}"; do
		name=${c%%|*}
		read_rows=$(sed -n '/"rows": {/,/}/s/^ *"read": \([0-9]*\).*/\1/p' "$dir/out-1-${name// /_}-single.json" | head -1)
		same=identical
		for r in $(seq "$runs"); do cmp -s "$dir/out-$r-${name// /_}-single.json" "$dir/out-$r-${name// /_}-coordinator.json" || same=DIFFERENT; done
		echo "| \`${c#*|}\` | $read_rows | $(median "$name" single 3) s | $(median "$name" single 4) s | $(median "$name" single 5) s |" \
			"$(median "$name" coordinator 3) s | $(median "$name" coordinator 4) s | $(median "$name" coordinator 5) s | $same |"
	done
	echo
	echo "Medians of $runs runs each, taken in turns. Server CPU: user + system of every process of the server"
	echo "(the coordinator's and both workers' for Citus), from /proc, over the command's run."
	echo
	cat "$dir/plans.txt"
}
report | tee ${RESULTS:+"$RESULTS"}
if [ "$failed" -ne 0 ] || [ "$plan_ok" -ne 1 ]; then
	echo "test-citus: FAILED" >&2
	exit 1
fi
echo "test-citus: the coordinator's answers equal the single server's, byte for byte; the sums run on the shards" >&2
