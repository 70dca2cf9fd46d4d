#!/usr/bin/env bash
# The ledger is keyed by (database, table): two databases created from one
# template protect a table with the same OID, and answers in one do not
# count in the other (a difference attack split across them is answered;
# within one database it is refused), tapas.reset in one leaves the other's
# trail, the views show the current database's cells, alerts name their
# database, and all of it survives a restart (replay of the version 2
# file).  Usage: t-ledger-databases.sh INSTANCE_DIR (a running instance
# from test/lib.sh).
set -uo pipefail
dir=$1
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
tmpl=tapas_db_tmpl
a=tapas_db_a
b=tapas_db_b

# qd DB SQL: one statement in DB as the admin
qd() { psql -X -qAt -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }
# analyst DB SQL: one statement in DB as the audited role in deny mode;
# prints the answer, or the SQLSTATE of the refusal
analyst() {
	psql -X -qAt -d "$1" -U sys_db_analyst -v VERBOSITY=sqlstate \
		-c "SET client_min_messages = error" -c "$2" 2>&1 | sed 's/^ERROR: *//'
}
cells() { qd "$1" "SELECT count(*) FROM tapas.query_log WHERE tbl = 't'::regclass"; }

for d in $a $b $tmpl; do
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $d" >/dev/null 2>&1
done
psql -X -q -d postgres -c "CREATE DATABASE $tmpl" || fail "createdb template"
qd $tmpl "SET client_min_messages = warning;
   CREATE EXTENSION tapas;
   DO \$\$ BEGIN CREATE ROLE sys_db_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$;
   ALTER ROLE sys_db_analyst SET tapas.mode = deny;
   CREATE TABLE t (id int PRIMARY KEY, x int NOT NULL);
   INSERT INTO t SELECT g, g % 13 FROM generate_series(1, 100) g;
   GRANT SELECT ON t TO sys_db_analyst;
   SELECT tapas.protect('t', 'id', ARRAY['x'], 10);" >/dev/null || fail "setup"
psql -X -q -d postgres -c "CREATE DATABASE $a TEMPLATE $tmpl" -c "CREATE DATABASE $b TEMPLATE $tmpl" ||
	fail "createdb from template"
oa=$(qd $a "SELECT 't'::regclass::oid")
ob=$(qd $b "SELECT 't'::regclass::oid")
[ "$oa" = "$ob" ] || fail "the template copies should share the table OID ($oa, $ob)"

# the first half of a difference in a, the second in b: both answered
r=$(analyst $a "SELECT sum(x) FROM t WHERE id <= 50")
[[ "$r" =~ ^[0-9]+$ ]] || fail "first query in $a: $r"
r=$(analyst $b "SELECT sum(x) FROM t WHERE id <= 51")
[[ "$r" =~ ^[0-9]+$ ]] || fail "an answer in $a counted in $b: $r"
[ "$(cells $a)" = 1 ] && [ "$(cells $b)" = 1 ] || fail "cells per database: $(cells $a) $(cells $b)"

# within a, the second half isolates record 51: refused
r=$(analyst $a "SELECT sum(x) FROM t WHERE id <= 51")
[ "$r" = TP001 ] || fail "difference within $a should be refused, got: $r"
[ "$(cells $a)" = 1 ] || fail "a refused answer was logged in $a"

# the alert names its database and table, seen from either database
al=$(qd $a "SELECT database || '|' || \"table\"::text || '|' || table_name || '|' || role
			 FROM tapas.alerts WHERE database = '$a' ORDER BY alert_id DESC LIMIT 1")
[ "$al" = "$a|t|t|sys_db_analyst" ] || fail "alert seen from $a: $al"
al=$(qd $b "SELECT database || '|' || coalesce(\"table\"::text, '-') || '|' || table_name
			 FROM tapas.alerts WHERE database = '$a' ORDER BY alert_id DESC LIMIT 1")
[ "$al" = "$a|-|table OID $oa of database $a" ] || fail "alert seen from $b: $al"
grep -q "of table \"t\" in database \"$a\"" "$dir/server.log" || fail "server log line names no database"

# b's trail is its own too: the same difference in b is refused there
r=$(analyst $b "SELECT sum(x) FROM t WHERE id <= 50")
[ "$r" = TP001 ] || fail "difference within $b should be refused, got: $r"

# restart: replay keeps the databases apart
instance_restart "$dir" || fail "restart"
db=$a wait_ready || fail "not ready after restart"
[ "$(cells $a)" = 1 ] && [ "$(cells $b)" = 1 ] || fail "after restart: $(cells $a) $(cells $b)"

# reset in a removes a's cell only; b still refuses its difference
[ "$(qd $a "SELECT tapas.reset('t')")" = 1 ] || fail "reset in $a"
[ "$(cells $a)" = 0 ] && [ "$(cells $b)" = 1 ] || fail "after reset in $a: $(cells $a) $(cells $b)"
r=$(analyst $a "SELECT sum(x) FROM t WHERE id <= 51")
[[ "$r" =~ ^[0-9]+$ ]] || fail "after reset, $a should answer: $r"
r=$(analyst $b "SELECT sum(x) FROM t WHERE id <= 50")
[ "$r" = TP001 ] || fail "reset in $a erased $b's trail: $r"
[ "$(qd $b "SELECT count(*) FROM tapas.query_matrix('t')")" = 1 ] || fail "query_matrix in $b"

for d in $a $b; do psql -X -q -d postgres -c "DROP DATABASE $d" >/dev/null 2>&1; done
psql -X -q -d postgres -c "DROP DATABASE $tmpl" >/dev/null 2>&1
echo "1 passed, 0 failed"
