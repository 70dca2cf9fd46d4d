#!/usr/bin/env bash
# Group commit of the ledger's fdatasync: throughput of a small audited
# count (500 covered rows, so the sync dominates) with tapas.ledger_sync =
# on and off, at 1 and 2 clients, best of ROUNDS rounds of SECONDS each.
# With the sync taken after the ledger lock is released, and skipped when
# another backend's sync covered the record, 2 clients with sync on scale
# like 2 clients without it; when the sync ran under the lock, they queued.
#
# Usage: PGHOST=... PGPORT=... PGUSER=<superuser> bash test/bench/ledger-group-commit.sh [seconds] [rounds]
# Needs a server with tapas preloaded; creates and drops its own database.
set -euo pipefail
secs=${1:-5}
rounds=${2:-2}
PGBENCH=${PGBENCH:-/usr/lib/postgresql/15/bin/pgbench}
db=tapas_bench_gc
sqlf=$(mktemp)
trap 'rm -f "$sqlf"' EXIT

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d "$db" <<'SQL' >/dev/null
SET client_min_messages = warning;
CREATE EXTENSION tapas;
DO $$ BEGIN CREATE ROLE bench_gc_sync LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
DO $$ BEGIN CREATE ROLE bench_gc_nosync LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
ALTER ROLE bench_gc_sync SET tapas.ledger_sync = on;
ALTER ROLE bench_gc_nosync SET tapas.ledger_sync = off;
CREATE TABLE t (id int PRIMARY KEY, hiv bool NOT NULL);
INSERT INTO t SELECT i, i % 97 = 0 FROM generate_series(1, 1000) i;
GRANT SELECT ON t TO bench_gc_sync, bench_gc_nosync;
SELECT tapas.protect('t', 'id', ARRAY['hiv'], 10);
SQL
echo 'SELECT count(*) FROM t WHERE id <= 500;' >"$sqlf"

tps() {	# tps ROLE CLIENTS: best throughput over the rounds
	local best=0 r t
	for r in $(seq "$rounds"); do
		t=$("$PGBENCH" -n -T "$secs" -c "$2" -j "$2" -U "$1" -d "$db" -f "$sqlf" 2>/dev/null |
			awk '/^tps/ {printf "%d", $3}')
		[ "$t" -gt "$best" ] && best=$t
		psql -X -q -d "$db" -c "SELECT tapas.reset('t')" >/dev/null
	done
	echo "$best"
}

for role in bench_gc_sync bench_gc_nosync; do
	one=$(tps $role 1)
	two=$(tps $role 2)
	awk -v r="$role" -v a="$one" -v b="$two" 'BEGIN {
		printf "%-16s 1 client %6d tps   2 clients %6d tps   scaling %.2f\n", r, a, b, b / a }'
done
psql -X -q -d postgres -c "DROP DATABASE $db" >/dev/null
