#!/usr/bin/env bash
# Invalidations of the protection cache in the middle of a statement
# (src/policy/protection_cache.c).  A relcache invalidation of a protected
# table (ANALYZE, ALTER, autovacuum) or a reset of the whole relcache (an
# invalidation queue overflow under load) drops the backend's protection
# cache; the next lookup rebuilds it while code of the same statement may
# still hold an entry of the old one.  The old cache must stay readable
# until the end of the transaction: a reset freed it, and a backend read
# the freed sensitive-column set (a segfault in bms_is_member, seen under
# load in 49_audit_many_positives).  Here one analyst backend runs
# audited statements that look up several tables (a protected table, a
# lookup table, a partitioned protected table) in one long transaction,
# while two other backends invalidate: ANALYZE of the protected tables, and
# tables created and dropped fast enough to overflow the invalidation
# queue.  Passes when no backend crashed and the analyst's statements all
# completed.  Usage: t-protection-inval.sh INSTANCE_DIR [SECONDS]
set -uo pipefail
dir=$1
secs=${2:-15}
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
db=tapas_inval_sys

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || fail "createdb"
psql -X -q -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'SQL' || fail "setup"
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS tapas;
CREATE TABLE iv (id int PRIMARY KEY, zip int NOT NULL, age int NOT NULL, hiv boolean NOT NULL, income int NOT NULL);
INSERT INTO iv SELECT g, g % 10, 20 + g % 60, g % 13 = 0, (g * 7919) % 5000 FROM generate_series(1, 5000) g;
SELECT tapas.protect('iv', 'id', ARRAY['hiv', 'income'], 10);
CREATE TABLE ivp (LIKE iv, PRIMARY KEY (id)) PARTITION BY RANGE (id);
CREATE TABLE ivp_1 PARTITION OF ivp FOR VALUES FROM (1) TO (2501);
CREATE TABLE ivp_2 PARTITION OF ivp FOR VALUES FROM (2501) TO (5001);
INSERT INTO ivp SELECT * FROM iv;
SELECT tapas.protect('ivp', 'id', ARRAY['hiv', 'income'], 10);
CREATE TABLE ivl (zip int PRIMARY KEY, region text NOT NULL);
INSERT INTO ivl SELECT z, 'r' || z % 3 FROM generate_series(0, 9) z;
DO $$ BEGIN CREATE ROLE tapas_inval_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
GRANT SELECT ON iv, ivp, ivp_1, ivp_2, ivl TO tapas_inval_analyst;
ALTER ROLE tapas_inval_analyst SET tapas.mode = log;
CREATE FUNCTION iv_loop(n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE a numeric; done int := 0;
BEGIN
	FOR i IN 1..n LOOP
		EXECUTE format('SELECT sum(income) FILTER (WHERE hiv) FROM iv JOIN ivl USING (zip) WHERE region <> %L AND age > %s', 'r' || i % 3, 20 + i % 30) INTO a;
		EXECUTE format('SELECT count(*) FILTER (WHERE hiv) FROM ivp WHERE age > %s', 20 + i % 30) INTO a;
		EXECUTE format('SELECT count(*) FILTER (WHERE hiv) FROM ivp_2 WHERE zip <> %s', i % 10) INTO a;
		done := done + 1;
	END LOOP;
	RETURN done;
END $$;
GRANT EXECUTE ON FUNCTION iv_loop(int) TO tapas_inval_analyst;
SQL

# only this test's part of the server log counts (other tests kill backends on purpose)
log_from=$(($(wc -l <"$dir/server.log") + 1))
end=$((SECONDS + secs))
( while [ $SECONDS -lt $end ]; do psql -X -qAt -d "$db" -c "ANALYZE iv; ANALYZE ivp; ANALYZE ivl" >/dev/null 2>&1; done ) &
p1=$!
( while [ $SECONDS -lt $end ]; do
	psql -X -qAt -d "$db" -c "DO \$\$ BEGIN FOR i IN 1..200 LOOP EXECUTE 'CREATE TABLE ivx_' || i || ' (a int)'; EXECUTE 'DROP TABLE ivx_' || i; END LOOP; END \$\$" >/dev/null 2>&1
  done ) &
p2=$!
runs=0
bad=0
while [ $SECONDS -lt $end ]; do
	out=$(psql -X -qAt -d "$db" -U tapas_inval_analyst -c "SELECT iv_loop(40)" 2>&1)
	runs=$((runs + 1))
	[ "$out" = 40 ] || { bad=$((bad + 1)); echo "   analyst: $out" | head -n 3; }
	psql -X -qAt -d "$db" -c "SELECT tapas.reset('iv') + tapas.reset('ivp')" >/dev/null 2>&1
done
wait $p1 $p2
crashes=$(tail -n +"$log_from" "$dir/server.log" | grep -c "terminated by signal")
echo "   $runs analyst transactions of 120 audited statements, $bad incomplete, $crashes crashes"
[ "$crashes" = 0 ] || { tail -n +"$log_from" "$dir/server.log" | grep -B2 -A3 "terminated by signal" | head -n 20; fail "a backend crashed"; }
[ "$bad" = 0 ] || fail "$bad analyst transactions did not complete"
[ -n "${KEEP:-}" ] || psql -X -q -d postgres -c "DROP DATABASE $db"
psql -X -q -d postgres -c "DROP ROLE IF EXISTS tapas_inval_analyst"
echo "protection invalidation ok"
