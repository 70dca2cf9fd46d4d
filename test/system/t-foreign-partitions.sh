#!/usr/bin/env bash
# Foreign partitions (postgres_fdw) fail closed: tapas audits the rows this
# server reads, and a foreign partition's rows, conditions and aggregates
# may be evaluated by another server that does not capture.  Two extra
# local instances hold the remote partitions.  Checked: tapas.protect
# refuses a partitioned table with foreign partitions (and a foreign
# partition on its own); PostgreSQL refuses to create or attach a foreign
# partition under a protected table (its key's unique index); and when a
# DBA drops that index and attaches one anyway, every audited read of the
# table or the partition is refused while admins still read it.
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
for r in 1 2; do
	rdir=remote$r
	instance_start "${!rdir}" >/dev/null || fail "remote instance $r"
	psql -X -q -d postgres -c "CREATE TABLE people_$r (id int PRIMARY KEY, zip int NOT NULL, rare bool NOT NULL);
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
   CREATE TABLE local_people (id int PRIMARY KEY, zip int NOT NULL, rare bool NOT NULL) PARTITION BY RANGE (id);
   CREATE TABLE local_people_2 PARTITION OF local_people FOR VALUES FROM (101) TO (201);
   INSERT INTO local_people SELECT g, g % 10, false FROM generate_series(101, 200) g;
   SELECT tapas.protect('local_people', 'id', ARRAY['rare'], 10);
   CREATE FOREIGN TABLE remote_half (id int NOT NULL, zip int NOT NULL, rare bool NOT NULL)
       SERVER r1 OPTIONS (table_name 'people_1');
   GRANT SELECT ON people, people_1, people_2, local_people, local_people_2, remote_half TO sys_fdw_analyst;" \
	>/dev/null || fail "setup"
expect "both remote servers answer through the foreign partitions" "$(admin "SELECT count(*) FROM people")" 200

expect "protect refuses a partitioned table with foreign partitions" \
	"$(admin "SELECT tapas.protect('people', 'id', ARRAY['rare'], 10)")" 0A000
expect "protect refuses a foreign partition on its own" \
	"$(admin "SELECT tapas.protect('people_1', 'id', ARRAY['rare'], 10)")" 0A000
expect "nothing was protected" "$(admin "SELECT count(*) FROM tapas.protection WHERE relid::text LIKE 'people%'")" 0

expect "a foreign partition cannot be created under a protected table" \
	"$(admin "CREATE FOREIGN TABLE local_people_1 PARTITION OF local_people FOR VALUES FROM (1) TO (101)
	          SERVER r1 OPTIONS (table_name 'people_1')")" 42809
expect "a foreign table cannot be attached to a protected table" \
	"$(admin "ALTER TABLE local_people ATTACH PARTITION remote_half FOR VALUES FROM (1) TO (101)")" 42809
expect "the protected table is audited as before" \
	"$(analyst "SELECT count(*) FILTER (WHERE rare) FROM local_people WHERE zip < 5")" 0

cells() { admin "SELECT count(*) FROM tapas.query_log WHERE tbl = 'local_people'::regclass"; }
before=$(cells)
[ "$before" -gt 0 ] || fail "the audited answer was not logged"

# a DBA drops the key's index and attaches a foreign partition anyway
admin "ALTER TABLE local_people DROP CONSTRAINT local_people_pkey" >/dev/null
expect "with the index gone, the foreign partition attaches" \
	"$(admin "ALTER TABLE local_people ATTACH PARTITION remote_half FOR VALUES FROM (1) TO (101)")" ""
for sql in "SELECT count(*) FILTER (WHERE rare) FROM local_people" \
	"SELECT zip, count(*) FROM local_people GROUP BY zip" \
	"SELECT count(*) FROM local_people WHERE id <= 100" \
	"SELECT count(*) FROM remote_half" \
	"SELECT sum(zip) FROM local_people_2"; do
	expect "audited read fails closed: $sql" "$(analyst "$sql")" 0A000
done
expect "admins still read the table" "$(admin "SELECT count(*) FILTER (WHERE rare) FROM local_people")" 1
expect "nothing was logged for the refused reads" "$(cells)" "$before"

psql -X -q -d postgres -c "DROP DATABASE $db" >/dev/null 2>&1
echo "1 passed, 0 failed"
