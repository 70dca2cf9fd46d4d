#!/usr/bin/env bash
# Capture overhead, end to end: pgbench over a 100,000-row table, the same
# queries on a protected copy (run by an audited role: validation, gate,
# k check, audit, ledger append) and on an unprotected copy, alternating in
# the same run (ROUNDS rounds of SECONDS each, the best round of each kept,
# so that noise from other processes on the machine does not decide).  The
# audited query runs twice: with tapas.ledger_sync = off (the default: the
# record is written before the rows leave, the ledger flusher syncs it) and
# on (an fdatasync per statement; a second role set so by ALTER ROLE).
# Two more queries run on a copy whose rows are stored in random order (as
# after updates), so that the covered keys reach the capture unsorted.
# Prints latencies and the ratios audited / unprotected.
#
# Usage: PGHOST=... PGPORT=... PGUSER=<superuser> bash test/bench/capture-pgbench.sh [seconds] [rounds]
# Needs a server with tapas preloaded and trust (or password-less) login for
# the role bench_tapas_analyst.  Creates and drops its own tables.
set -euo pipefail
secs=${1:-2}
rounds=${2:-5}
PGBENCH=${PGBENCH:-/usr/lib/postgresql/15/bin/pgbench}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS tapas;
DO $$ BEGIN CREATE ROLE bench_tapas_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
DO $$ BEGIN CREATE ROLE bench_tapas_sync LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
ALTER ROLE bench_tapas_analyst RESET ALL;
ALTER ROLE bench_tapas_sync SET tapas.ledger_sync = on;
DROP TABLE IF EXISTS bench_p, bench_u, bench_sp, bench_su;
CREATE TABLE bench_p (id int PRIMARY KEY, grp int NOT NULL, hiv bool NOT NULL);
INSERT INTO bench_p SELECT i, i % 10, i % 97 = 0 FROM generate_series(1, 100000) i;
CREATE TABLE bench_u AS SELECT * FROM bench_p;
ALTER TABLE bench_u ADD PRIMARY KEY (id);
SELECT setseed(0.5);
CREATE TABLE bench_sp AS SELECT * FROM bench_p ORDER BY random();
ALTER TABLE bench_sp ADD PRIMARY KEY (id);
CREATE TABLE bench_su AS SELECT * FROM bench_sp;
ALTER TABLE bench_su ADD PRIMARY KEY (id);
VACUUM ANALYZE bench_p, bench_u, bench_sp, bench_su;
GRANT SELECT ON bench_p, bench_u, bench_sp, bench_su TO bench_tapas_analyst, bench_tapas_sync;
SELECT tapas.protect('bench_p', 'id', ARRAY['hiv'], 10) IS NULL AS protected;
SELECT tapas.protect('bench_sp', 'id', ARRAY['hiv'], 10) IS NULL AS protected;
SQL

latency() {	# latency FILE [ROLE]: average latency in ms of one pgbench run
	"$PGBENCH" -n -T "$secs" -c 1 -U "${2:-bench_tapas_analyst}" -f "$1" 2>/dev/null |
		awk '/latency average/ {print $4}'
}

min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }

for q in count group count-shuffled group-shuffled; do
	case $q in
	count) sql='SELECT count(*) FROM %s WHERE id <= 50000;' u=bench_u p=bench_p ;;
	group) sql='SELECT grp, count(*) FROM %s GROUP BY grp;' u=bench_u p=bench_p ;;
	count-shuffled) sql='SELECT count(*) FROM %s WHERE grp < 5;' u=bench_su p=bench_sp ;;
	group-shuffled) sql='SELECT grp, count(*) FROM %s GROUP BY grp;' u=bench_su p=bench_sp ;;
	esac
	printf "$sql\n" $u >"$dir/u.sql"
	printf "$sql\n" $p >"$dir/p.sql"
	best_u=""
	best_p=""
	best_s=""
	for r in $(seq "$rounds"); do
		psql -X -q -c "SELECT tapas.reset('$p')" >/dev/null
		best_u=$(min "$best_u" "$(latency "$dir/u.sql")")
		best_p=$(min "$best_p" "$(latency "$dir/p.sql")")
		best_s=$(min "$best_s" "$(latency "$dir/p.sql" bench_tapas_sync)")
	done
	awk -v q="$q" -v u="$best_u" -v p="$best_p" -v s="$best_s" 'BEGIN {
		printf "%-14s unprotected %7.3f ms   audited (default) %7.3f ms (ratio %.2f)   with ledger_sync = on %7.3f ms (ratio %.2f)\n",
			q, u, p, p / u, s, s / u }'
done
psql -X -q -c "SELECT tapas.reset('bench_p'), tapas.reset('bench_sp')" \
	-c "DROP TABLE bench_p, bench_u, bench_sp, bench_su" >/dev/null
