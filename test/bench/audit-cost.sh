#!/usr/bin/env bash
# Audit cost per answered query at n = 100,000, with 100 and 1,000 logged
# rows for the statistic, through the server: (a) a benign GROUP BY workload
# over quasi-identifiers (14 cells per query), (b) an attack design
# (Bernoulli(1/2) rows, one COUNT each, 10 positives, so OMP runs on every
# answer from m = 133 on).  Each measured query runs with tapas.mode = log
# and, interleaved, with tapas.mode = off (capture, k and the ledger still
# run; only the auditor is skipped): added time = log - off per query, and
# the ratio log / off.  Medians over the measured queries.
# Starts a private instance (tapas installed from this checkout, under the
# machine-wide install lock) unless PGHOST is set.
# Usage: bash test/bench/audit-cost.sh [queries per point, default 20]
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
reps=${1:-20}
if [ -z "${PGHOST:-}" ]; then
	make -s -j2 >/dev/null
	dir=$(mktemp -d /tmp/tapas-bench.XXXXXX)
	trap 'instance_destroy "$dir"' EXIT
	(
		flock 9
		make -s install >/dev/null
		instance_start "$dir" "tapas.ledger_memory = '512MB'" >/dev/null
	) 9>/tmp/tapas-install.lock
	export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres PGDATABASE=postgres
fi
db=tapas_bench_audit
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
export PGDATABASE=$db
psql -X -q -o /dev/null <<'SQL'
CREATE EXTENSION IF NOT EXISTS tapas;
DO $$ BEGIN CREATE ROLE bench_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
SELECT setseed(0.5);
CREATE TABLE bp (id int PRIMARY KEY, sex int NOT NULL, ward int NOT NULL, band int NOT NULL,
				 pos boolean NOT NULL);
INSERT INTO bp SELECT g, g % 2, (g / 2) % 7, (g / 14) % 9, false FROM generate_series(1, 100000) g;
UPDATE bp SET pos = true WHERE id IN (SELECT 1 + floor(random() * 100000)::int FROM generate_series(1, 10));
ANALYZE bp;
SELECT tapas.protect('bp', 'id', ARRAY['pos'], 500);
GRANT SELECT ON bp TO bench_analyst;
CREATE TABLE timings (workload text, logged int, mode text, ms float8);
GRANT ALL ON timings TO bench_analyst;
-- one query of workload w, number i; returns its time in ms
CREATE FUNCTION run(w text, i int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
	g text := (ARRAY['sex, ward', 'ward, sex', 'ward, band'])[1 + i % 3];
BEGIN
	IF w = 'benign' THEN
		EXECUTE format('SELECT %s, count(*) FILTER (WHERE pos) FROM bp WHERE band %s %s GROUP BY %s',
					   g, CASE WHEN i % 2 = 0 THEN '<>' ELSE '<' END, 2 + i % 7, g);
	ELSE
		EXECUTE format('SELECT count(*) FILTER (WHERE pos) FROM bp WHERE tapas.design_member(''bernoulli'', 100000, 80, %s, id, 0, 7)',
					   1 + i % 1647);
	END IF;
	RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END $$;
-- fills the ledger of workload w to at least m logged rows of its statistic
-- (as the analyst, audit off); called by the superuser
CREATE FUNCTION fill(w text, m int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE i int := (SELECT count(*) FROM timings);
BEGIN
	SET tapas.mode = off;
	WHILE (SELECT count(*) FROM tapas.query_log WHERE tbl = 'bp'::regclass
			 AND statistic = 'count(*) filter (where pos)' AND query LIKE
			   CASE WHEN w = 'benign' THEN '%GROUP BY%' ELSE '%bernoulli%' END) < m LOOP
		SET SESSION AUTHORIZATION bench_analyst;
		PERFORM run(w, i);
		RESET SESSION AUTHORIZATION;
		i := i + 1;
	END LOOP;
END $$;
SQL
for w in benign attack; do
	for m in 100 1000; do
		psql -X -q -o /dev/null -c "SELECT fill('$w', $m)"
		psql -X -q -o /dev/null <<SQL
DO \$\$
DECLARE ms float8;
BEGIN
	FOR k IN 1..$reps LOOP
		SET tapas.mode = off;
		SET SESSION AUTHORIZATION bench_analyst;
		ms := run('$w', 1200 + 2 * k);
		RESET SESSION AUTHORIZATION;
		INSERT INTO timings VALUES ('$w', $m, 'off', ms);
		SET tapas.mode = log;
		SET SESSION AUTHORIZATION bench_analyst;
		ms := run('$w', 1201 + 2 * k);
		RESET SESSION AUTHORIZATION;
		INSERT INTO timings VALUES ('$w', $m, 'log', ms);
	END LOOP;
END \$\$;
SQL
	done
done
echo "audit cost per answered query, n = 100,000 ($reps queries per point, medians)"
psql -X -c "
SELECT workload, logged AS logged_rows,
	   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'off')::numeric, 2) AS off_ms,
	   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'log')::numeric, 2) AS log_ms,
	   round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'log')
			- percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'off'))::numeric, 2) AS added_ms,
	   round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'log')
			/ percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'off'))::numeric, 2) AS ratio,
	   round(max(ms) FILTER (WHERE mode = 'log')::numeric, 1) AS max_log_ms
  FROM timings GROUP BY 1, 2 ORDER BY 1 DESC, 2"
psql -X -qAt -c "SELECT 'alerts raised: ' || count(*) FROM tapas.alerts WHERE \"table\"::text = 'bp'"
