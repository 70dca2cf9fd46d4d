#!/usr/bin/env bash
# The ledger survives a clean restart, the crash of one backend (kill -9:
# the postmaster re-initialises shared memory and replays the file), the
# crash of the whole server (kill -9 of the postmaster and its children),
# and a torn tail of its file, which startup cuts off (saving the file as
# ledger.log.damaged).  Usage: t-ledger-restart.sh INSTANCE_DIR (a running
# instance from test/lib.sh, PGHOST/PGPORT/PGUSER exported).
set -uo pipefail
dir=$1
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
db=tapas_ledger_sys
ledger=$dir/data/pg_tapas/ledger.log

start() { as_postgres "$PGBIN/pg_ctl" -D "$dir/data" -o "-p $PGPORT" -l "$dir/server.log" -w start >/dev/null; }
snapshot() {
	q "SELECT string_agg(log_id - $first || ':' || statistic || ':' || answer || ':' || keys::text, ' '
						ORDER BY log_id) FROM tapas.query_matrix('t')"
}
check() {	# check WHEN EXPECTED
	local got
	got=$(snapshot)
	[ "$got" = "$2" ] || fail "$1: ledger is '$got', expected '$2'"
	echo "ok: $1"
}

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || fail "createdb"
q "CREATE EXTENSION tapas; CREATE TABLE t (id bigint PRIMARY KEY)" || fail "setup"
first=$(q "SELECT tapas.ledger_record('t', 'count(*)', 3, '{3,1,2}', 'SELECT 1')") || fail "record"
q "SELECT tapas.ledger_record('t', 'sum(x)', 7.5, '{4,3}')" >/dev/null || fail "record"
expect="0:count(*):3:{1,2,3} 1:sum(x):7.5:{3,4}"
check "logged" "$expect"

# 1. clean restart
instance_restart "$dir" || fail "restart"
check "after a clean restart" "$expect"
q "SELECT tapas.ledger_record('t', 'count(*)', 1, '{5}')" >/dev/null || fail "record after restart"
expect="$expect 2:count(*):1:{5}"

# 2. a backend that logged a cell is killed: crash restart of all backends
crash_backend "SELECT tapas.ledger_record('t', 'count(*)', 2, '{6,7}')"
expect="$expect 3:count(*):2:{6,7}"
check "after kill -9 of a backend" "$expect"

# 3. the whole server is killed right after an append
q "SELECT tapas.ledger_record('t', 'sum(x)', -1, '{8,1}')" >/dev/null || fail "record"
logmark=$(wc -l <"$dir/server.log")
pm=$(head -n 1 "$dir/data/postmaster.pid")
kids=$(ps -o pid= --ppid "$pm")
kill -9 "$pm" $kids
for i in $(seq 1 80); do
	kill -0 "$pm" $kids 2>/dev/null || break
	sleep 0.25
done
[ $(($(stat -c %s "$ledger") % 1048576)) = 0 ] ||
	fail "no preallocated zero tail after a crash: $(stat -c %s "$ledger") bytes"
start || fail "start after kill -9 of the postmaster"
wait_ready || fail "not ready"
expect="$expect 4:sum(x):-1:{1,8}"
check "after kill -9 of the postmaster" "$expect"
# the preallocated zeros are a clean end of the log, not damage
! tail -n +"$((logmark + 1))" "$dir/server.log" | grep -q 'is cut at byte' ||
	fail "zero tail reported as a cut"
[ ! -f "$dir/data/pg_tapas/ledger.log.damaged" ] || fail "zero tail saved as damaged"
echo "ok: zero tail of a crashed server replayed as a clean end"

# 4. garbage after the last frame (a torn write) is cut off at startup; a
#    clean stop first trims the preallocated zeros
instance_stop "$dir" || fail "stop"
size=$(stat -c %s "$ledger")
[ $((size % 1048576)) != 0 ] || fail "zero tail not trimmed at a clean stop"
printf '\x40\x00\x00\x00\x12\x34\x56\x78torn' >>"$ledger"
start || fail "start with a torn tail"
check "after a torn tail" "$expect"
[ "$(stat -c %s "$ledger")" = "$size" ] || fail "torn tail not cut: $(stat -c %s "$ledger") bytes, expected $size"
[ -f "$dir/data/pg_tapas/ledger.log.damaged" ] || fail "damaged copy not saved"
grep -q 'is cut at byte' "$dir/server.log" || fail "no log line about the cut"
echo "ok: torn tail cut, file saved"

# 5. a last frame cut short (crash in the middle of its write) is dropped
#    whole: its statement never released a row
instance_stop "$dir" || fail "stop"
truncate -s -3 "$ledger"
start || fail "start with a short last frame"
expect="${expect% 4:*}"
check "after a short last frame" "$expect"
q "SELECT tapas.ledger_record('t', 'count(*)', 9, '{9}')" >/dev/null || fail "record after cut"
instance_restart "$dir" || fail "restart"
check "appends continue after the cut" "$expect 4:count(*):9:{9}"

# 5b. a frame torn inside the preallocated zeros (a crash in the middle
#     of its write) is cut too, and the zeros with it
instance_stop "$dir" || fail "stop"
size=$(stat -c %s "$ledger")
rm -f "$dir/data/pg_tapas/ledger.log.damaged"
printf '\x40\x00\x00\x00\x12\x34' >>"$ledger"
truncate -s $(((size + 6) / 1048576 * 1048576 + 1048576)) "$ledger"
start || fail "start with a torn frame before zeros"
check "after a torn frame before zeros" "$expect 4:count(*):9:{9}"
[ "$(stat -c %s "$ledger")" = "$size" ] || fail "torn frame not cut: $(stat -c %s "$ledger") bytes, expected $size"
[ -f "$dir/data/pg_tapas/ledger.log.damaged" ] || fail "damaged copy not saved"
echo "ok: torn frame before the zero tail cut"

# 6. reset removes the entries from the file too
q "SELECT tapas.reset('t')" >/dev/null || fail "reset"
instance_restart "$dir" || fail "restart"
[ "$(q "SELECT count(*) FROM tapas.query_matrix('t')")" = 0 ] || fail "reset undone by restart"
echo "ok: reset survives a restart"

psql -X -q -d postgres -c "DROP DATABASE $db" || fail "dropdb"
