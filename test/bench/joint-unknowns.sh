#!/usr/bin/env bash
# The joint system's bound on unknowns (tapas.audit_joint_max_unknowns):
# at n = 100,000, a split workload (each Bernoulli attack row asked as the
# two halves pos AND inc > t, pos AND NOT inc > t, with t among R
# thresholds) puts the halves in one group of related classes of R + 1
# regions, (R + 1) n unknowns.  Two tables with the same rows, the same
# cells logged on each (audit off), then per statement, interleaved, in
# deny mode: table a under the default bound (2^21, the baseline: the
# group fails closed above about 20 regions) and table b under a raised
# one (2^24): medians, outcomes, and the ratio b / a.
# Starts a private instance (tapas installed into TAPAS_PGROOT's copy of
# PostgreSQL if set, else under the machine-wide install lock) unless
# PGHOST is set.
# Usage: bash test/bench/joint-unknowns.sh [statements per point, default 9
#        [thresholds R, default 32 [logged cells, default 300]]]
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
reps=${1:-9}
nthr=${2:-32}
cells=${3:-300}
if [ -z "${PGHOST:-}" ]; then
	make -s -j2 >/dev/null
	dir=$(mktemp -d /tmp/tapas-bench.XXXXXX)
	trap 'instance_destroy "$dir"' EXIT
	if [ -n "${TAPAS_PGROOT:-}" ]; then
		tapas_install
		instance_start "$dir" "tapas.ledger_memory = '512MB'" >/dev/null
	else
		(
			flock 9
			make -s install >/dev/null
			instance_start "$dir" "tapas.ledger_memory = '512MB'" >/dev/null
		) 9>/tmp/tapas-install.lock
	fi
	export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres
fi
db=tapas_bench_unknowns
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
export PGDATABASE=$db
psql -X -q -o /dev/null -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
CREATE EXTENSION tapas;
DO \$\$ BEGIN CREATE ROLE bench_unknowns LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$;
SELECT setseed(0.5);
CREATE TABLE ju_a (id int PRIMARY KEY, pos boolean NOT NULL, inc int NOT NULL);
INSERT INTO ju_a SELECT g, false, 1000 + (g * 37) % 5000 FROM generate_series(1, 100000) g;
UPDATE ju_a SET pos = true WHERE id IN (SELECT 1 + floor(random() * 100000)::int FROM generate_series(1, 10));
CREATE TABLE ju_b AS SELECT * FROM ju_a;
ALTER TABLE ju_b ADD PRIMARY KEY (id);
SELECT tapas.protect(t, 'id', ARRAY['pos', 'inc'], 500) FROM unnest(ARRAY['ju_a', 'ju_b']::regclass[]) t;
GRANT SELECT ON ju_a, ju_b TO bench_unknowns;
CREATE TABLE timings (tbl text, ms float8, outcome text);
-- statement i of the split workload on table tbl: (ms, outcome)
CREATE FUNCTION run(tbl text, i int, OUT ms float8, OUT outcome text) LANGUAGE plpgsql AS \$f\$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	outcome := 'answered';
	SET SESSION AUTHORIZATION bench_unknowns;
	BEGIN
		EXECUTE format('SELECT count(*) FILTER (WHERE pos AND %s inc > %s) FROM %I WHERE tapas.design_member(''bernoulli'', 100000, 80, %s, id, 0, 7)',
					   CASE WHEN i % 2 = 0 THEN '' ELSE 'NOT' END, 1500 + (3000 / $nthr) * ((i / 2) % $nthr),
					   tbl, 1 + (i / 2) % 1647);
	EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
		outcome := SQLSTATE;
	END;
	RESET SESSION AUTHORIZATION;
	ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
END \$f\$;
SQL
# the same cells logged on both tables, audit off
psql -X -q -o /dev/null -v ON_ERROR_STOP=1 <<SQL
SET tapas.mode = off;
SELECT count(run(t, i)::text) FROM generate_series(0, $cells - 1) i, unnest(ARRAY['ju_a', 'ju_b']) t;
SQL
# one backend: the first statement of each table (its rebuild from the
# ledger) apart, then interleaved
psql -X -q -o /dev/null -v ON_ERROR_STOP=1 <<SQL
SET tapas.mode = deny;
DO \$\$
DECLARE r record;
	t text;
BEGIN
	FOR i IN $cells .. $cells + $reps LOOP
		FOREACH t IN ARRAY ARRAY['ju_a', 'ju_b'] LOOP
			PERFORM set_config('tapas.audit_joint_max_unknowns',
							   CASE t WHEN 'ju_a' THEN '2097152' ELSE '16777216' END, false);
			r := run(t, i);
			INSERT INTO timings VALUES (CASE WHEN i = $cells THEN t || ' (first)' ELSE t END, r.ms, r.outcome);
		END LOOP;
	END LOOP;
END \$\$;
SQL
echo "split workload, n = 100,000, $cells logged cells per table, $nthr thresholds ($((nthr + 1)) regions), deny mode, $reps statements per point"
psql -X -P footer=off <<'SQL'
SELECT tbl AS "table", CASE WHEN tbl LIKE 'ju_a%' THEN '2^21 (baseline)' ELSE '2^24' END AS bound,
	   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1) AS median_ms,
	   round(max(ms)::numeric, 1) AS max_ms,
	   count(*) FILTER (WHERE outcome = 'answered') AS answered,
	   count(*) FILTER (WHERE outcome = 'TP001') AS tp001,
	   count(*) FILTER (WHERE outcome = 'TP004') AS tp004
  FROM timings GROUP BY tbl ORDER BY tbl;
SELECT round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE tbl = 'ju_b')
			 / percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE tbl = 'ju_a'))::numeric, 2)
		 AS "median b / a"
  FROM timings;
SQL
