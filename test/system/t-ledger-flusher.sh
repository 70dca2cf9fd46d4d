#!/usr/bin/env bash
# The ledger's durability modes: with tapas.ledger_sync = on a statement's
# record is fdatasync'd before it returns; with off (the default) it is
# written at once and the "tapas ledger flusher" background worker syncs it
# within tapas.ledger_flush_delay.  Observed through file_synced_bytes of
# tapas.ledger_usage().  Usage: t-ledger-flusher.sh INSTANCE_DIR (a running
# instance from test/lib.sh).
set -uo pipefail
dir=$1
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
db=tapas_flusher_sys

usage() { q "SELECT file_bytes || '/' || file_synced_bytes FROM tapas.ledger_usage()"; }
synced() { [ "$(q "SELECT file_bytes = file_synced_bytes FROM tapas.ledger_usage()")" = t ]; }
# record_then SYNC KEYS TEST: logs one cell over KEYS with tapas.ledger_sync =
# SYNC, then prints TEST over tapas.ledger_usage(), in the same session
record_then() {
	psql -X -qAt -v ON_ERROR_STOP=1 -d "$db" -c "SET tapas.ledger_sync = $1" \
		-c "SELECT tapas.ledger_record('t', 'count(*)', 1, '$2')" \
		-c "SELECT $3 FROM tapas.ledger_usage()" | tail -n 1
}
# wait_synced TRIES PAUSE: until the whole file is synced; false if it never is
wait_synced() {
	local i
	for i in $(seq 1 "$1"); do
		synced && return 0
		sleep "$2"
	done
	synced
}
reload_delay() {	# reload_delay MS: set the flusher's delay, then let it settle
	psql -X -q -d postgres -c "ALTER SYSTEM SET tapas.ledger_flush_delay = $1" \
		-c "SELECT pg_reload_conf()" >/dev/null || fail "reload"
	sleep 0.5
}

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || fail "createdb"
q "CREATE EXTENSION tapas; CREATE TABLE t (id bigint PRIMARY KEY)" || fail "setup"
pm=$(head -n 1 "$dir/data/postmaster.pid")
ps -o args= --ppid "$pm" | grep -q '^postgres: tapas ledger flusher' || fail "no ledger flusher running"
echo "ok: the flusher runs"

# sync on: durable when the statement returns
[ "$(q "SHOW tapas.ledger_sync")" = off ] || fail "tapas.ledger_sync is not off by default"
reload_delay 10000
[ "$(record_then on '{1,2}' 'file_bytes = file_synced_bytes')" = t ] || fail "sync on: not durable on return ($(usage))"
echo "ok: sync on is durable on return"

# sync off: written at once, durable only after the flusher's next round.
# The flusher is now either hibernating or in its 10 s timed wait, and a
# record without a sync wakes a hibernating flusher at once (by design), so
# the check would race with that wake-up.  Log one record first and wait for
# its sync: a hibernating flusher syncs it at once; one in its timed wait is
# made to run a round now by a SIGHUP (its 10 s started at the reload above,
# so its timer cannot fire in between).  Either way the flusher has then
# just synced, with its asleep flag clear and no latch set, and waits out
# its full 10 s delay, which no statement logged without a sync cuts short.
[ -n "$(record_then off '{9,10}' 'file_bytes')" ] || fail "record to wake the flusher"
if ! wait_synced 4 0.25; then
	q "SELECT pg_reload_conf()" >/dev/null || fail "reload"
	wait_synced 40 0.25 || fail "sync off: the flusher did not sync on a reload ($(usage))"
fi
[ "$(record_then off '{3,4}' 'file_bytes > file_synced_bytes')" = t ] || fail "sync off: synced before the flusher's round ($(usage))"
reload_delay 50
wait_synced 40 0.25 || fail "sync off: the flusher did not sync ($(usage))"
echo "ok: sync off is synced by the flusher"

# an idle flusher hibernates (25 empty rounds: 1.25 s at 50 ms) and the
# next record logged without a sync wakes it
sleep 2
[ -n "$(record_then off '{5,6}' 'file_bytes')" ] || fail "record while the flusher sleeps"
wait_synced 40 0.1 || fail "a hibernating flusher was not woken by a record ($(usage))"
echo "ok: a hibernating flusher wakes for the next record"

# an audited role cannot turn the sync off
q "DO \$\$ BEGIN CREATE ROLE tapas_flusher_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$" ||
	fail "role"
err=$(psql -X -qAt -d "$db" -U tapas_flusher_analyst -c "SET tapas.ledger_sync = on" 2>&1)
echo "$err" | grep -q 'permission denied' || fail "audited role changed tapas.ledger_sync: $err"
echo "ok: an audited role cannot change tapas.ledger_sync"

# the flusher comes back after a crash restart (a backend killed)
flusher() { ps -o pid=,args= --ppid "$pm" | awk '/postgres: tapas ledger flusher/ {print $1}'; }
before=$(flusher)
crash_backend
for i in $(seq 1 80); do
	after=$(flusher)
	[ -n "$after" ] && [ "$after" != "$before" ] && break
	sleep 0.25
done
[ -n "$after" ] && [ "$after" != "$before" ] || fail "no new flusher after a crash restart ($before, $after)"
echo "ok: the flusher runs again after a crash restart"

psql -X -q -d postgres -c "ALTER SYSTEM RESET tapas.ledger_flush_delay" -c "SELECT pg_reload_conf()" \
	-c "DROP DATABASE $db" -c "DROP ROLE tapas_flusher_analyst" >/dev/null || fail "cleanup"
