-- Capture through views, CTEs, sub-queries in FROM, set operations, LATERAL,
-- scalar sub-queries, SQL and PL/pgSQL functions.
-- capture only: the auditor's refusals have their own suites (sql/4x_audit_*)
SET tapas.mode = off;
\i sql/fixtures/pat.sql
-- what the gate captured for the last analyst statement, in a stable order
CREATE VIEW cap AS
SELECT statistic, answer, covered, keys FROM tapas.last_capture() ORDER BY statistic, keys;
\set VERBOSITY terse
CREATE TABLE zips (zip int PRIMARY KEY, region text);
INSERT INTO zips VALUES (0, 'north'), (1, 'south'), (2, 'south');
GRANT SELECT ON zips TO regress_tapas_analyst;
CREATE VIEW v_older AS SELECT id, zip, age, hiv, income FROM pat WHERE age > 22;
CREATE VIEW v_sick AS SELECT zip, income FROM pat WHERE hiv;
CREATE VIEW v_flag AS SELECT zip, CASE WHEN hiv THEN 1 ELSE 0 END AS flag FROM pat;
CREATE VIEW v_by_zip AS SELECT zip, count(*) AS n, sum(income) AS s FROM pat GROUP BY zip;
CREATE VIEW v_barrier WITH (security_barrier) AS SELECT zip, hiv FROM pat WHERE zip < 2;
GRANT SELECT ON v_older, v_sick, v_flag, v_by_zip, v_barrier TO regress_tapas_analyst;
CREATE FUNCTION f_count(z int) RETURNS bigint LANGUAGE sql STABLE
	AS $$ SELECT count(*) FROM pat WHERE zip = z $$;
CREATE FUNCTION f_sick(z int, flag bool) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
DECLARE
	r bigint;
BEGIN
	SELECT count(*) INTO r FROM pat WHERE zip = z AND hiv = flag;
	RETURN r;
END
$$;

-- a projection/filter view is audited as the query on the table
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM v_older WHERE hiv;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- a view whose own WHERE is sensitive: its condition joins the FILTER
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, sum(income) FROM v_sick GROUP BY zip ORDER BY zip;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(flag) FROM v_flag WHERE zip = 0;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM v_barrier WHERE hiv;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- an aggregating view
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT * FROM v_by_zip WHERE n > 1 ORDER BY zip;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- CTEs, inlined or materialized
SET SESSION AUTHORIZATION regress_tapas_analyst;
WITH c AS (SELECT zip, count(*) AS n FROM pat WHERE hiv GROUP BY zip)
SELECT * FROM c ORDER BY zip;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

SET SESSION AUTHORIZATION regress_tapas_analyst;
WITH c AS MATERIALIZED (SELECT count(*) AS n FROM pat WHERE zip = 1)
SELECT c.n FROM c, c AS d;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- a CTE the planner drops is not an answer
SET SESSION AUTHORIZATION regress_tapas_analyst;
WITH c AS (SELECT count(*) FROM pat WHERE zip = 0) SELECT 1 AS one;
RESET SESSION AUTHORIZATION;

-- sub-queries in FROM: aggregate inside, or a row source aggregated above
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(n) FROM (SELECT zip, count(*) AS n FROM pat GROUP BY zip) s WHERE zip > 0;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM (SELECT id, hiv FROM pat WHERE zip = 2) s WHERE hiv;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM (SELECT * FROM (SELECT * FROM pat WHERE age < 25) a WHERE zip = 1) b;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- set operations, scalar sub-queries, LATERAL (one execution per outer row)
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat WHERE zip = 0 UNION ALL SELECT count(*) FROM pat WHERE zip = 1 AND hiv;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT (SELECT count(*) FROM pat WHERE zip = 2) AS n, 1 AS one;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT z, s.n FROM (VALUES (0), (2)) o(z),
	LATERAL (SELECT count(*) AS n FROM pat WHERE zip = o.z AND hiv) s ORDER BY z;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- joins with lookup tables (matched on a unique column): conditions on the
-- lookup table narrow the covered set
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT z.region, count(*), sum(p.income) FROM pat p JOIN zips z ON p.zip = z.zip
 WHERE p.hiv GROUP BY z.region ORDER BY 1;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat p LEFT JOIN zips z ON p.zip = z.zip WHERE z.region IS NULL OR z.region = 'north';
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- a plain view joined with a lookup table is pulled up too
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT z.region, count(*) FROM v_older v JOIN zips z USING (zip) WHERE v.hiv GROUP BY z.region ORDER BY 1;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM zips z LEFT JOIN v_older v USING (zip);
RESET SESSION AUTHORIZATION;

-- functions: SQL (planned when called) and PL/pgSQL (with a sensitive
-- parameter, bound into the statistic)
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT f_count(1);
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT f_sick(0, true);
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- results stored by the analyst are aggregates too
SET SESSION AUTHORIZATION regress_tapas_analyst;
CREATE TEMP TABLE zip_counts AS SELECT zip, count(*) AS n FROM pat GROUP BY zip;
SELECT * FROM zip_counts ORDER BY zip;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS cells FROM cap;

DROP FUNCTION f_count(int), f_sick(int, bool);
DROP VIEW v_older, v_sick, v_flag, v_by_zip, v_barrier, cap;
DROP TABLE pat, zips;
