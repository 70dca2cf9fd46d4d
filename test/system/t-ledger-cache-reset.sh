#!/usr/bin/env bash
# Each backend caches the key -> dense index mappings it read from the
# ledger (src/lstore/ledger_cache.c); a tapas.reset by another session must
# clear that cache.  One analyst session stays open (psql on a fifo) while
# an admin session resets the table; the analyst's next statements must
# log exactly their keys (a stale cache would give keys of the old
# indexing, or make the append fail).  Usage: t-ledger-cache-reset.sh
# INSTANCE_DIR (a running instance from test/lib.sh).
set -uo pipefail
dir=$1
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
db=tapas_cache_sys
work=$(mktemp -d)
chmod 777 "$work"
analyst_pid=""
cleanup() {
	exec 3>&- 2>/dev/null
	[ -n "$analyst_pid" ] && wait "$analyst_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; cat "$work/out" 2>/dev/null | tail -n 20; exit 1; }
q() { psql -X -qAt -v ON_ERROR_STOP=1 -d "$db" -c "$1"; }
# as_analyst SQL: runs SQL in the open analyst session, waits for its end
n=0
as_analyst() {
	n=$((n + 1))
	printf '%s\n\\echo done-%d\n' "$1" "$n" >&3
	for _ in $(seq 1 200); do
		grep -q "^done-$n\$" "$work/out" && return 0
		sleep 0.05
	done
	fail "analyst session did not answer: $1"
}
# keys_of_last: covered keys of the newest cell, sorted
keys_of_last() {
	q "SELECT array(SELECT unnest(keys) ORDER BY 1)::text FROM tapas.query_matrix('t')
		ORDER BY log_id DESC LIMIT 1"
}

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null 2>&1 || fail "createdb"
q "SET client_min_messages = warning;
   CREATE EXTENSION tapas;
   DO \$\$ BEGIN CREATE ROLE sys_cache_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$;
   CREATE TABLE t (id int PRIMARY KEY, s bool NOT NULL);
   INSERT INTO t SELECT i, i % 7 = 0 FROM generate_series(1, 100) i;
   GRANT SELECT ON t TO sys_cache_analyst;
   SELECT tapas.protect('t', 'id', ARRAY['s'], 1);" >/dev/null || fail "setup"

mkfifo "$work/in"
psql -X -qAt -d "$db" -U sys_cache_analyst <"$work/in" >"$work/out" 2>&1 &
analyst_pid=$!
exec 3>"$work/in"

# 1..50 get indices 0..49; the second statement reads them from the
# store, which puts them into the analyst's cache
as_analyst "SELECT count(*) FROM t WHERE id <= 50;"
as_analyst "SELECT count(*) FROM t WHERE id <= 50;"
[ "$(keys_of_last)" = "{$(seq -s, 1 50)}" ] || fail "first cell: $(keys_of_last)"
# the admin resets; 71..100 then get indices 0..29, 1..50 get 30..79
q "SELECT tapas.reset('t')" >/dev/null || fail "reset"
as_analyst "SELECT count(*) FROM t WHERE id > 70;"
[ "$(keys_of_last)" = "{$(seq -s, 71 100)}" ] || fail "after reset: $(keys_of_last)"
as_analyst "SELECT count(*) FROM t WHERE id <= 50;"
[ "$(keys_of_last)" = "{$(seq -s, 1 50)}" ] || fail "cached keys after reset: $(keys_of_last)"
# and the ledger's own view agrees: 80 records, the last cell covers 30..79
got=$(q "SELECT count(*) FROM tapas.query_matrix('t')")
[ "$got" = 2 ] || fail "cells after reset: $got"
as_analyst "SELECT count(*) FROM t WHERE id <= 100;"
[ "$(keys_of_last)" = "{$(seq -s, 1 100)}" ] || fail "all keys: $(keys_of_last)"
grep -q ERROR "$work/out" && fail "analyst got an error"
echo "ok: a reset by another session clears the analyst's key cache"

exec 3>&-
wait "$analyst_pid"
analyst_pid=""
psql -X -q -d postgres -c "DROP DATABASE $db" >/dev/null
psql -X -q -d postgres -c "DROP ROLE sys_cache_analyst" >/dev/null 2>&1 || true
echo "ok - t-ledger-cache-reset"
