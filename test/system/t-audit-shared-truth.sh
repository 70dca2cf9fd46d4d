#!/usr/bin/env bash
# Truth vectors shared between backends (src/audit/truth_shared.c) are
# used only while the table's write stamp (truth_stamp.c) has not moved.
# Table tt: x is never NULL, so count(x) is a multiple of the public
# count(*) (a public class: logged, not audited).  Each statement runs in
# a new analyst backend, deny mode:
#   1. a GROUP BY count(x) reads the truth and publishes it; the next
#      backend takes the copy instead of scanning (the counter moves);
#   2. the admin sets x NULL on record 3 in a session whose cumulative
#      statistics are not flushed yet (so only the write stamp can tell);
#      a new backend then runs count(x) over group 3 without record 3:
#      with the new truth count(x) is no longer public and the difference
#      with the group's logged cell isolates record 3 (TP001); a stale
#      copy would call it public and answer;
#   3. while a write to tt is in flight (an open transaction), no backend
#      takes a copy.
# Usage: t-audit-shared-truth.sh INSTANCE_DIR (a running instance from test/lib.sh).
set -uo pipefail
dir=$1
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
db=tapas_shared_truth_sys

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || fail "createdb"
psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'SQL' || fail "setup"
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS tapas;
CREATE TABLE tt (id int PRIMARY KEY, grp int NOT NULL, x int);
INSERT INTO tt SELECT g, g % 20, g % 7 FROM generate_series(1, 4000) g;
SELECT tapas.protect('tt', 'id', ARRAY['x'], 10);
DO $$ BEGIN CREATE ROLE tapas_truth_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
GRANT SELECT ON tt TO tapas_truth_analyst;
ALTER ROLE tapas_truth_analyst SET tapas.mode = deny;
SQL
q "ALTER SYSTEM SET tapas.audit_shared_memory = '1GB'" >/dev/null && q "SELECT pg_reload_conf()" >/dev/null
sleep 0.3

taken() { q "SELECT coalesce(sum(copies), 0) FROM tapas.audit_shared_truths() WHERE tbl = 'tt'::regclass"; }
analyst() {	# one new analyst backend: answered or the SQLSTATE
	local out
	out=$(psql -X -qAt -v VERBOSITY=sqlstate -U tapas_truth_analyst -d "$db" -c "$1" 2>&1)
	if echo "$out" | grep -qE '^ERROR'; then echo "$out" | sed -nE 's/^ERROR: +([0-9A-Z]{5}).*/\1/p' | head -n 1
	else echo answered; fi
}

# 1. published, then taken
out=$(analyst "SELECT grp, count(x) FROM tt GROUP BY grp")
[ "$out" = answered ] || fail "the GROUP BY: $out"
[ "$(q "SELECT count(*) FROM tapas.audit_shared_truths() WHERE tbl = 'tt'::regclass AND nonzero = 4000")" -ge 1 ] ||
	{ q "SELECT * FROM tapas.audit_shared_truths()"; fail "no shared truth of tt after the first backend"; }
t0=$(taken)
out=$(analyst "SELECT count(x) FROM tt WHERE grp = 5")
t1=$(taken)
echo "unchanged table: $out, copies taken $t0 -> $t1"
[ "$out" = answered ] || fail "count(x) over group 5: $out"
[ "$t1" -gt "$t0" ] || fail "the second backend did not take the shared truth"

# 2. a write the cumulative statistics do not show yet: the writer flushed
# them a moment ago (SELECT 1), so its UPDATE stays pending while it sleeps
psql -X -q -d "$db" -c "SELECT 1" -c "UPDATE tt SET x = NULL WHERE id = 3" -c "SELECT pg_sleep(6)" \
	>/dev/null 2>&1 &
writer=$!
for i in $(seq 1 40); do
	[ "$(q "SELECT count(*) FROM tt WHERE id = 3 AND x IS NULL")" = 1 ] && break
	sleep 0.1
done
stats=$(q "SELECT n_tup_upd FROM pg_stat_user_tables WHERE relid = 'tt'::regclass")
out=$(analyst "SELECT count(x) FROM tt WHERE grp = 3 AND id <> 3")
echo "after the write (n_tup_upd seen: $stats): $out"
[ "$out" = TP001 ] || fail "after x was set NULL on record 3: $out (a stale truth kept count(x) public)"
wait "$writer"

# 3. a write in flight: no copy is taken (the first backend here reads and
# publishes the truth after the write, the second takes it)
sleep 1
out=$(analyst "SELECT count(x) FROM tt WHERE grp = 6")
t1=$(taken)
out=$(analyst "SELECT count(x) FROM tt WHERE grp = 8")
[ "$(taken)" -gt "$t1" ] || fail "no copy taken after the write ended"
psql -X -q -d "$db" -c "BEGIN" -c "UPDATE tt SET x = 1 WHERE id = 4000" -c "SELECT pg_sleep(4)" -c "ROLLBACK" \
	>/dev/null 2>&1 &
writer=$!
sleep 1
t2=$(taken)
out=$(analyst "SELECT count(x) FROM tt WHERE grp = 7")
t3=$(taken)
echo "a write in flight: $out, copies taken $t2 -> $t3"
[ "$t3" = "$t2" ] || fail "a copy was taken while a write to the table was in flight"
wait "$writer"

q "ALTER SYSTEM RESET tapas.audit_shared_memory" >/dev/null; q "SELECT pg_reload_conf()" >/dev/null
[ -n "${KEEP:-}" ] || psql -X -q -d postgres -c "DROP DATABASE $db"
psql -X -q -d postgres -c "DROP ROLE IF EXISTS tapas_truth_analyst"
echo "audit shared truth ok"
