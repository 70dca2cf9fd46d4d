#!/usr/bin/env bash
# Key types (issue 12): what a uuid, text or composite key costs against an
# integer key.  The same table of n rows keyed four ways:
#   int    id int                    (the record is the key itself)
#   uuid   id uuid                   (a 64-bit hash of the key: policy/keys.c)
#   text   id text                   ('patient-' || i)
#   comp   (a int, b text)           (i % 100, 'r' || i)
# Audited queries (deny mode, ledger reset before each run):
#   half   SELECT count(*) FROM t WHERE g20 < 10
#   g20    SELECT g20, count(*) FILTER (WHERE rare), sum(income) FROM t GROUP BY g20
# and writes: INSERT of w = n/10 new rows into the protected table (the
# registry trigger of hashed keys) against the same INSERT into an
# unprotected copy.  Medians over interleaved rounds; ratio = key type /
# int key (queries) or protected / unprotected (inserts).
#
# Usage: bash test/bench/keys.sh [n]   (default 100000)
# Environment: ROUNDS (default 5), REPS (default 5).  Starts a private
# instance (tapas installed from this checkout, under the install lock).
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
rounds=${ROUNDS:-5}
reps=${REPS:-5}
n=${1:-100000}
w=$((n / 10))
PGBENCH=${PGBENCH:-$PGBIN/pgbench}
db=tapas_bench_keys
work=$(mktemp -d)
inst=$(mktemp -d /tmp/tapas-bench.XXXXXX)
trap 'rm -rf "$work"; instance_destroy "$inst"' EXIT
make -s -j2 >/dev/null
exec 9>/tmp/tapas-install.lock
flock 9
make -s install >/dev/null
instance_start "$inst" "tapas.max_records = $((4 * n + 100000))" >/dev/null
psql -X -q -d postgres -c "CREATE DATABASE $db"
psql -X -q -v ON_ERROR_STOP=1 -d $db -c "CREATE EXTENSION tapas"
flock -u 9
exec 9>&-
export PGDATABASE=$db
psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE ROLE bench_keys_analyst LOGIN;
ALTER ROLE bench_keys_analyst SET tapas.mode = deny;
CREATE TABLE k_int (id int PRIMARY KEY, g20 int NOT NULL, rare bool NOT NULL, income int NOT NULL);
INSERT INTO k_int SELECT i, i % 20, i % 97 = 0, (i::int8 * 7919 % 100000)::int FROM generate_series(1, $n) i;
CREATE TABLE k_uuid AS SELECT md5('k' || id)::uuid AS id, g20, rare, income FROM k_int;
ALTER TABLE k_uuid ADD PRIMARY KEY (id);
CREATE TABLE k_text AS SELECT 'patient-' || id AS id, g20, rare, income FROM k_int;
ALTER TABLE k_text ADD PRIMARY KEY (id);
CREATE TABLE k_comp AS SELECT id % 100 AS a, 'r' || id AS b, g20, rare, income FROM k_int;
ALTER TABLE k_comp ADD PRIMARY KEY (a, b);
CREATE TABLE k_uuid_u (LIKE k_uuid INCLUDING ALL);
CREATE TABLE k_uuid_p (LIKE k_uuid INCLUDING ALL);
VACUUM ANALYZE k_int, k_uuid, k_text, k_comp;
SELECT tapas.protect('k_int', 'id', ARRAY['rare', 'income'], 10) IS NULL AS p \gset
SELECT tapas.protect('k_uuid', 'id', ARRAY['rare', 'income'], 10) IS NULL AS p \gset
SELECT tapas.protect('k_text', 'id', ARRAY['rare', 'income'], 10) IS NULL AS p \gset
SELECT tapas.protect('k_comp', ARRAY['a', 'b'], ARRAY['rare', 'income'], 10) IS NULL AS p \gset
SELECT tapas.protect('k_uuid_p', 'id', ARRAY['rare', 'income'], 10) IS NULL AS p \gset
GRANT SELECT ON k_int, k_uuid, k_text, k_comp TO bench_keys_analyst;
SQL

latency() {	# latency FILE [ROLE]: average latency in ms of REPS runs
	"$PGBENCH" -n -t "$reps" -c 1 -U "${2:-bench_keys_analyst}" -f "$1" 2>"$work/err" |
		awk '/latency average/ {print $4}'
	if grep -q 'ERROR' "$work/err"; then cat "$work/err" >&2; exit 1; fi
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

kinds="int uuid text comp"
for k in $kinds; do
	echo "SELECT count(*) FROM k_$k WHERE g20 < 10;" >"$work/half.$k.sql"
	echo "SELECT g20, count(*) FILTER (WHERE rare), sum(income) FROM k_$k GROUP BY g20;" >"$work/g20.$k.sql"
	: >"$work/half.$k"; : >"$work/g20.$k"
done
for t in u p; do
	# a fresh registry for the protected copy: each round registers new keys
	[ $t = p ] && echo "DELETE FROM tapas.key_registry WHERE relid = 'k_uuid_p'::regclass;" >"$work/ins.$t.sql"
	[ $t = u ] && : >"$work/ins.$t.sql"
	cat >>"$work/ins.$t.sql" <<SQL
TRUNCATE k_uuid_$t;
INSERT INTO k_uuid_$t SELECT md5('w' || i)::uuid, i % 20, i % 97 = 0, i FROM generate_series(1, $w) i;
SQL
	: >"$work/ins.$t"
done
for r in $(seq "$rounds"); do
	for q in half g20; do
		for k in $kinds; do
			psql -X -q -c "SELECT tapas.reset('k_$k')" >/dev/null
			latency "$work/$q.$k.sql" >>"$work/$q.$k"
		done
	done
	for t in u p; do
		latency "$work/ins.$t.sql" postgres >>"$work/ins.$t"
	done
done
printf "%-6s %-5s %12s %7s\n" query key audited ratio
for q in half g20; do
	base=$(median <"$work/$q.int")
	for k in $kinds; do
		m=$(median <"$work/$q.$k")
		awk -v q="$q" -v k="$k" -v m="$m" -v b="$base" 'BEGIN { printf "%-6s %-5s %9.2f ms %7.2f\n", q, k, m, m / b }'
	done
done
u=$(median <"$work/ins.u")
p=$(median <"$work/ins.p")
awk -v u="$u" -v p="$p" -v w="$w" 'BEGIN {
	printf "insert %d uuid rows: unprotected %.1f ms, protected (registry trigger) %.1f ms, ratio %.2f\n", w, u, p, p / u }'
echo "(n = $n; medians of $rounds interleaved rounds of $reps runs; query ratio = key type / int key)"
