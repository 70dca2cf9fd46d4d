#!/usr/bin/env bash
# New backends start from the row-space state another backend shared
# (src/audit/state_shared.c, issue 12 item 4), and that changes no
# decision: an attack whose statements each come from a new connection
# is refused as before.  One analyst backend answers a GROUP BY over every
# record (one cell) and 20 GROUP BY sum(v) statements (400 cells over overlapping
# ranges, published to shared memory); then, each
# in a new backend of the analyst in deny mode: the sum of group 3
# (answered; the backend copies the shared state: tapas.audit_shared_state
# counts the copy), the same sum without record 3 (refused, TP001:
# record 3 is the difference, which only the row-space test sees for a
# sum of a non-binary column), and the same difference spelled avg * count
# (refused).  The same with tapas.audit_shared_memory = 0 (no copies: the
# backends replay) gives the same three outcomes.  Last, after
# tapas.reset of the table, a stale copy is never used: the difference is
# answered on the empty ledger, and the copy counters do not move.
# Usage: t-audit-shared-state.sh INSTANCE_DIR (a running instance from test/lib.sh).
set -uo pipefail
dir=$1
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
db=tapas_shared_state_sys

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || fail "createdb"
psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'SQL' || fail "setup"
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS tapas;
CREATE TABLE sh (id int PRIMARY KEY, grp int NOT NULL, v int NOT NULL);
INSERT INTO sh SELECT g, g % 20, (g * 7919) % 1000 FROM generate_series(1, 20000) g;
SELECT tapas.protect('sh', 'id', ARRAY['v'], 10);
DO $$ BEGIN CREATE ROLE tapas_shared_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
GRANT SELECT ON sh TO tapas_shared_analyst;
ALTER ROLE tapas_shared_analyst SET tapas.mode = deny;
SQL

copies() { q "SELECT coalesce(sum(copies), 0) FROM tapas.audit_shared_state() WHERE tbl = 'sh'::regclass"; }
# analyst SQL: one new analyst backend runs SQL; prints answered or the SQLSTATE
analyst() {
	local out
	out=$(psql -X -qAt -v VERBOSITY=sqlstate -U tapas_shared_analyst -d "$db" -c "$1" 2>&1)
	if echo "$out" | grep -qE '^ERROR'; then echo "$out" | sed -nE 's/^ERROR: +([0-9A-Z]{5}).*/\1/p' | head -n 1
	else echo answered; fi
}
setting() {
	q "ALTER SYSTEM SET tapas.audit_shared_memory = '$1'" >/dev/null && q "SELECT pg_reload_conf()" >/dev/null
	sleep 0.3
}
benign() {	# 21 statements in one backend: every record at once (so its row space is
	# never rebuilt for new keys, and its copy has room for every later backend), then 20
	# statements of 20 cells over overlapping ranges of ids (each range cuts the groups of
	# the one before, so the kernel takes basis rows: disjoint cells alone are resolved
	# outside the basis, recon/rowspace_resolved.c, and are not worth a copy)
	{
		echo "SELECT sum(v) FROM sh;"
		for b in $(seq 0 19); do
			echo "SELECT grp, sum(v) FROM sh WHERE id BETWEEN $((b * 1000 + 1)) AND $((b * 1000 + 1500)) GROUP BY grp;"
		done
	} | psql -X -q -v ON_ERROR_STOP=1 -U tapas_shared_analyst -d "$db" >/dev/null 2>&1 || fail "benign workload"
}
attack() {	# the three statements, each in a new backend: their outcomes
	echo "$(analyst "SELECT sum(v) FROM sh WHERE grp = 3") \
$(analyst "SELECT sum(v) FROM sh WHERE grp = 3 AND id <> 3") \
$(analyst "SELECT avg(v) * count(v) FROM sh WHERE grp = 3 AND id IS DISTINCT FROM 3")"
}

setting 1GB
benign
[ "$(q "SELECT count(*) FROM tapas.audit_shared_state() WHERE tbl = 'sh'::regclass AND rows >= 200")" -ge 1 ] ||
	{ q "SELECT * FROM tapas.audit_shared_state()"; fail "no shared state after the benign workload"; }
c0=$(copies)
with=$(attack)
c1=$(copies)
echo "with shared copies: $with (copies $c0 -> $c1)"
[ "$with" = "answered TP001 TP001" ] || fail "with shared copies: $with"
[ "$c1" -ge $((c0 + 3)) ] || { q "SELECT * FROM tapas.audit_shared_state()"; grep 'shared audit state' "$dir/server.log" | tail -3
	fail "new backends did not copy the shared state ($c0 -> $c1)"; }

q "SELECT tapas.reset('sh')" >/dev/null || fail "reset"
setting 0
benign
without=$(attack)
echo "without (replay): $without"
[ "$without" = "$with" ] || fail "replay gave $without, the copies $with"

# a reset leaves the copies of the old generation unused
setting 1GB
q "SELECT tapas.reset('sh')" >/dev/null || fail "reset"
c2=$(copies)
out=$(analyst "SELECT sum(v) FROM sh WHERE grp = 3 AND id <> 3")
c3=$(copies)
echo "after tapas.reset: $out (copies $c2 -> $c3)"
[ "$out" = answered ] || fail "after reset: $out"
[ "$c3" = "$c2" ] || fail "a copy of the old generation was used"

q "ALTER SYSTEM RESET tapas.audit_shared_memory" >/dev/null; q "SELECT pg_reload_conf()" >/dev/null
[ -n "${KEEP:-}" ] || psql -X -q -d postgres -c "DROP DATABASE $db"
psql -X -q -d postgres -c "DROP ROLE IF EXISTS tapas_shared_analyst"
echo "audit shared state ok"
