-- The k threshold: a cell covering fewer than k rows fails the whole query
-- (TP002), naming k and never the size.
-- capture only: the auditor's refusals have their own suites (sql/4x_audit_*)
SET tapas.mode = off;
\i sql/fixtures/pat.sql
-- what the gate captured for the last analyst statement, in a stable order
CREATE VIEW cap AS
SELECT statistic, answer, covered, keys FROM tapas.last_capture() ORDER BY statistic, keys;
\set VERBOSITY terse
SELECT tapas.protect('pat', 'id', ARRAY['hiv', 'income'], 4);

SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat WHERE id = 3;
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM pat WHERE zip = 1 AND age > 24;
SELECT count(*) FROM pat WHERE zip = 7;
SELECT count(*) FROM pat WHERE false;
SELECT age, count(*) FROM pat GROUP BY age;
-- a group that HAVING rejects by its size alone is dropped (sql/17_having_small_groups) ...
SELECT zip, age, count(*) FROM pat GROUP BY zip, age HAVING count(*) >= 4;
-- ... but a group below k that HAVING could keep still counts
SELECT age, count(*) FROM pat GROUP BY age HAVING count(*) >= 2;
-- grouping sets: the small (zip, age) groups fail the query
SELECT zip, count(*) FROM pat GROUP BY GROUPING SETS ((zip), (zip, age));
-- the answer may be small: k bounds the covered set, not the count
SELECT count(*) FROM pat WHERE hiv AND zip = 0;
SELECT zip, count(*) FROM pat GROUP BY zip ORDER BY zip;
-- complements of small sets pass (the auditor catches such trackers)
SELECT count(*) FROM pat WHERE id <> 3;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- a new k applies at once; k = 1 allows single rows
SELECT tapas.protect('pat', 'id', ARRAY['hiv', 'income'], 1);
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat WHERE id = 3;
SELECT count(*) FROM pat WHERE zip = 7;
\echo :LAST_ERROR_SQLSTATE
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- admins are not bound by k
SELECT tapas.protect('pat', 'id', ARRAY['hiv', 'income'], 5);
SELECT count(*) FROM pat WHERE id = 3;

-- after unprotect, the table is an ordinary table again
SELECT tapas.unprotect('pat');
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT id FROM pat WHERE id = 3;
RESET SESSION AUTHORIZATION;

DROP VIEW cap;
DROP TABLE pat;
