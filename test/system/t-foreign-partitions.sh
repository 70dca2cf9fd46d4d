#!/usr/bin/env bash
# Foreign partitions (postgres_fdw): a partitioned table whose partitions
# live on two other PostgreSQL servers (two extra local instances) is
# protected and audited like a local one.  Checked: the capture is exact
# (the rows come back to this server, where the Agg and the gate run), a
# difference across the remote halves is refused, the truth is read through
# the FDW, the structure that keeps the key unique is required (partition
# key = record key, an integer key, a unique index on every local leaf),
# the checks resolve no name through the analyst's search_path, and
# every audited statement checks the remote rows (distinct keys, inside the
# partition bound: a remote server enforces neither) and fails closed when
# they break it or the server is down, and a plan that pushes an aggregate
# to the remote server (a plan cached by an admin session, where postgres_fdw
# ships it) is refused.  A foreign table on its own stays unprotectable.
# Usage: t-foreign-partitions.sh INSTANCE_DIR (a running instance from
# test/lib.sh).
set -uo pipefail
dir=$1
cd "$(dirname "$0")/../.."
source test/lib.sh
db=tapas_fdw_sys
remote1=$(mktemp -d /tmp/tapas-fdw1.XXXXXX)
remote2=$(mktemp -d /tmp/tapas-fdw2.XXXXXX)
trap 'instance_destroy "$remote1"; instance_destroy "$remote2"' EXIT

# the remote halves of the people: ids 1-100 and 101-200, person 7 rare
# (the second remote table has no key of its own: the remote server does
# not stop duplicates there)
for r in 1 2; do
	rdir=remote$r
	pk=$([ $r = 1 ] && echo "PRIMARY KEY" || echo "NOT NULL")
	instance_start "${!rdir}" >/dev/null || fail "remote instance $r"
	psql -X -q -d postgres -c "CREATE TABLE people_$r (id int $pk, zip int NOT NULL, rare bool NOT NULL);
		INSERT INTO people_$r SELECT g, g % 10, g = 7 FROM generate_series($((r * 100 - 99)), $((r * 100))) g;" ||
		fail "remote table $r"
done
port1=$(cat "$remote1/port")
port2=$(cat "$remote2/port")
export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres

# analyst SQL: one statement as the audited role in deny mode; prints the
# answer, or the SQLSTATE of the refusal
analyst() {
	psql -X -qAt -d $db -U sys_fdw_analyst -v VERBOSITY=sqlstate -c "$1" 2>&1 | sed 's/^ERROR: *//'
}
# admin SQL: prints the answer, or the SQLSTATE of the error
admin() {
	psql -X -qAt -d $db -v VERBOSITY=sqlstate -c "$1" 2>&1 | sed 's/^ERROR: *//'
}
# SQL on remote instance 1 or 2
remote() {
	local rdir=remote$1
	psql -X -qAt -h "${!rdir}" -p "$(cat "${!rdir}/port")" -d postgres -c "$2"
}
expect() {	# expect WHAT GOT WANT
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
	echo "ok: $1"
}

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
psql -X -q -d postgres -c "CREATE DATABASE $db" || fail "createdb"
q "SET client_min_messages = warning;
   CREATE EXTENSION tapas;
   CREATE EXTENSION postgres_fdw;
   DO \$\$ BEGIN CREATE ROLE sys_fdw_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$;
   ALTER ROLE sys_fdw_analyst SET tapas.mode = deny;
   CREATE SERVER r1 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$remote1', port '$port1', dbname 'postgres');
   CREATE SERVER r2 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$remote2', port '$port2', dbname 'postgres');
   CREATE USER MAPPING FOR PUBLIC SERVER r1 OPTIONS (user 'postgres', password_required 'false');
   CREATE USER MAPPING FOR PUBLIC SERVER r2 OPTIONS (user 'postgres', password_required 'false');
   CREATE TABLE people (id int NOT NULL, zip int NOT NULL, rare bool NOT NULL) PARTITION BY RANGE (id);
   CREATE FOREIGN TABLE people_1 PARTITION OF people FOR VALUES FROM (1) TO (101)
       SERVER r1 OPTIONS (table_name 'people_1');
   CREATE FOREIGN TABLE people_2 PARTITION OF people FOR VALUES FROM (101) TO (201)
       SERVER r2 OPTIONS (table_name 'people_2');
   CREATE TABLE by_zip (id int NOT NULL, zip int NOT NULL, rare bool NOT NULL) PARTITION BY LIST (zip);
   CREATE FOREIGN TABLE by_zip_1 PARTITION OF by_zip FOR VALUES IN (0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
       SERVER r1 OPTIONS (table_name 'people_1');
   CREATE TABLE by_text (name text NOT NULL, zip int NOT NULL, rare bool NOT NULL) PARTITION BY RANGE (name);
   CREATE FOREIGN TABLE by_text_1 PARTITION OF by_text FOR VALUES FROM ('a') TO ('z')
       SERVER r1 OPTIONS (table_name 'people_1');
   CREATE TABLE mixed (id int NOT NULL, zip int NOT NULL, rare bool NOT NULL) PARTITION BY RANGE (id);
   CREATE FOREIGN TABLE mixed_1 PARTITION OF mixed FOR VALUES FROM (1) TO (101)
       SERVER r1 OPTIONS (table_name 'people_1');
   CREATE TABLE mixed_2 PARTITION OF mixed FOR VALUES FROM (101) TO (201);
   INSERT INTO mixed_2 SELECT g, g % 10, false FROM generate_series(101, 200) g;
   GRANT SELECT ON people, people_1, people_2, mixed TO sys_fdw_analyst;" \
	>/dev/null || fail "setup"
expect "both remote servers answer through the foreign partitions" "$(admin "SELECT count(*) FROM people")" 200

expect "protect refuses a foreign partition on its own" \
	"$(admin "SELECT tapas.protect('people_1', 'id', ARRAY['rare'], 10)")" 0A000
expect "protect refuses foreign partitions not partitioned by the key" \
	"$(admin "SELECT tapas.protect('by_zip', 'id', ARRAY['rare'], 10)")" 0A000
expect "protect refuses foreign partitions with a hashed (text) key" \
	"$(admin "SELECT tapas.protect('by_text', 'name', ARRAY['rare'], 10)")" 0A000
expect "protect refuses a local partition without a unique index on the key" \
	"$(admin "SELECT tapas.protect('mixed', 'id', ARRAY['rare'], 10)")" 0A000
admin "ALTER TABLE mixed_2 ADD PRIMARY KEY (id)" >/dev/null
expect "with it, the mixed table is protected" "$(admin "SELECT tapas.protect('mixed', 'id', ARRAY['rare'], 10)")" ""
expect "protect accepts foreign partitions keyed by their partition key" \
	"$(admin "SELECT tapas.protect('people', 'id', ARRAY['rare'], 10)")" ""

# the capture: the Agg and the gate run here, over the rows each server returns
expect "an aggregate over both servers is answered" \
	"$(analyst "SELECT count(*) FILTER (WHERE rare) FROM people WHERE zip < 5")" 0
expect "the total is answered" "$(analyst "SELECT count(*) FILTER (WHERE rare) FROM people")" 1
expect "the difference that isolates person 7 is refused" \
	"$(analyst "SELECT count(*) FILTER (WHERE rare) FROM people WHERE id <> 7")" TP001
expect "a foreign partition's own total is answered" \
	"$(analyst "SELECT count(*) FILTER (WHERE rare) FROM people_1")" 1
expect "its difference is refused, within the partition" \
	"$(analyst "SELECT count(*) FILTER (WHERE rare) FROM people_1 WHERE id <> 7")" TP001
expect "the logged covers hold both servers' records" \
	"$(admin "SELECT max(covered) FROM tapas.query_log WHERE tbl = 'people'::regclass")" 200
expect "groups over both servers are answered" \
	"$(analyst "SELECT count(*) FROM (SELECT zip, count(*) FROM people GROUP BY zip) g")" 10
expect "the mixed table answers over its local and remote rows" \
	"$(analyst "SELECT count(*) FILTER (WHERE rare) FROM mixed")" 1
expect "and refuses its difference" "$(analyst "SELECT count(*) FILTER (WHERE rare) FROM mixed WHERE id <> 7")" TP001
admin "ALTER TABLE mixed_2 DROP CONSTRAINT mixed_2_pkey" >/dev/null
expect "a local partition whose unique index was dropped fails the audited read" \
	"$(analyst "SELECT count(*) FILTER (WHERE rare) FROM mixed WHERE zip < 5")" 0A000
admin "ALTER TABLE mixed_2 ADD PRIMARY KEY (id)" >/dev/null

# the checks run as the owner with tapas's hooks aside: no name in them may
# resolve to the analyst's own functions or operators through search_path
q "CREATE SCHEMA IF NOT EXISTS fdw_mal AUTHORIZATION sys_fdw_analyst" >/dev/null
got=$(psql -X -qAt -d $db -U sys_fdw_analyst -v VERBOSITY=sqlstate 2>&1 <<'SQL'
CREATE FUNCTION fdw_mal.hashtextextended(text, bigint) RETURNS bigint LANGUAGE plpgsql AS
  $$ BEGIN RAISE NOTICE 'hijacked: %', $1; RETURN 0; END $$;
CREATE FUNCTION fdw_mal.ge(int, int) RETURNS bool LANGUAGE plpgsql AS
  $$ BEGIN RAISE NOTICE 'hijacked: %', $1; RETURN $1 OPERATOR(pg_catalog.>=) $2; END $$;
CREATE OPERATOR fdw_mal.>= (LEFTARG = int, RIGHTARG = int, FUNCTION = fdw_mal.ge);
SET search_path = fdw_mal, pg_catalog, public;
SELECT count(*) FILTER (WHERE rare) FROM people WHERE zip < 7;
SQL
)
expect "the analyst's functions and operators are not called by the checks" "$got" 0

# every audited statement checks the remote rows: a duplicate key or a row
# outside the bound fails it closed, until the remote table is repaired
remote 2 "INSERT INTO people_2 VALUES (150, 0, false)"
expect "a duplicate key on a remote server fails the audited read" \
	"$(analyst "SELECT count(*) FILTER (WHERE rare) FROM people WHERE zip < 5")" 23505
expect "admins still read the table" "$(admin "SELECT count(*) FROM people")" 201
remote 2 "DELETE FROM people_2 WHERE ctid = (SELECT max(ctid) FROM people_2 WHERE id = 150)"
remote 2 "INSERT INTO people_2 VALUES (50, 0, false)"
expect "a row outside its partition's bound fails the audited read" \
	"$(analyst "SELECT zip, count(*) FROM people GROUP BY zip LIMIT 1")" 23514
remote 2 "DELETE FROM people_2 WHERE id = 50"
expect "repaired, the table is audited again" \
	"$(analyst "SELECT count(*) FILTER (WHERE rare) FROM people WHERE zip < 5")" 0

# a remote server that is down fails the statement, it is never skipped
instance_stop "$remote2"
got=$(analyst "SELECT count(*) FILTER (WHERE rare) FROM people WHERE zip < 5")
case "$got" in 08*) echo "ok: a remote server that is down fails the audited read ($got)" ;;
	*) fail "remote server down: got '$got', want a connection error" ;; esac
instance_start "$remote2" >/dev/null || fail "restart remote 2"
port2=$(cat "$remote2/port")
export PGHOST=$dir PGPORT=$(cat "$dir/port")
admin "ALTER SERVER r2 OPTIONS (SET port '$port2')" >/dev/null

# postgres_fdw ships an aggregate when the server lists tapas among its
# extensions; an admin session plans one (no gate), the audited session
# that runs the cached plan is refused
admin "ALTER SERVER r1 OPTIONS (ADD extensions 'tapas')" >/dev/null
got=$(psql -X -qAt -d $db -v VERBOSITY=sqlstate 2>&1 <<'SQL' | tail -1 | sed 's/^ERROR: *//'
PREPARE pushed AS SELECT zip, count(*) FROM people_1 GROUP BY zip;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE pushed;
SET SESSION AUTHORIZATION sys_fdw_analyst;
EXECUTE pushed;
SQL
)
expect "a cached plan that aggregates on the remote server is refused" "$got" 0A000
admin "ALTER SERVER r1 OPTIONS (DROP extensions)" >/dev/null

cells() { admin "SELECT count(*) FROM tapas.query_log WHERE tbl = 'people'::regclass"; }
before=$(cells)
[ "$before" -gt 0 ] || fail "the audited answers were not logged"
expect "the audited role still cannot read rows" "$(analyst "SELECT id FROM people WHERE rare")" 42501
expect "nothing was logged for the refused reads" "$(cells)" "$before"

psql -X -q -d postgres -c "DROP DATABASE $db" >/dev/null 2>&1
echo "1 passed, 0 failed"
