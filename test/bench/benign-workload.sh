#!/usr/bin/env bash
# A benign workload (issue 12 item 3): STATEMENTS GROUP BY statements over
# quasi-identifiers of an n-row table, each with count(*) FILTER (WHERE
# sick) and sum(income), grouping by one or two of age band, sex, region,
# education, on a random range of another, run by an audited role in deny
# mode on the protected table, and by the same role on an unprotected copy.
# Prints the refusals (TP001 isolation, TP004 incomplete audit, TP003 a
# full ledger or role quota, TP002 a group below k, which is not a false
# refusal), the total time of each side and their ratio, the analyst
# backend's peak RSS (VmHWM; at the end also its private memory and the
# shared memory it touched: the ledger's covers and key hash, shared
# buffers, which any backend that logs or scans them maps), and the ledger's
# cells and bytes per cell (the growth of tapas.ledger_usage() over the
# workload: covers, cell headers, query texts), and the time of the first
# statement of a new analyst backend after the workload (issue 12 item 4:
# its audit state is rebuilt from the ledger).  The unprotected side runs before and after the
# protected one and its mean is the baseline (one session per side, so the
# audited session keeps its audit state, as an analyst's would).
#
# --cross: the first statement is GROUP BY zip (n / 100 zip codes, which
# the regions, age bands and the rest do not nest), so that every later
# statement's groups cross the zips' groups (issue 12 item 3: crossings of
# resolved blocks, src/recon/rowspace_resolved.c).
#
# Usage: bash test/bench/benign-workload.sh [--cross] [n [statements]]
#        (default 1000000 1000, several minutes: not in CI; 100000 200 is quick)
# Starts a private instance (tapas installed from this checkout: into
# TAPAS_PGROOT's copy of PostgreSQL if set, else under the machine-wide
# install lock) unless PGHOST is set.
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
cross=0
if [ "${1:-}" = --cross ]; then cross=1; shift; fi
n=${1:-1000000}
stmts=${2:-1000}
db=tapas_bench_benign
work=$(mktemp -d)
inst=""
trap 'rm -rf "$work"; [ -n "$inst" ] && instance_destroy "$inst"' EXIT
setup_db() {
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
	psql -X -q -v ON_ERROR_STOP=1 -d $db <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS tapas;
DO $$ BEGIN CREATE ROLE bench_benign_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
ALTER ROLE bench_benign_analyst SET tapas.mode = deny;
SQL
}
if [ -z "${PGHOST:-}" ]; then
	make -s -j2 >/dev/null
	inst=$(mktemp -d /tmp/tapas-bench.XXXXXX)
	# the extension's files must not change between install and CREATE
	# EXTENSION: a shared installation is locked, TAPAS_PGROOT's is private
	exec 9>/tmp/tapas-install.lock
	[ -n "${TAPAS_PGROOT:-}" ] || flock 9
	tapas_install
	# one analyst: no per-role quota (0; the default -1 is a quarter of
	# tapas.ledger_memory, and refused the end of the workload with TP003)
	instance_start "$inst" "tapas.ledger_memory = '1GB'" "tapas.ledger_max_cells = 1000000" \
		"tapas.ledger_memory_per_role = 0" "shared_buffers = '256MB'" >/dev/null
	setup_db
	flock -u 9
	exec 9>&-
else
	setup_db
fi
export PGDATABASE=$db

psql -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
SELECT setseed(0.12) \\gset
CREATE TABLE b_p (id int PRIMARY KEY, age int NOT NULL, sex int NOT NULL, region int NOT NULL,
				  edu int NOT NULL, income int NOT NULL, sick bool NOT NULL, zip int NOT NULL);
-- zip takes no random() draw, so the other columns are those of earlier runs
INSERT INTO b_p SELECT i, 18 + floor(random() * 72)::int, floor(random() * 2)::int,
	   floor(random() * 8)::int, floor(random() * 4)::int,
	   20000 + floor(random() * 80000)::int, random() < 0.1,
	   (i::bigint * 7919) % greatest($n / 100, 1)
  FROM generate_series(1, $n) i;
CREATE TABLE b_u AS SELECT * FROM b_p;
VACUUM ANALYZE b_p, b_u;
SELECT tapas.protect('b_p', 'id', ARRAY['income', 'sick'], 10) IS NULL AS protected \\gset
GRANT SELECT ON b_p, b_u TO bench_benign_analyst;
SQL

# the workload: one GROUP BY per line, %s for the table
python3 - "$stmts" "$cross" >"$work/w.txt" <<'PY'
import random, sys
random.seed(12)
if sys.argv[2] == '1':
    print("SELECT zip, count(*) FILTER (WHERE sick), sum(income) FROM %s GROUP BY zip;")
groups = ['age / 10', 'sex', 'region', 'edu', 'sex, edu', 'region, sex', 'edu, age / 10', 'region, edu']
ranges = [('age', 18, 89), ('region', 0, 7), ('edu', 0, 3)]
for _ in range(int(sys.argv[1])):
    g = random.choice(groups)
    col, lo, hi = random.choice(ranges)
    a = random.randint(lo, hi)
    b = random.randint(a, hi)
    print(f"SELECT {g}, count(*) FILTER (WHERE sick), sum(income) FROM %s WHERE {col} BETWEEN {a} AND {b} GROUP BY {g};")
PY
sed 's/%s/b_u/' "$work/w.txt" >"$work/u.sql"
{
	echo '\set ON_ERROR_STOP off'
	echo '\set VERBOSITY sqlstate'
	sed 's/%s/b_p/' "$work/w.txt"
	echo 'SELECT pg_backend_pid() AS pid \gset'
	echo '\setenv PID :pid'
	echo '\! grep -E "VmHWM|RssAnon|RssShmem" /proc/$PID/status'
} >"$work/p.sql"

run() {	# run FILE: seconds
	local t0 t1
	t0=$(date +%s.%N)
	psql -X -q -U bench_benign_analyst -f "$1" >"$2" 2>&1 || true
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}
before=$(psql -X -qAt -c "SELECT cells, memory_used FROM tapas.ledger_usage()")
u1=$(run "$work/u.sql" "$work/u1.out")
p=$(run "$work/p.sql" "$work/p.out")
u2=$(run "$work/u.sql" "$work/u2.out")
tp001=$(grep -c 'TP001' "$work/p.out" || true)
tp004=$(grep -c 'TP004' "$work/p.out" || true)
tp002=$(grep -c 'TP002' "$work/p.out" || true)
tp003=$(grep -c 'TP003' "$work/p.out" || true)
other=$(grep 'ERROR' "$work/p.out" | grep -v -c 'TP00[1234]' || true)
hwm=$(awk '/VmHWM/ {print $2}' "$work/p.out")
anon=$(awk '/RssAnon/ {print $2}' "$work/p.out")
shmem=$(awk '/RssShmem/ {print $2}' "$work/p.out")
# the first statement of a new backend (its audit state is rebuilt from the ledger)
head -n 1 "$work/w.txt" | sed 's/%s/b_u/' >"$work/first.u.sql"
head -n 1 "$work/w.txt" | sed 's/%s/b_p/' >"$work/first.p.sql"
f_u=$(run "$work/first.u.sql" "$work/fu.out")
f_p=$(run "$work/first.p.sql" "$work/fp.out")
after=$(psql -X -qAt -c "SELECT cells, memory_used FROM tapas.ledger_usage()")
IFS='|' read -r cells0 mem0 <<<"$before"
IFS='|' read -r cells1 mem1 <<<"$after"
cells=$((cells1 - cells0))
mem=$((mem1 - mem0))
awk -v n="$n" -v s="$stmts" -v u1="$u1" -v u2="$u2" -v p="$p" -v t1="$tp001" -v t4="$tp004" \
	-v t2="$tp002" -v t3="$tp003" -v o="$other" -v hwm="$hwm" -v anon="$anon" -v shm="$shmem" -v cells="$cells" -v mem="$mem" \
	-v fu="$f_u" -v fp="$f_p" -v cross="$cross" 'BEGIN {
	u = (u1 + u2) / 2
	printf "n %d, %d statements%s: refusals TP001 %d, TP004 %d, TP003 %d (TP002 group below k: %d, other errors %d)\n", n, s, cross ? " after GROUP BY zip (--cross)" : "", t1, t4, t3, t2, o
	printf "time: unprotected %.2f s (%.2f, %.2f), audited %.2f s, ratio %.2f\n", u, u1, u2, p, p / u
	printf "analyst backend peak RSS %.0f MB (at the end: private %.0f MB, shared memory touched %.0f MB); ledger %d cells, %.0f bytes per cell\n", hwm / 1024, anon / 1024, shm / 1024, cells, cells ? mem / cells : 0
	printf "first statement of a new backend after the workload (psql start included): audited %.2f s, unprotected %.2f s\n", fp, fu
}'
if [ "$other" -gt 0 ]; then grep 'ERROR' "$work/p.out" | grep -v 'TP00[1234]' | sort | uniq -c | head -5; fi
