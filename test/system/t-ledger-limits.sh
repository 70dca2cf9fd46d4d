#!/usr/bin/env bash
# The ledger's limits: each of tapas.ledger_max_cells, tapas.max_records
# and tapas.ledger_memory, when reached, refuses the whole statement with
# TP003 and a hint naming the setting, and logs nothing of it; a file that
# does not fit smaller limits at startup stops the server instead of
# dropping logged answers.  Runs its own small instance (the shared one
# keeps the default limits).  Usage: t-ledger-limits.sh INSTANCE_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
dir=$(mktemp -d /tmp/tapas-limits.XXXXXX)
trap 'instance_destroy "$dir"' EXIT

# its own q: the statements go to the default database of this instance
q() { psql -X -qAt -v ON_ERROR_STOP=1 -c "$1"; }
# try SQL: prints the SQLSTATE and hint of the error, or "ok"
try() {
	psql -X -qAt -v VERBOSITY=verbose -c "$1" 2>&1 >/dev/null |
		sed -n 's/^ERROR:  \([0-9A-Z]*\): .*/\1/p; s/^HINT:  //p' | tr '\n' ' '
}
start_with() {	# start_with CELLS: start the stopped instance with that cell limit
	as_postgres "$PGBIN/pg_ctl" -D "$dir/data" -o "-p $PGPORT -c tapas.ledger_max_cells=$1" \
		-l "$dir/server.log" -w start >/dev/null 2>&1
}

instance_start "$dir" "tapas.ledger_max_cells = 20" "tapas.max_records = 100" \
	"tapas.ledger_memory = '1MB'" "tapas.ledger_sync = off" || fail "start"
q "CREATE EXTENSION tapas; CREATE TABLE t (id bigint PRIMARY KEY)" || fail "setup"

# cells
q "SELECT count(tapas.ledger_record('t', 'count(*)', g, ARRAY[g::bigint])) FROM generate_series(1, 20) g" >/dev/null ||
	fail "20 cells"
got=$(try "SELECT tapas.ledger_record('t', 'count(*)', 0, '{1}')")
case $got in TP003*tapas.ledger_max_cells*) echo "ok: cell limit: $got" ;; *) fail "cell limit: '$got'" ;; esac
[ "$(q "SELECT cells FROM tapas.ledger_usage()")" = 20 ] || fail "a refused cell was logged"

# a file with 20 cells does not fit 16: the server refuses to start
instance_stop "$dir" || fail "stop"
start_with 16 && fail "started with a ledger that does not fit"
grep -q 'does not fit the configured ledger' "$dir/server.log" || fail "no startup message"
echo "ok: startup refused with 16 cells for 20 logged"
start_with 20 || fail "start with 20 cells"
[ "$(q "SELECT cells FROM tapas.ledger_usage()")" = 20 ] || fail "cells lost"
echo "ok: all 20 cells back with the limit raised"

# records: 100 keys fit, a 101st new key does not, known keys still do
q "SELECT tapas.reset('t')" >/dev/null || fail "reset"
q "SELECT tapas.ledger_record('t', 'count(*)', 100, (SELECT array_agg(g) FROM generate_series(1, 100) g))" >/dev/null ||
	fail "100 records"
got=$(try "SELECT tapas.ledger_record('t', 'count(*)', 2, '{1,101}')")
case $got in TP003*tapas.max_records*) echo "ok: record limit: $got" ;; *) fail "record limit: '$got'" ;; esac
q "SELECT tapas.ledger_record('t', 'count(*)', 2, '{1,100}')" >/dev/null || fail "known keys refused"
[ "$(q "SELECT records || '/' || cells FROM tapas.ledger_usage()")" = "100/2" ] || fail "record count"

# memory: 64 kB query texts fill the 1 MB arena before 20 cells
q "SELECT tapas.reset('t')" >/dev/null || fail "reset"
n=0
while :; do
	got=$(try "SELECT tapas.ledger_record('t', 'count(*)', 1, '{1}', repeat('x', 65536))")
	[ -n "$got" ] && break
	n=$((n + 1))
	[ $n -gt 20 ] && fail "memory limit never reached"
done
case $got in TP003*tapas.ledger_memory*) echo "ok: memory limit after $n cells: $got" ;; *) fail "memory limit: '$got'" ;; esac
[ "$(q "SELECT cells FROM tapas.ledger_usage()")" = "$n" ] || fail "a refused cell was logged"
