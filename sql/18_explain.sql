-- EXPLAIN: the gate in plans (COSTS OFF), and the refusal of row estimates
-- and EXPLAIN ANALYZE for audited roles.
-- capture only: the auditor's refusals have their own suites (sql/4x_audit_*)
SET tapas.mode = off;
\i sql/fixtures/pat.sql
-- what the gate captured for the last analyst statement, in a stable order
CREATE VIEW cap AS
SELECT statistic, answer, covered, keys FROM tapas.last_capture() ORDER BY statistic, keys;
\set VERBOSITY terse
CREATE TABLE other (zip int, label text);
GRANT SELECT ON other TO regress_tapas_analyst;
ANALYZE pat;

SET SESSION AUTHORIZATION regress_tapas_analyst;
EXPLAIN (COSTS OFF) SELECT count(*) FROM pat;
EXPLAIN (COSTS OFF) SELECT zip, count(*), avg(income) FROM pat WHERE hiv GROUP BY zip ORDER BY zip;
EXPLAIN (COSTS OFF) SELECT zip, count(*) FROM pat GROUP BY zip HAVING sum(income) > 100;
EXPLAIN (COSTS OFF) SELECT z, s.n FROM (VALUES (0), (2)) o(z),
	LATERAL (SELECT count(*) AS n FROM pat WHERE zip = o.z) s;
EXPLAIN (COSTS OFF) SELECT zip, sum(income) / count(*) FROM pat GROUP BY ROLLUP (zip);
-- refused
EXPLAIN SELECT count(*) FROM pat;
\echo :LAST_ERROR_SQLSTATE
EXPLAIN (COSTS ON) SELECT count(*) FROM pat WHERE zip = 1;
EXPLAIN ANALYZE SELECT count(*) FROM pat;
\echo :LAST_ERROR_SQLSTATE
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM pat;
PREPARE q AS SELECT count(*) FROM pat;
EXPLAIN EXECUTE q;
EXPLAIN (COSTS OFF) EXECUTE q;
EXPLAIN SELECT * FROM pat;
-- tables that are not protected are not concerned
EXPLAIN (COSTS OFF) SELECT count(*) FROM other;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT 1 FROM other;
DEALLOCATE q;
RESET SESSION AUTHORIZATION;

-- admins: no gate, estimates allowed
EXPLAIN (COSTS OFF) SELECT count(*) FROM pat;

DROP VIEW cap;
DROP TABLE pat, other;
