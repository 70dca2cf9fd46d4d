-- Who is audited: the session user decides, so SET ROLE and SECURITY DEFINER
-- functions change nothing; plans cached across SET SESSION AUTHORIZATION fail
-- closed.
-- capture only: the auditor's refusals have their own suites (sql/4x_audit_*)
SET tapas.mode = off;
\i sql/fixtures/pat.sql
-- what the gate captured for the last analyst statement, in a stable order
CREATE VIEW cap AS
SELECT statistic, answer, covered, keys FROM tapas.last_capture() ORDER BY statistic, keys;
\set VERBOSITY terse
DO $$
BEGIN
	CREATE ROLE regress_tapas_helper NOLOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END
$$;
GRANT regress_tapas_helper TO regress_tapas_analyst;
GRANT SELECT ON pat TO regress_tapas_helper, regress_tapas_auditor;
CREATE FUNCTION f_definer_rows() RETURNS SETOF int LANGUAGE sql SECURITY DEFINER
	AS $$ SELECT id FROM pat $$;
CREATE FUNCTION f_definer_count() RETURNS bigint LANGUAGE sql SECURITY DEFINER
	AS $$ SELECT count(*) FROM pat WHERE zip = 2 $$;
GRANT EXECUTE ON FUNCTION f_definer_rows(), f_definer_count() TO regress_tapas_analyst;

-- SET ROLE to another role of the analyst: still audited
SET SESSION AUTHORIZATION regress_tapas_analyst;
SET ROLE regress_tapas_helper;
SELECT current_user, session_user;
SELECT id FROM pat LIMIT 1;
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM pat WHERE zip = 1;
RESET ROLE;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- SECURITY DEFINER functions owned by a superuser: still audited
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT * FROM f_definer_rows();
\echo :LAST_ERROR_SQLSTATE
SELECT f_definer_count();
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- a plan prepared by an admin (no gate) fails closed for the analyst
PREPARE admin_rows AS SELECT id FROM pat ORDER BY id LIMIT 2;
PREPARE admin_count AS SELECT count(*) FROM pat WHERE zip = 0;
EXECUTE admin_rows;
EXECUTE admin_count;
SET SESSION AUTHORIZATION regress_tapas_analyst;
EXECUTE admin_rows;
\echo :LAST_ERROR_SQLSTATE
EXECUTE admin_count;
-- a plan prepared by the analyst (gated) is captured for the analyst only
PREPARE analyst_count AS SELECT count(*) FROM pat WHERE zip = 1;
EXECUTE analyst_count;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat WHERE zip = 2;
RESET SESSION AUTHORIZATION;
-- the admin runs the analyst's gated plan: passes through, nothing captured
EXECUTE analyst_count;
SELECT * FROM cap;

-- the admin role's members are exempt
SET SESSION AUTHORIZATION regress_tapas_auditor;
SELECT id FROM pat ORDER BY id LIMIT 1;
RESET SESSION AUTHORIZATION;

DEALLOCATE ALL;
DROP FUNCTION f_definer_rows(), f_definer_count();
DROP VIEW cap;
DROP TABLE pat;
DROP ROLE regress_tapas_helper;
