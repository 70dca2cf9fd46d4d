#!/usr/bin/env bash
# Hammers the shared row-space copies and truth vectors
# (src/audit/state_shared.c, truth_shared.c) and fails
# on a crash or an internal error.  For SECS seconds (default 30):
#   - WORKERS analyst loops (default 3), each a stream of new backends of
#     3 statements on one of three tables (a GROUP BY over a random range:
#     new cells, so the entry syncs, copies the slot of its table and
#     publishes a longer copy of the same slot that the next backend copies);
#   - one loop that calls tapas.reset on a random table (a new generation:
#     stale copies must be skipped, then replaced);
#   - one loop that cycles tapas.audit_shared_memory through 0, a size that
#     holds about one copy (so publishing evicts another table's copy), and
#     1GB, reloading each time;
#   - one loop that updates a random row of a random table (its write
#     stamp moves: the shared truth of its classes is read again);
#   - one loop that reads tapas.audit_shared_state() as the admin.
# Refusals (TP0xx) and "no copy was usable" are fine; a backend lost to a
# signal, a crash restart (the postmaster's start time or the server log),
# or an error outside the TP class and the expected quota and cancel
# errors is a failure.  Last, a new backend still copies a slot (the
# copies were used during the run at all).
# Usage: t-audit-shared-hammer.sh INSTANCE_DIR [SECS [WORKERS]]
set -uo pipefail
dir=$1
secs=${2:-30}
workers=${3:-3}
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
db=tapas_shared_hammer_sys
work=$(mktemp -d /tmp/tapas-hammer.XXXXXX)
chmod 777 "$work"
trap 'rm -rf "$work"' EXIT

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || fail "createdb"
psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'SQL' || fail "setup"
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS tapas;
DO $$ BEGIN CREATE ROLE tapas_hammer_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
DO $$
BEGIN
	FOR t IN 1..3 LOOP
		EXECUTE format('CREATE TABLE hs%s (id int PRIMARY KEY, grp int NOT NULL, v int NOT NULL)', t);
		EXECUTE format('INSERT INTO hs%s SELECT g, g %% 40, (g * 7919 + %s) %% 1000
						  FROM generate_series(1, 8000) g', t, t);
		PERFORM tapas.protect(format('hs%s', t), 'id', ARRAY['v'], 10);
		EXECUTE format('GRANT SELECT ON hs%s TO tapas_hammer_analyst', t);
	END LOOP;
END $$;
ALTER ROLE tapas_hammer_analyst SET tapas.mode = deny;
SQL
start0=$(q "SELECT pg_postmaster_start_time()")
log0=$(wc -l <"$dir/server.log")
setting() {
	q "ALTER SYSTEM SET tapas.audit_shared_memory = '$1'" >/dev/null && q "SELECT pg_reload_conf()" >/dev/null
}
setting 1GB
# one backend over every record of each table first, so that later copies have room for all keys
for t in 1 2 3; do
	psql -X -q -U tapas_hammer_analyst -d "$db" -c "SELECT sum(v) FROM hs$t" >/dev/null 2>&1 || fail "first statement"
done
# the size of one copy, so that the small setting holds about one
one=$(q "SELECT coalesce(max(bytes), 0) FROM tapas.audit_shared_state()")

until_end=$(($(date +%s) + secs))
worker() {	# worker N: new analyst backends until the end
	local n=$1 i=0 t a b
	while [ "$(date +%s)" -lt "$until_end" ]; do
		i=$((i + 1))
		t=$(((RANDOM % 3) + 1))
		{
			for s in 1 2 3; do
				a=$((RANDOM % 7000 + 1))
				b=$((a + 200 + RANDOM % 800))
				echo "SELECT grp, sum(v) FROM hs$t WHERE id BETWEEN $a AND $b GROUP BY grp;"
			done
		} | psql -X -q -v VERBOSITY=sqlstate -U tapas_hammer_analyst -d "$db" >/dev/null 2>>"$work/errors.$n"
	done
}
resetter() {
	while [ "$(date +%s)" -lt "$until_end" ]; do
		sleep 2.$((RANDOM % 10))
		q "SELECT tapas.reset('hs$(((RANDOM % 3) + 1))')" >/dev/null 2>>"$work/errors.reset"
	done
}
sizer() {
	local sizes=("1GB" "$((one * 3 / 2 / 1024 + 1))kB" "0" "1GB" "$((one / 1024 + 1))kB")
	local k=0
	while [ "$(date +%s)" -lt "$until_end" ]; do
		sleep 1.$((RANDOM % 10))
		setting "${sizes[$((k % ${#sizes[@]}))]}" 2>>"$work/errors.sizer"
		k=$((k + 1))
	done
	setting 1GB
}
writer() {	# writes move the tables' write stamps: shared truths are replaced
	while [ "$(date +%s)" -lt "$until_end" ]; do
		sleep 1.$((RANDOM % 10))
		q "UPDATE hs$(((RANDOM % 3) + 1)) SET v = (v + 1) % 1000 WHERE id = $((RANDOM % 8000 + 1))" \
			>/dev/null 2>>"$work/errors.writer"
	done
}
reader() {
	while [ "$(date +%s)" -lt "$until_end" ]; do
		q "SELECT count(*), sum(copies) FROM tapas.audit_shared_state()" >/dev/null 2>>"$work/errors.reader"
		q "SELECT count(*), sum(copies) FROM tapas.audit_shared_truths()" >/dev/null 2>>"$work/errors.reader"
		sleep 0.2
	done
}
for n in $(seq 1 "$workers"); do worker "$n" & done
resetter &
writer &
sizer &
reader &
wait

start1=$(q "SELECT pg_postmaster_start_time()") || fail "server gone"
[ "$start1" = "$start0" ] || fail "the server restarted (crash restart) during the hammer"
tail -n +"$log0" "$dir/server.log" | grep -E "terminated by signal|was terminated|server process .* exited with" &&
	fail "a backend was lost during the hammer"
# errors a client may see: refusals (TP...), a full ledger quota (TP003 is TP too); anything else fails
bad=$(cat "$work"/errors.* 2>/dev/null | grep -E '^(ERROR|FATAL|PANIC)' | grep -vE '^ERROR: +TP[0-9]{3}' | sort | uniq -c)
[ -z "$bad" ] || { echo "$bad"; fail "unexpected errors during the hammer"; }
refusals=$(cat "$work"/errors.[0-9]* 2>/dev/null | sed -nE 's/^ERROR: +(TP[0-9]{3}).*/\1/p' | sort | uniq -c | xargs)
c0=$(q "SELECT coalesce(sum(copies), 0) FROM tapas.audit_shared_state()")
# after the run: one backend over every record of hs1, then enough
# statements to publish; a new backend then copies that slot
q "SELECT tapas.reset('hs1')" >/dev/null || fail "reset"
{
	echo "SELECT sum(v) FROM hs1;"
	# overlapping ranges: each cuts the groups of the one before, so the kernel takes basis
	# rows (disjoint cells are resolved outside the basis and are not worth a copy)
	for b in $(seq 0 13); do
		echo "SELECT grp, sum(v) FROM hs1 WHERE id BETWEEN $((b * 500 + 1)) AND $((b * 500 + 1500)) GROUP BY grp;"
	done
} | psql -X -q -U tapas_hammer_analyst -d "$db" >/dev/null 2>&1
psql -X -q -U tapas_hammer_analyst -d "$db" -c "SELECT grp, sum(v) FROM hs1 WHERE id BETWEEN 2 AND 3001 GROUP BY grp" \
	>/dev/null 2>&1
c1=$(q "SELECT coalesce(sum(copies), 0) FROM tapas.audit_shared_state()")
echo "hammer: ${secs}s, $workers workers, refusals: ${refusals:-none}, copies $c0 -> $c1"
[ "$c1" -gt "$c0" ] || { q "SELECT * FROM tapas.audit_shared_state()"; fail "no copy was used after the hammer"; }

q "ALTER SYSTEM RESET tapas.audit_shared_memory" >/dev/null; q "SELECT pg_reload_conf()" >/dev/null
psql -X -q -d postgres -c "DROP DATABASE $db" || fail "dropdb"
psql -X -q -d postgres -c "DROP ROLE IF EXISTS tapas_hammer_analyst"
echo "audit shared hammer ok"
