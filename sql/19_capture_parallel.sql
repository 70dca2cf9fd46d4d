-- Parallel capture: with parallelism forced, an audited query keeps the
-- parallel plan of the same query on an unprotected copy (Partial Aggs in
-- workers, the gate above the Finalize Agg), and captures exactly the
-- cells of the serial plan: same statistics, answers and covered keys.
-- Workers may or may not start (max_worker_processes); the plans and the
-- cells are the same either way.
SET client_min_messages = warning;
SET tapas.mode = off;
-- int8 keys, 1,000 of them outside [0, 2^32) (the capture's extra keys)
CREATE TABLE par8 (id int8 PRIMARY KEY, g20 int NOT NULL, g1000 int NOT NULL,
				   rare bool NOT NULL, income int NOT NULL);
INSERT INTO par8
SELECT CASE WHEN i % 60 = 0 THEN -i WHEN i % 60 = 1 THEN i * 8589934592 ELSE i END,
	   i % 20, i % 1000, i % 97 = 0, (i * 7919) % 100000
  FROM generate_series(1, 60000) i;
CREATE TABLE par8_copy AS SELECT * FROM par8;
-- int4 keys
CREATE TABLE par4 (id int PRIMARY KEY, g20 int NOT NULL, income int);
INSERT INTO par4 SELECT i, i % 20, CASE WHEN i % 7 = 0 THEN NULL ELSE i END
  FROM generate_series(1, 60000) i;
CREATE TABLE par4_copy AS SELECT * FROM par4;
ANALYZE par8, par8_copy, par4, par4_copy;
SELECT tapas.protect('par8', 'id', ARRAY['rare', 'income'], 5);
SELECT tapas.protect('par4', 'id', ARRAY['income'], 5);
GRANT SELECT ON par8, par4, par4_copy TO regress_tapas_analyst;
CREATE TABLE caps (run text, relid regclass, statistic text, answer float8,
				   covered bigint, keys bigint[]);
CREATE VIEW caps_compare AS
SELECT (SELECT count(*) FROM caps WHERE run = 'serial') AS cells,
	   (SELECT sum(covered) FROM caps WHERE run = 'serial') AS covered,
	   (SELECT count(*) FROM caps WHERE run = 'parallel') AS parallel_cells,
	   (SELECT count(*) FROM ((SELECT relid, statistic, answer, covered, keys FROM caps WHERE run = 'parallel'
							   EXCEPT ALL
							   SELECT relid, statistic, answer, covered, keys FROM caps WHERE run = 'serial')
							  UNION ALL
							  (SELECT relid, statistic, answer, covered, keys FROM caps WHERE run = 'serial'
							   EXCEPT ALL
							   SELECT relid, statistic, answer, covered, keys FROM caps WHERE run = 'parallel')) d
	   ) AS differing;
-- plan in parallel whenever possible (these settings survive SET SESSION AUTHORIZATION)
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = on;

-- count(*) over half of the rows
\set q 'SELECT count(*) FROM par8 WHERE g20 < 10'
\set u 'SELECT count(*) FROM par8_copy WHERE g20 < 10'
\i sql/fixtures/parallel_same.sql

-- 20 groups, a sensitive filter and a sum
\set q 'SELECT g20, count(*) FILTER (WHERE rare), sum(income) FROM par8 GROUP BY g20'
\set u 'SELECT g20, count(*) FILTER (WHERE rare), sum(income) FROM par8_copy GROUP BY g20'
\i sql/fixtures/parallel_same.sql

-- 1,000 groups
\set q 'SELECT g1000, count(*), sum(income) FROM par8 GROUP BY g1000'
\set u 'SELECT g1000, count(*), sum(income) FROM par8_copy GROUP BY g1000'
\i sql/fixtures/parallel_same.sql

-- HAVING (its groups are cells too) and avg over int4 keys with null values
\set q 'SELECT g20, avg(income) FROM par4 GROUP BY g20 HAVING count(*) > 2999'
\set u 'SELECT g20, avg(income) FROM par4_copy GROUP BY g20 HAVING count(*) > 2999'
\i sql/fixtures/parallel_same.sql

-- grouped by a sensitive column: one cell per value of its domain
\set q 'SELECT rare, count(*) FROM par8 WHERE g20 < 15 GROUP BY rare'
\set u 'SELECT rare, count(*) FROM par8_copy WHERE g20 < 15 GROUP BY rare'
\i sql/fixtures/parallel_same.sql

-- deny mode: the auditor reads the truth of sensitive statistics in a
-- subtransaction, which parallel mode forbids; the gate audits after the
-- workers are done, outside parallel mode
SET tapas.mode = deny;
SET max_parallel_workers_per_gather = 2;
SET SESSION AUTHORIZATION regress_tapas_analyst;
EXPLAIN (COSTS OFF) SELECT g20, count(*) FILTER (WHERE rare), sum(income) FROM par8 GROUP BY g20;
SELECT count(*), sum(r), sum(s) FROM (SELECT g20, count(*) FILTER (WHERE rare) AS r, sum(income) AS s
										FROM par8 GROUP BY g20) a;
SELECT sum(income) FROM par4 WHERE g20 < 10;
RESET SESSION AUTHORIZATION;
SELECT statistic, answer, covered FROM tapas.last_capture();
SET tapas.mode = off;

-- a scalar sub-query as an InitPlan beside a parallel scan of another
-- table: the InitPlan's gate could run while that scan's workers run, so
-- the statement is planned serially
\set q 'SELECT count(*) FROM par4_copy WHERE g20 < (SELECT count(*) FROM par8 WHERE g20 = 3) / 300'
\set u 'SELECT count(*) FROM par4_copy WHERE g20 < (SELECT count(*) FROM par8_copy WHERE g20 = 3) / 300'
\i sql/fixtures/parallel_same.sql

-- force_parallel_mode puts a Gather above a whole parallel-safe plan (here
-- a serial one: parallelism at its default costs), so the gate would run in
-- a worker: the query is planned again without parallelism, and the gate
-- stays in the leader
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
SET force_parallel_mode = on;
SET max_parallel_workers_per_gather = 2;
\set q 'SELECT count(*) FROM par4 WHERE g20 < 10'
\set u 'SELECT count(*) FROM par4_copy WHERE g20 < 10'
EXPLAIN (COSTS OFF) :u;
SET SESSION AUTHORIZATION regress_tapas_analyst;
EXPLAIN (COSTS OFF) :q;
:q;
RESET SESSION AUTHORIZATION;
SELECT statistic, answer, covered FROM tapas.last_capture();
RESET force_parallel_mode;

RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;
SELECT tapas.reset('par8') >= 0 AS reset, tapas.reset('par4') >= 0 AS reset;
DROP VIEW caps_compare;
DROP TABLE caps, par8, par8_copy, par4, par4_copy;
