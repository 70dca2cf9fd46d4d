-- Leakproof rule: expressions on columns of a protected table may not raise
-- errors that depend on a row (1/(x-5)); leakproof functions and widening
-- casts are allowed.
-- capture only: the auditor's refusals have their own suites (sql/4x_audit_*)
SET tapas.mode = off;
\i sql/fixtures/pat.sql
-- what the gate captured for the last analyst statement, in a stable order
CREATE VIEW cap AS
SELECT statistic, answer, covered, keys FROM tapas.last_capture() ORDER BY statistic, keys;
\set VERBOSITY terse
-- a stand-in for tapas.design_member(): LEAKPROOF, over the key column
CREATE FUNCTION member_even(k bigint) RETURNS boolean LANGUAGE sql IMMUTABLE LEAKPROOF
	AS $$ SELECT k % 2 = 0 $$;
CREATE FUNCTION member_even_leaky(k bigint) RETURNS boolean LANGUAGE sql IMMUTABLE
	AS $$ SELECT k % 2 = 0 $$;

SET SESSION AUTHORIZATION regress_tapas_analyst;
-- error channels are refused
SELECT count(*) FROM pat WHERE 1 / (age - 25) > 0;
\echo :LAST_ERROR_SQLSTATE
SELECT sum(1 / (age - 25)) FROM pat;
SELECT count(*) FROM pat WHERE hiv AND 1 / (age - 25) > 0;
SELECT count(*) FROM pat WHERE zip + 1 = 2;
SELECT sum(income::int) FROM pat;
SELECT sum(income) FILTER (WHERE income / 0 > 1) FROM pat;
SELECT count(*) FROM pat WHERE member_even_leaky(id);
SELECT count(*) FROM pat GROUP BY age / 10;
SELECT count(*) FROM pat WHERE income::text = '10';
SELECT count(*) FROM pat WHERE hiv IN (SELECT true);

-- leakproof operators, widening casts, CASE, IN lists and LEAKPROOF functions
SELECT count(*) FROM pat WHERE zip = 1 AND age < 25;
SELECT sum(hiv::int), sum(age::bigint), sum(CASE WHEN hiv THEN income ELSE 0 END) FROM pat;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat WHERE zip IN (0, 2) AND hiv IS NOT TRUE;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(hiv::int) FROM pat WHERE member_even(id);
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- sub-queries over unprotected tables in non-sensitive conditions: what
-- they do with the protected table's columns is checked too
CREATE TABLE zips (zip int PRIMARY KEY, region text);
INSERT INTO zips VALUES (0, 'north'), (1, 'south'), (2, 'south');
GRANT SELECT ON zips TO regress_tapas_analyst;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat WHERE zip IN (SELECT zip FROM zips WHERE region = 'south');
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat WHERE EXISTS (SELECT 1 FROM zips z WHERE z.zip = pat.zip AND z.region = 'north');
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat WHERE EXISTS (SELECT 1 FROM zips z WHERE 1 / (pat.age - 25) > 0);
SELECT count(*) FROM pat WHERE zip = (SELECT max(z.zip + pat.age) FROM zips z);
SELECT count(*) FROM pat WHERE zip IN (SELECT zip FROM zips WHERE pat.hiv);
RESET SESSION AUTHORIZATION;

-- errors in expressions over aggregates happen after the cells are captured
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, 1 / (count(*) - 4) FROM pat GROUP BY zip;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

DROP FUNCTION member_even(bigint), member_even_leaky(bigint);
DROP VIEW cap;
DROP TABLE pat, zips;
