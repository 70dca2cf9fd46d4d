#!/usr/bin/env bash
# The joint audit at n = 100,000 with 1,000 logged cells, through the server:
# per statement, the time with tapas.mode = log against tapas.mode = off
# (capture, k and the ledger still run; only the auditor is skipped),
# interleaved, medians, the ratio in the same run, for
#   benign     GROUP BY over quasi-identifiers (14 cells per query)
#   bernoulli  Bernoulli(1/2) attack rows, 10 positives
#   bern256    the total, then Bernoulli(1/2) attack rows, 256 positives
#              (the most the simulated decision covers; TP004 beyond)
#   bch_perm   BCH s = 2 rows over a random permutation of the records
#              (column pos_in_design), 2 positives
#   split      Bernoulli(1/2) attack rows, 10 positives, each row asked as
#              the two halves of a split that changes with the row
#              (pos AND inc > t, pos AND NOT inc > t: related classes,
#              audit/combined.c)
# and how many measured statements were answered without a complete audit
# (an 'incomplete' alert in log mode; in deny mode those are refused, TP004).
# Deny mode is measured with the decoders' caches (column patterns,
# sparse-search hashes) and, interleaved in the same run, without them
# (tapas.audit_fast_decoders = off: the baseline), with their ratio, and
# without the combined rows of related classes (tapas.audit_combined_rows =
# off: nocomb, the state before them), with the time they add.
# Then, per attack on a fresh table in deny mode, the query at which tapas
# first refuses against the query at which the attacker's own decoder
# single out the positives (the same attack in log mode, decoded on each
# prefix by tapas.reconstruct_matrix).
# Starts a private instance (tapas installed from this checkout into the
# PostgreSQL copy under TAPAS_PGROOT, else under the machine-wide install
# lock) unless PGHOST is set.
# Usage: bash test/bench/audit-joint.sh [queries per point, default 15]
# (TAPAS_BENCH_WORKLOADS="split bernoulli" measures only those workloads;
# TAPAS_BENCH_KEEP=1 skips the first-refusal part)
set -euo pipefail
cd "$(dirname "$0")/../.."
source test/lib.sh
reps=${1:-15}
if [ -z "${PGHOST:-}" ]; then
	make -s -j2 >/dev/null
	dir=$(mktemp -d /tmp/tapas-bench.XXXXXX)
	trap 'instance_destroy "$dir"' EXIT
	if [ -n "${TAPAS_PGROOT:-}" ]; then
		# a private copy of PostgreSQL (test/lib.sh): no shared install
		tapas_install
		instance_start "$dir" "tapas.ledger_memory = '512MB'" >/dev/null
		psql -X -q -d postgres -c "CREATE DATABASE tapas_bench_joint"
		psql -X -q -d tapas_bench_joint -c "CREATE EXTENSION tapas"
	else
		# the extension's SQL script is read at CREATE EXTENSION: inside the
		# lock too, so that another checkout's install cannot come in between
		(
			flock 9
			make -s install >/dev/null
			instance_start "$dir" "tapas.ledger_memory = '512MB'" >/dev/null
			psql -X -q -d postgres -c "CREATE DATABASE tapas_bench_joint"
			psql -X -q -d tapas_bench_joint -c "CREATE EXTENSION tapas"
		) 9>/tmp/tapas-install.lock
	fi
	export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=postgres PGDATABASE=postgres
fi
db=tapas_bench_joint
export PGDATABASE=$db
psql -X -q -o /dev/null <<'SQL'
CREATE EXTENSION IF NOT EXISTS tapas;
DO $$ BEGIN CREATE ROLE bench_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
SELECT setseed(0.25);
CREATE TABLE bp (id int PRIMARY KEY, sex int NOT NULL, ward int NOT NULL, band int NOT NULL,
				 pos_in_design int NOT NULL, pos boolean NOT NULL, pos2 boolean NOT NULL,
				 pos3 boolean NOT NULL, inc int NOT NULL);
INSERT INTO bp SELECT g, g % 2, (g / 2) % 7, (g / 14) % 9, r, false, false, g % 390 = 11 AND g < 99800,
	   1000 + (g * 37) % 5000
  FROM (SELECT g, row_number() OVER (ORDER BY random()) AS r FROM generate_series(1, 100000) g) s;
UPDATE bp SET pos = true WHERE id IN (SELECT 1 + floor(random() * 100000)::int FROM generate_series(1, 10));
UPDATE bp SET pos2 = true WHERE id IN (17, 65000);
ANALYZE bp;
SELECT tapas.protect('bp', 'id', ARRAY['pos', 'pos2', 'pos3', 'inc'], 500);
GRANT SELECT ON bp TO bench_analyst;
CREATE TABLE timings (workload text, mode text, ms float8, outcome text);
GRANT ALL ON timings TO bench_analyst;
-- one statement of workload w, number i: (ms, outcome)
CREATE FUNCTION run(w text, i int, OUT ms float8, OUT outcome text) LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
	g text := (ARRAY['sex, ward', 'ward, sex', 'ward, band'])[1 + i % 3];
BEGIN
	outcome := 'answered';
	BEGIN
		IF w = 'benign' THEN
			EXECUTE format('SELECT %s, count(*) FILTER (WHERE pos) FROM bp WHERE band %s %s GROUP BY %s',
						   g, CASE WHEN i % 2 = 0 THEN '<>' ELSE '<' END, 2 + i % 7, g);
		ELSIF w = 'bernoulli' THEN
			EXECUTE format('SELECT count(*) FILTER (WHERE pos) FROM bp WHERE tapas.design_member(''bernoulli'', 100000, 80, %s, id, 0, 7)',
						   1 + i % 1647);
		ELSIF w = 'split' THEN
			EXECUTE format('SELECT count(*) FILTER (WHERE pos AND %s inc > %s) FROM bp WHERE tapas.design_member(''bernoulli'', 100000, 80, %s, id, 0, 7)',
						   CASE WHEN i % 2 = 0 THEN '' ELSE 'NOT' END, 1500 + 100 * ((i / 2) % 32), 1 + (i / 2) % 1647);
		ELSIF w = 'bern256' AND i = 0 THEN
			-- the total first: every consistent vector has 256 positives
			EXECUTE 'SELECT count(*) FILTER (WHERE pos3) FROM bp';
		ELSIF w = 'bern256' THEN
			EXECUTE format('SELECT count(*) FILTER (WHERE pos3) FROM bp WHERE tapas.design_member(''bernoulli'', 100000, 80, %s, id, 0, 9)',
						   1 + i % 5000);
		ELSE
			EXECUTE format('SELECT sum(pos2::int) FROM bp WHERE tapas.design_member(''bch'', 100000, 2, %s, pos_in_design, 50000)',
						   1 + i % tapas.design_size('bch', 100000, 2, 50000));
		END IF;
	EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
		outcome := SQLSTATE;
	END;
	ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
END $$;
-- fills the ledger with m logged cells of workload w (as the analyst, audit off)
CREATE FUNCTION fill(w text, m int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE before bigint := (SELECT count(*) FROM tapas.query_log WHERE tbl = 'bp'::regclass);
	i int := 0;
BEGIN
	SET tapas.mode = off;
	WHILE (SELECT count(*) FROM tapas.query_log WHERE tbl = 'bp'::regclass) - before < m LOOP
		SET SESSION AUTHORIZATION bench_analyst;
		PERFORM run(w, i);
		RESET SESSION AUTHORIZATION;
		i := i + 1;
	END LOOP;
END $$;
SQL
for w in ${TAPAS_BENCH_WORKLOADS:-benign bernoulli bern256 bch_perm split}; do
	psql -X -q -o /dev/null -c "SELECT fill('$w', 1000)"
	psql -X -q -o /dev/null <<SQL
DO \$\$
DECLARE r record;
	m text;
BEGIN
	-- deny mode first (log mode marks what it alerts as reported): every
	-- statement is answered with a complete audit or refused
	-- the first statement of a backend rebuilds its audit state from the
	-- ledger (measured apart: first_ms); then, interleaved, each statement
	-- with the decoders' caches (deny) and without (deny_base: column
	-- patterns and sparse-search hashes rebuilt by every statement, the
	-- state before the caches)
	SET tapas.mode = deny;
	SET SESSION AUTHORIZATION bench_analyst;
	r := run('$w', 1400);
	RESET SESSION AUTHORIZATION;
	INSERT INTO timings VALUES ('$w', 'first', r.ms, r.outcome);
	FOR k IN 1..$reps LOOP
		FOREACH m IN ARRAY ARRAY['on', 'off', 'nocomb'] LOOP
			PERFORM set_config('tapas.audit_fast_decoders', CASE m WHEN 'off' THEN 'off' ELSE 'on' END, false);
			PERFORM set_config('tapas.audit_combined_rows', CASE m WHEN 'nocomb' THEN 'off' ELSE 'on' END, false);
			SET SESSION AUTHORIZATION bench_analyst;
			r := run('$w', 1400 + k);
			RESET SESSION AUTHORIZATION;
			INSERT INTO timings VALUES ('$w', CASE m WHEN 'on' THEN 'deny' WHEN 'off' THEN 'deny_base' ELSE 'deny_nocomb' END,
										r.ms, r.outcome);
		END LOOP;
	END LOOP;
	RESET tapas.audit_fast_decoders;
	RESET tapas.audit_combined_rows;
	-- the same statements again: every class they need is known to this
	-- backend by now, so no group of related classes grows (deny_again:
	-- the steady state, without the rebuild a growing group costs)
	FOR k IN 1..$reps LOOP
		SET SESSION AUTHORIZATION bench_analyst;
		r := run('$w', 1400 + k);
		RESET SESSION AUTHORIZATION;
		INSERT INTO timings VALUES ('$w', 'deny_again', r.ms, r.outcome);
	END LOOP;
	FOR k IN 1..$reps LOOP
		FOREACH m IN ARRAY ARRAY['off', 'log'] LOOP
			PERFORM set_config('tapas.mode', m, false);
			SET SESSION AUTHORIZATION bench_analyst;
			r := run('$w', 1200 + 2 * k + (m = 'log')::int);
			RESET SESSION AUTHORIZATION;
			INSERT INTO timings VALUES ('$w', m, r.ms, r.outcome);
		END LOOP;
	END LOOP;
END \$\$;
SQL
	psql -X -qAt -c "INSERT INTO timings SELECT '$w', 'incomplete_alerts', count(*)
					   - coalesce((SELECT sum(ms) FROM timings WHERE mode = 'incomplete_alerts'), 0), NULL
					  FROM tapas.alerts WHERE \"table\" = 'bp'::regclass AND kind = 'incomplete' AND action <> 'denied'" >/dev/null
	psql -X -qAt -c "SELECT tapas.reset('bp')" >/dev/null
done
echo "joint audit per statement, n = 100,000, 1,000 logged cells before the measured statements ($reps per point, medians)"
psql -X -c "
SELECT workload,
	   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'off')::numeric, 2) AS off_ms,
	   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'log')::numeric, 2) AS log_ms,
	   round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'log')
			- percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'off'))::numeric, 2) AS added_ms,
	   round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'log')
			/ percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'off'))::numeric, 2) AS ratio,
	   max(ms) FILTER (WHERE mode = 'incomplete_alerts')::int AS log_incomplete,
	   round(max(ms) FILTER (WHERE mode = 'first')::numeric, 0) AS first_ms,
	   max(outcome) FILTER (WHERE mode = 'first') AS first,
	   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'deny')::numeric, 2) AS deny_ms,
	   round(max(ms) FILTER (WHERE mode = 'deny')::numeric, 2) AS deny_max_ms,
	   count(*) FILTER (WHERE mode = 'deny' AND outcome = 'answered') AS deny_answered,
	   count(*) FILTER (WHERE mode = 'deny' AND outcome = 'TP001') AS deny_tp001,
	   count(*) FILTER (WHERE mode = 'deny' AND outcome = 'TP004') AS deny_tp004,
	   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'deny_base')::numeric, 2) AS base_ms,
	   count(*) FILTER (WHERE mode = 'deny_base' AND outcome = 'TP004') AS base_tp004,
	   round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'deny_base')
			/ percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'deny'))::numeric, 2) AS speedup,
	   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'deny_nocomb')::numeric, 2) AS nocomb_ms,
	   count(*) FILTER (WHERE mode = 'deny_nocomb' AND outcome = 'TP001') AS nocomb_tp001,
	   round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'deny')
			- percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'deny_nocomb'))::numeric, 2) AS comb_added_ms,
	   round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE mode = 'deny_again')::numeric, 2) AS again_ms,
	   count(*) FILTER (WHERE mode = 'deny_again' AND outcome = 'TP001') AS again_tp001,
	   count(*) FILTER (WHERE mode = 'deny_again' AND outcome = 'TP004') AS again_tp004
  FROM timings GROUP BY 1 ORDER BY 1"
echo "first_ms: the backend's first statement, which rebuilds the audit state from the ledger;"
echo "deny_*: later statements in deny mode with the decoders' caches; base_*: the same, interleaved,"
echo "with tapas.audit_fast_decoders = off (patterns and hashes rebuilt per statement, three full pursuit runs"
echo "per simulated decision: as before); speedup = base_ms / deny_ms; nocomb_*: the same, interleaved, with"
echo "tapas.audit_combined_rows = off (no combined rows of related classes: as before); comb_added_ms = deny_ms - nocomb_ms;"
echo "again_*: the deny statements once more, after the others (every class known: no group grows)"

[ -n "${TAPAS_BENCH_KEEP:-}" ] && exit 0
# first refusal against the attacker's need, on fresh tables
psql -X -q -o /dev/null <<'SQL'
CREATE TABLE b1 (id int PRIMARY KEY, pos boolean NOT NULL);
INSERT INTO b1 SELECT g, g = 73013 FROM generate_series(1, 100000) g;
SELECT tapas.protect('b1', 'id', ARRAY['pos'], 50000);
CREATE TABLE b2 (id int PRIMARY KEY, p int NOT NULL, pos boolean NOT NULL);
INSERT INTO b2 SELECT g, (1031 * g) % 4096, g IN (17, 2500) FROM generate_series(1, 4095) g;
SELECT tapas.protect('b2', 'id', ARRAY['pos'], 2048);
GRANT SELECT ON b1, b2 TO bench_analyst;
CREATE TABLE ans (tbl text, mode text, q int, a numeric, refused text);
GRANT ALL ON ans TO bench_analyst;
CREATE FUNCTION attack(tbl text, mode text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE a numeric;
	n int := CASE WHEN tbl = 'b1' THEN 100000 ELSE 4095 END;
	s int := CASE WHEN tbl = 'b1' THEN 1 ELSE 2 END;
	col text := CASE WHEN tbl = 'b1' THEN 'id' ELSE 'p' END;
BEGIN
	FOR q IN 1..tapas.design_size('bch', n, s, (n + 1) / 2) LOOP
		BEGIN
			EXECUTE format('SELECT count(*) FILTER (WHERE pos) FROM %I WHERE tapas.design_member(''bch'', %s, %s, %s, %s, %s)',
						   tbl, n, s, q, col, (n + 1) / 2) INTO a;
			INSERT INTO ans VALUES (tbl, mode, q, a, NULL);
		EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
			INSERT INTO ans VALUES (tbl, mode, q, NULL, SQLSTATE);
		END;
	END LOOP;
END $$;
-- does the attacker's OMP (sparsity 2) on the first t answers return the two positives?
CREATE FUNCTION decodes_b2(t int) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	RETURN (SELECT count(*) = 2 FROM tapas.reconstruct_matrix(
				format('SELECT q, id FROM generate_series(1, %s) q, b2 WHERE tapas.design_member(''bch'', 4095, 2, q, p, 2048)', t),
				(SELECT array_agg(a ORDER BY q) FROM ans WHERE tbl = 'b2' AND mode = 'log' AND q <= t), 'omp', 2) r
			 WHERE r.record IN (17, 2500));
EXCEPTION WHEN OTHERS THEN
	RETURN false;
END $$;
SQL
psql -X -q -o /dev/null -c "SET tapas.mode = log" -c "SET SESSION AUTHORIZATION bench_analyst" \
	-c "SELECT attack('b1', 'log'), attack('b2', 'log')"
psql -X -q -o /dev/null -c "SELECT tapas.reset('b1'), tapas.reset('b2')"
psql -X -q -o /dev/null -c "SET tapas.mode = deny" -c "SET SESSION AUTHORIZATION bench_analyst" \
	-c "SELECT attack('b1', 'deny'), attack('b2', 'deny')"
echo "attack: first query refused (deny mode) against the query at which the attacker's decoder singles out the positives"
psql -X -c "
WITH need_b1 AS (	-- one positive: the patients consistent with the first t answers
	SELECT min(t) AS t FROM generate_series(1, 17) t
	 WHERE (SELECT count(*) FROM b1 WHERE NOT EXISTS (SELECT 1 FROM ans WHERE tbl = 'b1' AND mode = 'log' AND q <= t
			  AND (a = 1) <> tapas.design_member('bch', 100000, 1, q, b1.id, 50000))) = 1),
need_b2 AS (SELECT min(t) AS t FROM generate_series(1, 25) t WHERE decodes_b2(t))
SELECT 'bch s=1, n=100,000' AS attack, (SELECT min(q) FROM ans WHERE tbl = 'b1' AND mode = 'deny' AND refused IS NOT NULL) AS first_refused,
	   (SELECT t FROM need_b1) AS attacker_needs
UNION ALL
SELECT 'bch s=2 permuted, n=4,095', (SELECT min(q) FROM ans WHERE tbl = 'b2' AND mode = 'deny' AND refused IS NOT NULL),
	   (SELECT t FROM need_b2)"
