#!/usr/bin/env bash
# Refusal details stay on the server (issue 10, class 7): an audited
# analyst at client_min_messages = debug5 receives, in deny, log and warn
# mode, no line naming the isolated record's key or the method that found
# it, while the server log and tapas.alerts hold both; and the analyst
# cannot LISTEN to tapas_alert.  Usage: t-refusal-details.sh INSTANCE_DIR
# (a running instance from test/lib.sh).
set -uo pipefail
dir=$1
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
db=tapas_details_sys

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || fail "createdb"
q "CREATE EXTENSION IF NOT EXISTS tapas" || fail "extension"
psql -X -q -d "$db" -c "DO \$\$ BEGIN CREATE ROLE regress_tapas_sys LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$" || fail "role"
# keys 70001.. so that a key is not a number printed for other reasons
q "CREATE TABLE det_t (id int PRIMARY KEY, x int NOT NULL);
   INSERT INTO det_t SELECT 70000 + g, g % 13 FROM generate_series(1, 100) g;
   SELECT tapas.protect('det_t', 'id', ARRAY['x'], 10);
   GRANT SELECT ON det_t TO regress_tapas_sys" >/dev/null || fail "setup"

# analyst MODE LOW: a difference attack on record LOW + 1, everything the
# client receives at debug5 in $dir/details.out
attack() {
	psql -X -d "$db" -c "SET tapas.mode = $1" -c "SET SESSION AUTHORIZATION regress_tapas_sys" \
		-c "SET client_min_messages = debug5" \
		-c "SELECT sum(x) FROM det_t WHERE id <= $2" -c "SELECT sum(x) FROM det_t WHERE id <= $(($2 + 1))" \
		>"$dir/details.out" 2>&1
}
# what the client received must not name the record, a method or an alert
check_client() {
	local key=$1 mode=$2
	[ "$(q "SELECT count(*) FROM tapas.alerts WHERE \"table\"::text = 'det_t' AND record_key = $key")" -ge 1 ] ||
		{ cat "$dir/details.out"; fail "$mode: no alert on record $key"; }
	grep -qE "tapas alert [0-9]+: .*keys .*\b$key\b" "$dir/server.log" || fail "$mode: no server-log line for $key"
	if grep -nE "\b$key\b|tapas alert|alerts [0-9]+\.\.|difference|determined by|rowspace|row-space" "$dir/details.out"; then
		fail "$mode: the client received refusal details"
	fi
	echo "ok: $mode mode, client_min_messages = debug5: record $key and its method stay on the server"
}

attack deny 70050
grep -q "query refused" "$dir/details.out" || { cat "$dir/details.out"; fail "deny: not refused"; }
check_client 70051 deny
attack log 70060
check_client 70061 log
attack warn 70070
grep -q "isolates a record" "$dir/details.out" || { cat "$dir/details.out"; fail "warn: no warning"; }
check_client 70071 warn

out=$(psql -X -d "$db" -c "SET SESSION AUTHORIZATION regress_tapas_sys" -c "LISTEN tapas_alert" 2>&1)
grep -q "audited roles cannot listen to tapas alerts" <<<"$out" || { echo "$out"; fail "LISTEN allowed"; }
echo "ok: audited roles cannot LISTEN tapas_alert"

psql -X -q -d postgres -c "DROP DATABASE $db" || fail "dropdb"
