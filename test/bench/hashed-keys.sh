#!/usr/bin/env bash
# Hashed keys (issue 12 item 5, src/policy/keys.c): the same audited
# queries on three protected tables with the same rows, keyed by int, by
# uuid and by text (a uuid or text key is named by a 64-bit hash of its
# binary form, registered in tapas.key_registry), run by an audited role
# in deny mode, at n rows:
#   half    SELECT count(*) FILTER (WHERE rare), sum(income) FROM t WHERE rn <= n/2
#   g20     SELECT g20, count(*) FILTER (WHERE rare), sum(income) FROM t GROUP BY g20
# Each round runs every query REPS times on each table (pgbench -t REPS,
# one client, average latency), the ledger of that table reset before each
# run (so every run's first statement meets n new keys, hashed for uuid and
# text); rounds interleave the tables, and the table shows the median
# latency per key type and the ratio uuid / int and text / int.  Also
# printed: the time of tapas.protect on each table (the uuid and text keys
# are hashed and registered there).
#
# Usage: bash test/bench/hashed-keys.sh [n ...]   (default: 100000)
# Environment: ROUNDS (default 5), REPS (default 3).  Starts a private
# instance (tapas installed from this checkout: into TAPAS_PGROOT's copy of
# PostgreSQL if set, else under the machine-wide install lock) unless
# PGHOST is set.
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
rounds=${ROUNDS:-5}
reps=${REPS:-3}
sizes=${*:-100000}
PGBENCH=${PGBENCH:-$PGBIN/pgbench}
db=tapas_bench_keys
setup_db() {
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
	psql -X -q -v ON_ERROR_STOP=1 -d $db <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS tapas;
DO $$ BEGIN CREATE ROLE bench_keys_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
ALTER ROLE bench_keys_analyst SET tapas.mode = deny;
SQL
}
work=$(mktemp -d)
inst=""
trap 'rm -rf "$work"; [ -n "$inst" ] && instance_destroy "$inst"' EXIT
bench_instance "tapas.ledger_memory = '256MB'" "shared_buffers = '256MB'"
setup_db
bench_unlock
export PGDATABASE=$db

latency() {	# latency FILE: average latency in ms of REPS runs as the analyst
	"$PGBENCH" -n -t "$reps" -c 1 -U bench_keys_analyst -f "$1" 2>"$work/err" |
		awk '/latency average/ {print $4}'
	if grep -q 'ERROR' "$work/err"; then
		cat "$work/err" >&2
		exit 1
	fi
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

seconds() {	# seconds SQL: wall time of one psql -c
	local t0 t1
	t0=$(date +%s.%N)
	psql -X -q -c "$1" >/dev/null
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}

declare -A prot
printf "%-9s %-6s %11s %11s %11s %10s %10s\n" n query int uuid text uuid/int text/int
for n in $sizes; do
	psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS k_int, k_uuid, k_text;
CREATE TABLE k_int (id int PRIMARY KEY, rn int NOT NULL, g20 int NOT NULL,
					rare bool NOT NULL, income int NOT NULL);
INSERT INTO k_int SELECT i, i, i % 20, i % 97 = 0, (i::int8 * 7919 % 100000)::int
  FROM generate_series(1, $n) i;
CREATE TABLE k_uuid (id uuid PRIMARY KEY, rn int NOT NULL, g20 int NOT NULL,
					 rare bool NOT NULL, income int NOT NULL);
INSERT INTO k_uuid SELECT md5('k' || rn)::uuid, rn, g20, rare, income FROM k_int;
CREATE TABLE k_text (id text PRIMARY KEY, rn int NOT NULL, g20 int NOT NULL,
					 rare bool NOT NULL, income int NOT NULL);
INSERT INTO k_text SELECT 'patient-' || rn, rn, g20, rare, income FROM k_int;
VACUUM ANALYZE k_int, k_uuid, k_text;
GRANT SELECT ON k_int, k_uuid, k_text TO bench_keys_analyst;
SQL
	for k in int uuid text; do
		prot[$k]=$(seconds "SELECT tapas.protect('k_$k', 'id', ARRAY['rare', 'income'], 10)")
	done
	for q in half g20; do
		case $q in
		half) sql="SELECT count(*) FILTER (WHERE rare), sum(income) FROM %s WHERE rn <= $((n / 2));" ;;
		g20) sql='SELECT g20, count(*) FILTER (WHERE rare), sum(income) FROM %s GROUP BY g20;' ;;
		esac
		for k in int uuid text; do
			printf "$sql\n" "k_$k" >"$work/$q.$k.sql"
			: >"$work/$q.$k"
		done
	done
	for r in $(seq "$rounds"); do
		for q in half g20; do
			for k in int uuid text; do
				psql -X -q -c "SELECT tapas.reset('k_$k')" >/dev/null
				latency "$work/$q.$k.sql" >>"$work/$q.$k"
			done
		done
	done
	for q in half g20; do
		i=$(median <"$work/$q.int")
		u=$(median <"$work/$q.uuid")
		t=$(median <"$work/$q.text")
		awk -v n="$n" -v q="$q" -v i="$i" -v u="$u" -v t="$t" 'BEGIN {
			printf "%-9s %-6s %8.2f ms %8.2f ms %8.2f ms %10.2f %10.2f\n", n, q, i, u, t, u / i, t / i }'
	done
	printf "%-9s %-6s %9s s %9s s %9s s\n" "$n" protect "${prot[int]}" "${prot[uuid]}" "${prot[text]}"
	psql -X -q -c "SELECT tapas.reset('k_int'), tapas.reset('k_uuid'), tapas.reset('k_text')" \
		-c "DROP TABLE k_int, k_uuid, k_text" >/dev/null
done
echo "(audited role, deny mode; medians of $rounds interleaved rounds of $reps runs each, ledger reset before each run)"
