#!/usr/bin/env bash
# Build and install Citus from a source tree into the PostgreSQL of
# pg_config (PG_CONFIG), for make test-citus.
#
# Usage: bench/citus/build.sh SRC    (a tree of github.com/citusdata/citus at a tag
#                                    supporting that PostgreSQL: v13.2.2 for 15)
# Needs Debian's postgresql-server-dev-15 and the build packages configure
# asks for (docs/scale.md, section 4). Builds with make -j2.
#
# PostgreSQL 15.20's headers declare have_createdb_privilege (exported from
# the server since that minor release), which Citus 13 defines as a static
# function of its own for PostgreSQL 15: gcc stops at "static declaration
# of 'have_createdb_privilege' follows non-static declaration". When the
# headers declare it, the static function is renamed by a macro placed just
# before it, so that Citus keeps calling its own.
set -euo pipefail

src=${1:?usage: bench/citus/build.sh SRC}
pgc=${PG_CONFIG:-pg_config}
inc=$("$pgc" --includedir-server)
compat=$src/src/include/pg_version_compat.h
if grep -q 'extern bool have_createdb_privilege' "$inc/commands/dbcommands.h" &&
	! grep -q 'citus_have_createdb_privilege' "$compat"; then
	line=$(grep -n '^have_createdb_privilege(void)$' "$compat" | cut -d: -f1)
	[ -n "$line" ] || { echo "citus build: no have_createdb_privilege definition in $compat" >&2; exit 1; }
	sed -i "$((line - 1))i #define have_createdb_privilege citus_have_createdb_privilege" "$compat"
	echo "citus build: $inc declares have_createdb_privilege; renamed Citus's own in $compat" >&2
fi
cd "$src"
[ -f Makefile.global ] || ./configure PG_CONFIG="$pgc"
make -j2
make install
