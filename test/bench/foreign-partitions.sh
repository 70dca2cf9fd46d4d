#!/usr/bin/env bash
# Foreign partitions (issue 12 item 5, src/policy/foreign_leaves.c): the
# cost of auditing a partitioned table whose half lives on another server
# (postgres_fdw, one extra local instance), against the same rows in a
# local partitioned table, both protected, and against the same query on
# the foreign table by an admin (not audited).  Queries, at n rows:
#   half    SELECT count(*) FILTER (WHERE rare), sum(income) FROM t WHERE rn <= n/2
#   g20     SELECT g20, count(*) FILTER (WHERE rare), sum(income) FROM t GROUP BY g20
# Each round runs every query REPS times per table (pgbench -t REPS, one
# client, average latency, the ledger reset before each run); rounds
# interleave the tables; printed: medians and the ratios foreign / local
# (what the remote rows, the per-statement check of the remote rows and the
# truth read through the FDW add to an audited query) and foreign audited
# / foreign admin (what the audit adds on the foreign table itself).
#
# Usage: bash test/bench/foreign-partitions.sh [n ...]   (default: 100000)
# Environment: ROUNDS (default 5), REPS (default 3).  Starts a private
# instance and a remote one (tapas installed from this checkout: into
# TAPAS_PGROOT's copy of PostgreSQL if set, else under the install lock).
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
rounds=${ROUNDS:-5}
reps=${REPS:-3}
sizes=${*:-100000}
PGBENCH=${PGBENCH:-$PGBIN/pgbench}
db=tapas_bench_fdw
work=$(mktemp -d)
inst=""
remote=$(mktemp -d /tmp/tapas-bench-remote.XXXXXX)
trap 'rm -rf "$work"; [ -n "$inst" ] && instance_destroy "$inst"; instance_destroy "$remote"' EXIT
unset PGHOST
bench_instance "tapas.ledger_memory = '256MB'" "shared_buffers = '256MB'"
bench_unlock
local_host=$PGHOST local_port=$PGPORT
instance_start "$remote" >/dev/null
remote_port=$(cat "$remote/port")
export PGHOST=$local_host PGPORT=$local_port
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
export PGDATABASE=$db
psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION tapas;
CREATE EXTENSION postgres_fdw;
DO \$\$ BEGIN CREATE ROLE bench_fdw_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$;
ALTER ROLE bench_fdw_analyst SET tapas.mode = deny;
CREATE SERVER remote FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '$remote', port '$remote_port', dbname 'postgres', fetch_size '10000');
CREATE USER MAPPING FOR PUBLIC SERVER remote OPTIONS (user 'postgres', password_required 'false');
SQL

latency() {	# latency FILE ROLE: average latency in ms of REPS runs
	"$PGBENCH" -n -t "$reps" -c 1 -U "$2" -f "$1" 2>"$work/err" | awk '/latency average/ {print $4}'
	if grep -q 'ERROR' "$work/err"; then
		cat "$work/err" >&2
		exit 1
	fi
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf "%-9s %-6s %14s %14s %14s %14s %16s\n" n query local foreign "foreign admin" foreign/local "audited/admin"
for n in $sizes; do
	h=$((n / 2))
	psql -X -q -v ON_ERROR_STOP=1 -h "$remote" -p "$remote_port" -d postgres <<SQL
DROP TABLE IF EXISTS f_1;
CREATE TABLE f_1 (id int PRIMARY KEY, rn int NOT NULL, g20 int NOT NULL, rare bool NOT NULL, income int NOT NULL);
INSERT INTO f_1 SELECT i, i, i % 20, i % 97 = 0, (i::int8 * 7919 % 100000)::int FROM generate_series(1, $h) i;
ANALYZE f_1;
SQL
	psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS t_local, t_foreign;
CREATE TABLE t_local (id int NOT NULL, rn int NOT NULL, g20 int NOT NULL, rare bool NOT NULL,
					  income int NOT NULL, PRIMARY KEY (id)) PARTITION BY RANGE (id);
CREATE TABLE t_local_1 PARTITION OF t_local FOR VALUES FROM (1) TO ($h + 1);
CREATE TABLE t_local_2 PARTITION OF t_local FOR VALUES FROM ($h + 1) TO ($n + 1);
INSERT INTO t_local SELECT i, i, i % 20, i % 97 = 0, (i::int8 * 7919 % 100000)::int FROM generate_series(1, $n) i;
CREATE TABLE t_foreign (id int NOT NULL, rn int NOT NULL, g20 int NOT NULL, rare bool NOT NULL,
						income int NOT NULL) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE t_foreign_1 PARTITION OF t_foreign FOR VALUES FROM (1) TO ($h + 1)
	SERVER remote OPTIONS (table_name 'f_1');
CREATE TABLE t_foreign_2 PARTITION OF t_foreign (PRIMARY KEY (id)) FOR VALUES FROM ($h + 1) TO ($n + 1);
INSERT INTO t_foreign_2 SELECT * FROM t_local_2;
ANALYZE t_local, t_foreign_2;
SELECT tapas.protect('t_local', 'id', ARRAY['rare', 'income'], 10);
SELECT tapas.protect('t_foreign', 'id', ARRAY['rare', 'income'], 10);
GRANT SELECT ON t_local, t_foreign TO bench_fdw_analyst;
SQL
	for t in t_local t_foreign; do
		echo "SELECT count(*) FILTER (WHERE rare), sum(income) FROM $t WHERE rn <= $h;" >"$work/half.$t.sql"
		echo "SELECT g20, count(*) FILTER (WHERE rare), sum(income) FROM $t GROUP BY g20;" >"$work/g20.$t.sql"
	done
	for query in half g20; do
		: >"$work/l" && : >"$work/f" && : >"$work/a"
		for r in $(seq "$rounds"); do
			psql -X -q -c "SELECT tapas.reset('t_local'), tapas.reset('t_foreign')" >/dev/null
			latency "$work/$query.t_local.sql" bench_fdw_analyst >>"$work/l"
			latency "$work/$query.t_foreign.sql" bench_fdw_analyst >>"$work/f"
			latency "$work/$query.t_foreign.sql" postgres >>"$work/a"
		done
		l=$(median <"$work/l") f=$(median <"$work/f") a=$(median <"$work/a")
		printf "%-9s %-6s %11.2f ms %11.2f ms %11.2f ms %14.2f %16.2f\n" "$n" "$query" "$l" "$f" "$a" \
			"$(awk -v x="$f" -v y="$l" 'BEGIN { print x / y }')" "$(awk -v x="$f" -v y="$a" 'BEGIN { print x / y }')"
	done
done
