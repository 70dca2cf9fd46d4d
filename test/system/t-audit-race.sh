#!/usr/bin/env bash
# Racing sessions: two sessions of one role issue the two halves of a
# difference attack at the same instant (both wait on an advisory lock held
# by a third session, released at once).  The auditor serialises decisions
# per (table, scope), so in deny mode exactly one half is answered and the
# other refused, and in log mode exactly one alert names the record.
# Usage: t-audit-race.sh INSTANCE_DIR (a running instance from test/lib.sh).
set -uo pipefail
dir=$1
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
db=tapas_race_sys

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || fail "createdb"
q "CREATE EXTENSION IF NOT EXISTS tapas" || fail "extension"
psql -X -q -d "$db" -c "DO \$\$ BEGIN CREATE ROLE regress_tapas_race LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$" || fail "role"

# race TABLE MODE: both halves at once; prints each session's output
race() {
	local tbl=$1 mode=$2
	q "CREATE TABLE $tbl (id int PRIMARY KEY, x int NOT NULL);
	   INSERT INTO $tbl SELECT g, g % 13 FROM generate_series(1, 200) g;
	   SELECT tapas.protect('$tbl', 'id', ARRAY['x'], 10);
	   GRANT SELECT ON $tbl TO regress_tapas_race" >/dev/null || fail "setup $tbl"
	# the starter holds the gate until both racers wait on it
	psql -X -q -d "$db" -c "SELECT pg_advisory_lock(4242)" -c "SELECT pg_sleep(1.5)" \
		-c "SELECT pg_advisory_unlock(4242)" >/dev/null 2>&1 &
	local starter=$!
	sleep 0.3
	for half in "id <= 100" "id <= 101"; do
		psql -X -d "$db" -c "SET tapas.mode = $mode" -c "SET SESSION AUTHORIZATION regress_tapas_race" \
			-c "SELECT pg_advisory_lock_shared(4242)" \
			-c "SELECT sum(x) AS answer FROM $tbl WHERE $half" >"$dir/race.$tbl.${half##* }" 2>&1 &
	done
	wait
}

race race_d deny
refused=$(cat "$dir"/race.race_d.* | grep -c "query refused")
answered=$(cat "$dir"/race.race_d.* | grep -c "(1 row)" )
logged=$(q "SELECT count(*) FROM tapas.query_log WHERE tbl = 'race_d'::regclass")
[ "$refused" = 1 ] || { cat "$dir"/race.race_d.*; fail "deny: $refused refused (want 1)"; }
[ "$logged" = 1 ] || fail "deny: $logged cells logged (want 1)"
echo "ok: deny mode, racing halves: one answered, one refused"
key=$(q "SELECT record_key FROM tapas.alerts WHERE \"table\" = 'race_d'::regclass AND action = 'denied'")
[ "$key" = 101 ] || fail "deny: alert names record '$key'"
echo "ok: the refusal's alert names record 101"

race race_l log
alerts=$(q "SELECT string_agg(record_key || ':' || kind, ' ') FROM tapas.alerts WHERE \"table\" = 'race_l'::regclass")
logged=$(q "SELECT count(*) FROM tapas.query_log WHERE tbl = 'race_l'::regclass")
[ "$logged" = 2 ] || fail "log: $logged cells logged (want 2)"
[ "$alerts" = "101:determined" ] || fail "log: alerts '$alerts' (want one on record 101)"
echo "ok: log mode, racing halves: both answered, one alert on record 101"
psql -X -q -d postgres -c "DROP DATABASE $db" || fail "dropdb"
