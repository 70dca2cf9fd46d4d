#!/usr/bin/env bash
# ALTER EXTENSION tapas UPDATE from 0.1 gives the same objects as a fresh
# install of the current version (signatures, comments, privileges,
# volatility, aggregate properties), and capture works after it; before
# it, an audited read fails closed with a hint to update.  Usage:
# t-extension-update.sh INSTANCE_DIR (a running instance from test/lib.sh).
set -uo pipefail
dir=$1
cd "$(dirname "$0")/../.."
source test/lib.sh
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres

# the extension's objects, as text, one per line
catalog() {
	psql -X -qAt -v ON_ERROR_STOP=1 -d "$1" <<'SQL'
SELECT pg_describe_object(d.classid, d.objid, 0) || ' | ' ||
       coalesce(obj_description(d.objid, d.classid::regclass::name), '-') || ' | ' ||
       coalesce((SELECT p.provolatile::text || ' ' || p.proparallel::text || ' ' || coalesce(p.proacl::text, '-')
                   FROM pg_proc p WHERE d.classid = 'pg_proc'::regclass AND p.oid = d.objid), '') || ' | ' ||
       coalesce((SELECT a.aggfinalmodify::text || ' ' || a.aggtransspace::text || ' ' || a.aggcombinefn::text ||
                          ' ' || a.aggserialfn::text || ' ' || a.aggdeserialfn::text
                   FROM pg_aggregate a WHERE d.classid = 'pg_proc'::regclass AND a.aggfnoid = d.objid), '') || ' | ' ||
       coalesce((SELECT coalesce(c.relacl::text, '-')
                   FROM pg_class c WHERE d.classid = 'pg_class'::regclass AND c.oid = d.objid), '')
  FROM pg_depend d
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'tapas')
 ORDER BY 1;
SQL
}

for db in tapas_upd_old tapas_upd_new; do
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || fail "createdb $db"
done
psql -X -q -d tapas_upd_new -c "CREATE EXTENSION tapas" || fail "fresh install"
new=$(psql -X -qAt -d tapas_upd_new -c "SELECT extversion FROM pg_extension WHERE extname = 'tapas'")
psql -X -q -d tapas_upd_old -c "CREATE EXTENSION tapas VERSION '0.1'" || fail "install 0.1"

# the 0.1 catalog with the current library: audited reads fail closed
q() { psql -X -qAt -v ON_ERROR_STOP=1 -d tapas_upd_old -c "$1"; }
q "CREATE TABLE t (id int PRIMARY KEY, zip int, hiv bool);
   INSERT INTO t SELECT i, i % 3, i % 5 = 0 FROM generate_series(1, 30) i;
   SELECT tapas.protect('t', 'id', ARRAY['hiv'], 2);
   DO \$\$ BEGIN CREATE ROLE tapas_upd_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$;
   GRANT SELECT ON t TO tapas_upd_analyst" >/dev/null || fail "setup"
err=$(psql -X -qAt -d tapas_upd_old -U tapas_upd_analyst -c "SELECT count(*) FROM t" 2>&1)
echo "$err" | grep -q 'ALTER EXTENSION tapas UPDATE' || fail "0.1 catalog did not fail closed: $err"
echo "ok: a 0.1 catalog fails closed, with the hint to update"

psql -X -q -d tapas_upd_old -c "ALTER EXTENSION tapas UPDATE TO '$new'" || fail "update to $new"
diff <(catalog tapas_upd_old) <(catalog tapas_upd_new) >"$dir/update.diff" ||
	fail "updated catalog differs from a fresh install: $(head -n 20 "$dir/update.diff")"
[ "$(catalog tapas_upd_new | wc -l)" -gt 30 ] || fail "catalog listing is too short to mean anything"
echo "ok: 0.1 updated to $new has the objects of a fresh install"

got=$(psql -X -qAt -d tapas_upd_old -U tapas_upd_analyst -c "SELECT zip, count(*) FROM t GROUP BY zip ORDER BY zip" | tr '\n' ' ')
[ "$got" = "0|10 1|10 2|10 " ] || fail "audited query after update: $got"
[ "$(q "SELECT count(*) FROM tapas.query_matrix('t')")" = 3 ] || fail "cells not logged after update"
[ "$(q "SELECT file_synced_bytes <= file_bytes FROM tapas.ledger_usage()")" = t ] || fail "ledger_usage after update"
echo "ok: capture and the ledger work after the update"

q "SELECT tapas.reset('t')" >/dev/null
psql -X -q -d postgres -c "DROP DATABASE tapas_upd_old" -c "DROP DATABASE tapas_upd_new" \
	-c "DROP ROLE tapas_upd_analyst" || fail "cleanup"
