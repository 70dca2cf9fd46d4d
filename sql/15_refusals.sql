-- Refusals: every way of reading protected rows outside an audited aggregate,
-- each with its SQLSTATE.
-- capture only: the auditor's refusals have their own suites (sql/4x_audit_*)
SET tapas.mode = off;
\i sql/fixtures/pat.sql
-- what the gate captured for the last analyst statement, in a stable order
CREATE VIEW cap AS
SELECT statistic, answer, covered, keys FROM tapas.last_capture() ORDER BY statistic, keys;
\set VERBOSITY terse
CREATE TABLE other (zip int, label text);
INSERT INTO other VALUES (0, 'a'), (1, 'b');
GRANT SELECT ON other TO regress_tapas_analyst;
GRANT INSERT, UPDATE, DELETE ON pat TO regress_tapas_analyst;
CREATE FUNCTION f_rows() RETURNS SETOF pat LANGUAGE sql SECURITY DEFINER
	AS $$ SELECT * FROM pat $$;
GRANT EXECUTE ON FUNCTION f_rows() TO regress_tapas_analyst;

SET SESSION AUTHORIZATION regress_tapas_analyst;
-- non-aggregate reads
SELECT * FROM pat;
\echo :LAST_ERROR_SQLSTATE
SELECT id FROM pat WHERE hiv LIMIT 1;
SELECT DISTINCT ON (zip) zip, age FROM pat;
SELECT zip FROM pat ORDER BY zip LIMIT 1;
SELECT count(*) FROM (SELECT * FROM pat LIMIT 5) s;
SELECT * FROM f_rows();
SELECT count(*) FROM f_rows();
CREATE TEMP TABLE leak AS SELECT * FROM pat;
SELECT zip FROM pat FOR UPDATE;
SELECT count(*) FROM pat, generate_series(1, 2);
-- one answer per value of a series: a correlated sub-query is audited
SELECT array_agg((SELECT count(*) FROM pat WHERE id <> q) ORDER BY q) FROM generate_series(1, 2) q;

-- writes that return rows or row counts
UPDATE pat SET age = age WHERE hiv;
\echo :LAST_ERROR_SQLSTATE
DELETE FROM pat WHERE false RETURNING *;
INSERT INTO pat VALUES (100, 1, 30, false, 5) RETURNING *;
INSERT INTO pat VALUES (1, 1, 30, false, 5) ON CONFLICT DO NOTHING;
WITH d AS (DELETE FROM pat WHERE hiv RETURNING id) SELECT count(*) FROM d;

-- window functions and non-linear aggregates
SELECT count(*) OVER () FROM pat;
\echo :LAST_ERROR_SQLSTATE
-- a window over the groups of an aggregate query reads the released answers only
SELECT zip, count(*), sum(count(*)) OVER () AS total, rank() OVER (ORDER BY sum(income) DESC) AS r
  FROM pat GROUP BY zip ORDER BY zip;
-- DISTINCT without aggregation is GROUP BY: each value a group bound by k
SELECT DISTINCT zip FROM pat ORDER BY zip;
SELECT count(*) FROM (SELECT DISTINCT zip FROM pat) s;
SELECT DISTINCT age FROM pat;
\echo :LAST_ERROR_SQLSTATE
SELECT min(income) FROM pat;
\echo :LAST_ERROR_SQLSTATE
SELECT max(income) FROM pat;
SELECT string_agg(zip::text, ',') FROM pat;
SELECT array_agg(hiv) FROM pat;
SELECT stddev(income) FROM pat;
SELECT variance(age) FROM pat;
SELECT bool_or(hiv) FROM pat;
SELECT sum(income::text::numeric) FROM pat;
SELECT count(DISTINCT hiv) FROM pat;
\echo :LAST_ERROR_SQLSTATE
SELECT sum(age ORDER BY age) FROM pat;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY age) FROM pat;

-- grouping sets over a sensitive column, and grouping keys outside the allow-list
SELECT hiv, count(*) FROM pat GROUP BY ROLLUP (hiv);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM pat GROUP BY income + 1;

-- membership sub-queries and joins
SELECT count(*) FROM other WHERE EXISTS (SELECT 1 FROM pat WHERE pat.zip = other.zip AND hiv);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM other WHERE zip IN (SELECT zip FROM pat WHERE hiv);
SELECT count(*) FROM other WHERE zip = ANY (SELECT zip FROM pat);
SELECT count(*) FROM pat p JOIN other o USING (zip);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM pat a, pat b WHERE a.id = b.id;
SELECT count(*) FROM other o LEFT JOIN pat p ON p.id = o.zip;
SELECT count(*) FROM pat p JOIN (SELECT DISTINCT zip FROM other) o ON o.zip = p.zip;
CREATE TEMP TABLE lookup (zip int PRIMARY KEY, flag bool);
SELECT count(*) FROM pat p JOIN lookup l ON l.zip = p.zip AND p.hiv;
SELECT count(*) FROM pat p JOIN lookup l ON l.zip = p.zip WHERE p.hiv = l.flag;
SELECT sum(CASE WHEN l.flag THEN p.income END) FROM pat p JOIN lookup l ON l.zip = p.zip;
SELECT count(*) FROM pat WHERE hiv = (SELECT true FROM other LIMIT 1);

-- COPY
COPY pat TO STDOUT;
\echo :LAST_ERROR_SQLSTATE
COPY pat (zip) TO STDOUT;
COPY (SELECT * FROM pat) TO STDOUT;

-- planner statistics
SELECT count(*) FROM pg_stats WHERE tablename = 'pat';
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM pg_statistic;
SELECT count(*) FROM pg_stats_ext;

-- the capture aggregate itself
SELECT tapas._cover(id::bigint, 1, 0) FROM pat;
\echo :LAST_ERROR_SQLSTATE
SELECT tapas._cover(id, 1, 0) FROM pat;
\echo :LAST_ERROR_SQLSTATE
SELECT tapas._cover(1, 1, 0) FROM other
UNION ALL SELECT NULL FROM (SELECT count(*) FROM pat) s;

-- allowed: a scalar sub-query with an aggregate; writes are refused
-- (sql/21_audited_writes.sql)
SELECT count(*) FROM other WHERE zip < (SELECT count(*) FROM pat WHERE zip = 0);
INSERT INTO pat VALUES (100, 1, 30, false, 5);
RESET SESSION AUTHORIZATION;

-- admins are not restricted
SELECT id FROM pat WHERE hiv ORDER BY id LIMIT 2;
SELECT count(*) >= 0 AS readable FROM pg_stats;

DROP FUNCTION f_rows();
DROP VIEW cap;
DROP TABLE pat, other;
