#!/usr/bin/env bash
# Alerts of the auditor: NOTIFY tapas_alert carries the id of an alert
# raised by a refused query (whose transaction aborted), and the alerts
# survive a clean restart, a crash of the server and a torn tail of their
# file.  Usage: t-audit-alerts.sh INSTANCE_DIR (a running instance from
# test/lib.sh).
set -uo pipefail
dir=$1
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
db=tapas_audit_sys
file=$dir/data/pg_tapas/alerts.log

alerts() { q "SELECT string_agg(alert_id || ':' || record_key || ':' || kind || ':' || action, ' ' ORDER BY alert_id)
				FROM tapas.alerts WHERE \"table\"::text = 'sys_t'"; }

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || fail "createdb"
q "CREATE EXTENSION IF NOT EXISTS tapas" || fail "extension"
psql -X -q -d "$db" -c "DO \$\$ BEGIN CREATE ROLE regress_tapas_sys LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$" || fail "role"
q "CREATE TABLE sys_t (id int PRIMARY KEY, x int NOT NULL);
   INSERT INTO sys_t SELECT g, g % 13 FROM generate_series(1, 100) g;
   SELECT tapas.protect('sys_t', 'id', ARRAY['x'], 10);
   GRANT SELECT ON sys_t TO regress_tapas_sys" >/dev/null || fail "setup"

# a listener in the same database, waiting while the analyst is refused
psql -X -d "$db" -c "LISTEN tapas_alert" -c "SELECT pg_sleep(3)" -c "SELECT 1" >"$dir/listen.out" 2>&1 &
listener=$!
sleep 0.5
psql -X -q -d "$db" -c "SET tapas.mode = deny" -c "SET SESSION AUTHORIZATION regress_tapas_sys" \
	-c "SELECT sum(x) FROM sys_t WHERE id <= 50" -c "SELECT sum(x) FROM sys_t WHERE id <= 51" \
	>"$dir/analyst.out" 2>&1
grep -q "query refused" "$dir/analyst.out" || { cat "$dir/analyst.out"; fail "not refused"; }
wait $listener
got=$(alerts)
id=${got%%:*}
[ -n "$id" ] || fail "no alert recorded"
grep -q "notification \"tapas_alert\" with payload \"$id\"" "$dir/listen.out" ||
	{ cat "$dir/listen.out"; fail "no NOTIFY with payload $id"; }
echo "ok: NOTIFY tapas_alert '$id' after a refused query"
[ "$got" = "$id:51:determined:denied" ] || fail "alert is '$got'"
grep -q "tapas alert $id: 1 record of table \"sys_t\" in database \"$db\" .*: keys 51\$" "$dir/server.log" ||
	fail "no server-log line"
echo "ok: one server-log line"
[ "$(q "SELECT record_keys::text || ' ' || nrecords || ' ' || database FROM tapas.alerts WHERE alert_id = $id")" = "{51} 1 $db" ] ||
	fail "the alert lists its records: $(q "SELECT record_keys, nrecords, database FROM tapas.alerts WHERE alert_id = $id")"
echo "ok: the alert lists its record and names its database"

# clean restart
instance_restart "$dir" || fail "restart"
wait_ready || fail "not ready"
[ "$(alerts)" = "$got" ] || fail "after restart: '$(alerts)'"
echo "ok: alerts survive a clean restart"

# a second alert, then a crash of the whole server
psql -X -q -d "$db" -c "SET tapas.mode = log" -c "SET SESSION AUTHORIZATION regress_tapas_sys" \
	-c "SELECT sum(x) FROM sys_t WHERE id <= 51" >/dev/null 2>&1 || fail "log-mode query"
got2=$(alerts)
[ "$got2" = "$got $((id + 1)):51:determined:logged" ] || fail "second alert: '$got2'"
pm=$(head -n 1 "$dir/data/postmaster.pid")
kids=$(ps -o pid= --ppid "$pm")
kill -9 "$pm" $kids
for i in $(seq 1 80); do
	kill -0 "$pm" $kids 2>/dev/null || break
	sleep 0.25
done
as_postgres "$PGBIN/pg_ctl" -D "$dir/data" -o "-p $PGPORT" -l "$dir/server.log" -w start >/dev/null || fail "start after crash"
wait_ready || fail "not ready after crash"
[ "$(alerts)" = "$got2" ] || fail "after crash: '$(alerts)'"
echo "ok: alerts survive a crash"

# a torn tail: half a frame of garbage is cut off at startup
head -c 100 /dev/urandom >>"$file"
instance_restart "$dir" || fail "restart"
wait_ready || fail "not ready"
[ "$(alerts)" = "$got2" ] || fail "after torn tail: '$(alerts)'"
grep -q "truncating alert file" "$dir/server.log" || fail "no truncation logged"
echo "ok: a torn tail is cut off"

psql -X -q -d postgres -c "DROP DATABASE $db" >/dev/null
exit 0
