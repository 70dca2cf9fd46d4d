-- Prepared statements (custom and generic plans, parameters bound into the
-- statistic), cursors, COPY (SELECT ...) TO, DO blocks.
-- capture only: the auditor's refusals have their own suites (sql/4x_audit_*)
SET tapas.mode = off;
\i sql/fixtures/pat.sql
-- what the gate captured for the last analyst statement, in a stable order
CREATE VIEW cap AS
SELECT statistic, answer, covered, keys FROM tapas.last_capture() ORDER BY statistic, keys;
\set VERBOSITY terse

SET SESSION AUTHORIZATION regress_tapas_analyst;
PREPARE q_zip(int) AS SELECT count(*), sum(income) FROM pat WHERE zip = $1;
EXECUTE q_zip(1);
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- a parameter in a sensitive condition is bound into the statistic text,
-- in custom and in generic plans alike
SET SESSION AUTHORIZATION regress_tapas_analyst;
PREPARE q_sick(bool, numeric) AS SELECT count(*) FROM pat WHERE hiv = $1 AND income > $2;
EXECUTE q_sick(false, 50);
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SET plan_cache_mode = force_generic_plan;
EXECUTE q_sick(false, 50);
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat WHERE hiv = false AND income > 50;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- the same prepared statement, executed again, is captured again
SET SESSION AUTHORIZATION regress_tapas_analyst;
EXECUTE q_zip(2);
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
RESET plan_cache_mode;

-- cursors: all groups are captured at the first FETCH
SET SESSION AUTHORIZATION regress_tapas_analyst;
BEGIN;
DECLARE c CURSOR FOR SELECT zip, count(*) FROM pat GROUP BY zip ORDER BY zip;
FETCH 1 FROM c;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
FETCH ALL FROM c;
CLOSE c;
DECLARE s SCROLL CURSOR FOR SELECT zip, sum(income) FROM pat GROUP BY zip ORDER BY zip;
FETCH LAST FROM s;
FETCH BACKWARD 2 FROM s;
COMMIT;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- COPY of an aggregate query
SET SESSION AUTHORIZATION regress_tapas_analyst;
COPY (SELECT zip, count(*) FROM pat WHERE hiv GROUP BY zip ORDER BY zip) TO STDOUT;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- a DO block's queries are captured like any other
SET SESSION AUTHORIZATION regress_tapas_analyst;
DO $$
DECLARE
	n bigint;
BEGIN
	SELECT count(*) INTO n FROM pat WHERE age > 23;
	RAISE NOTICE 'n = %', n;
END
$$;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

DEALLOCATE ALL;
DROP VIEW cap;
DROP TABLE pat;
