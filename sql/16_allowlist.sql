-- The closed expression language (issue 10, class 1): every expression
-- evaluated per row of a protected table (WHERE, JOIN ... ON, FILTER,
-- aggregate arguments, GROUP BY) is built from an allow-list, whether or
-- not it reads a column (src/capture/allowlist.c, curated.c).
-- capture only: the auditor's refusals have their own suites (sql/4x_audit_*)
SET tapas.mode = off;
\i sql/fixtures/pat.sql
-- what the gate captured for the last analyst statement, in a stable order
CREATE VIEW cap AS
SELECT statistic, answer, covered, keys FROM tapas.last_capture() ORDER BY statistic, keys;
\set VERBOSITY terse

-- the attacker's toolbox: user functions with errors, notices, writes
CREATE SCHEMA mal;
GRANT USAGE ON SCHEMA mal TO PUBLIC;
CREATE TABLE mal.sink (v int);
GRANT ALL ON mal.sink TO PUBLIC;
CREATE SEQUENCE mal.seq;
GRANT ALL ON mal.seq TO PUBLIC;
CREATE FUNCTION mal.boom() RETURNS int LANGUAGE plpgsql IMMUTABLE
	AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$;
CREATE FUNCTION mal.notice() RETURNS int LANGUAGE plpgsql IMMUTABLE
	AS $$ BEGIN RAISE NOTICE 'the target exists'; RETURN 0; END $$;
CREATE FUNCTION mal.write() RETURNS int LANGUAGE plpgsql
	AS $$ BEGIN INSERT INTO mal.sink VALUES (1); RETURN 0; END $$;
-- inlined by the planner: its body alone (1 / 0) would not show the name
CREATE FUNCTION mal.inl(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT 1 / $1';
-- marked LEAKPROOF by a superuser: still a user function
CREATE FUNCTION mal.lp(k int) RETURNS boolean LANGUAGE sql IMMUTABLE LEAKPROOF
	AS $$ SELECT k % 2 = 0 $$;
CREATE FUNCTION mal.div(int, int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 / $2';
CREATE OPERATOR mal.%% (FUNCTION = mal.div, LEFTARG = int, RIGHTARG = int);
CREATE FUNCTION mal.ok(int) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT $1 <> 3';
CREATE DOMAIN mal.checked AS int CHECK (mal.ok(VALUE));
CREATE TYPE mal.wrap AS (v int);
CREATE FUNCTION mal.to_wrap(int) RETURNS mal.wrap LANGUAGE sql IMMUTABLE AS 'SELECT ROW(1 / $1)::mal.wrap';
CREATE CAST (int AS mal.wrap) WITH FUNCTION mal.to_wrap(int) AS IMPLICIT;
CREATE FUNCTION mal.wrap_v(mal.wrap) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT ($1).v';
CREATE VIEW mal.v AS SELECT id, zip, hiv, mal.boom() AS b FROM pat;
GRANT SELECT ON mal.v TO PUBLIC;
CREATE TABLE zips (zip int PRIMARY KEY, region text);
INSERT INTO zips VALUES (0, 'north'), (1, 'south'), (2, 'south');
GRANT SELECT ON zips TO regress_tapas_analyst;

SET SESSION AUTHORIZATION regress_tapas_analyst;
-- the issue's examples: code that runs only for the target row
\set VERBOSITY default
SELECT sum(CASE WHEN hiv AND age = 24 THEN mal.boom() ELSE 0 END) FROM pat;
\set VERBOSITY terse
\echo :LAST_ERROR_SQLSTATE
SELECT sum(CASE WHEN hiv AND age = 24 THEN mal.notice() ELSE 0 END) FROM pat;
SELECT sum(CASE WHEN hiv AND age = 24 THEN pg_sleep(1)::text::int ELSE 0 END) FROM pat;
SELECT sum(CASE WHEN hiv AND age = 24 THEN nextval('mal.seq') ELSE 0 END) FROM pat;
SELECT sum(CASE WHEN hiv AND age = 24 THEN mal.write() ELSE 0 END) FROM pat;
SELECT count(*) FILTER (WHERE hiv AND pg_try_advisory_lock(1)) FROM pat;
SELECT count(*) FILTER (WHERE hiv AND set_config('x.y', '1', false) = '1') FROM pat;
-- the auditor re-running the analyst's expression (class 2): refused first
SELECT sum(CASE WHEN hiv THEN length(set_config('x.y',
	query_to_xml('SELECT id FROM pat WHERE hiv', false, false, '')::text, false)) ELSE 0 END) FROM pat;
-- more spellings: COALESCE, GROUP BY, JOIN ... ON, WHERE, a view, inlining
SELECT sum(COALESCE(income, mal.boom())) FROM pat;
SELECT count(*) FROM pat GROUP BY CASE WHEN hiv THEN mal.boom() END;
SELECT count(*) FROM pat p JOIN zips z ON z.zip = p.zip AND mal.boom() = 0;
SELECT count(*) FROM pat WHERE zip = 1 AND mal.boom() = 0;
SELECT count(*) FROM mal.v WHERE hiv AND b = 0;
SELECT sum(mal.inl(CASE WHEN hiv THEN 0 ELSE 1 END)) FROM pat;
SELECT count(*) FROM pat WHERE mal.lp(id);
-- an operator, a domain, a cast, an implicit cast, a type's input function
SELECT count(*) FILTER (WHERE hiv AND 1 OPERATOR(mal.%%) 0 = 0) FROM pat;
SELECT sum((CASE WHEN hiv THEN 3 ELSE 1 END)::mal.checked) FROM pat;
SELECT sum(mal.wrap_v((CASE WHEN hiv THEN 0 ELSE 1 END)::mal.wrap)) FROM pat;
SELECT sum(mal.wrap_v(CASE WHEN hiv THEN 0 ELSE 1 END)) FROM pat;
SELECT sum((CASE WHEN hiv THEN 'x' ELSE '1' END)::int) FROM pat;
SELECT sum(current_setting('x.y')::int) FILTER (WHERE hiv) FROM pat;
-- sub-queries per row: scalar ones anywhere, EXISTS/IN outside WHERE
SELECT sum((SELECT 1 / 0)) FROM pat;
SELECT count(*) FILTER (WHERE hiv AND zip IN (SELECT zip FROM zips)) FROM pat;
SELECT count(*) FROM pat WHERE zip = (SELECT zip FROM zips WHERE region = 'north');
SELECT count(*) FROM pat WHERE zip IN (SELECT zip FROM zips WHERE mal.boom() = 0);
-- a CTE and a LATERAL
WITH c AS (SELECT * FROM pat) SELECT sum(CASE WHEN hiv THEN mal.boom() END) FROM c;
SELECT count(*) FROM pat, LATERAL (SELECT mal.boom()) x;
-- parameters outside expressions evaluated for every row
PREPARE pf(int) AS SELECT count(*) FILTER (WHERE hiv AND age > $1 + 1) FROM pat;
SET plan_cache_mode = force_generic_plan;
EXECUTE pf(20);
RESET plan_cache_mode;
DEALLOCATE pf;
-- built-in functions that can raise on some row value
SELECT count(*) FROM pat WHERE 1 / (age - 25) > 0;
SELECT sum(1 / (age - 25)) FROM pat;
SELECT count(*) FROM pat WHERE zip + 1 = 2;
SELECT sum(income::int) FROM pat;
SELECT sum(income) FILTER (WHERE income / 0 > 1) FROM pat;
SELECT count(*) FROM pat GROUP BY abs(age);
SELECT count(*) FROM pat GROUP BY age % 0;
SELECT count(*) FROM pat GROUP BY age / -1;
SELECT count(*) FROM pat WHERE EXISTS (SELECT 1 FROM zips z WHERE 1 / (pat.age - 25) > 0);
SELECT count(*) FROM pat WHERE zip IN (SELECT zip FROM zips WHERE pat.hiv);
RESET SESSION AUTHORIZATION;
SELECT count(*) AS writes, (SELECT last_value FROM mal.seq) AS seq FROM mal.sink;

-- row-independent: evaluated once at planning, whatever the rows hold
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(CASE WHEN hiv AND age = 99 THEN 1 / 0 ELSE 0 END) FROM pat;
SELECT count(*) FROM pat WHERE age = 99 AND substr('abc', 1, -1) = 'a';
SELECT sum(CASE WHEN hiv THEN 10 * 2 ELSE 0 END) FROM pat;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
-- ... or evaluated for every row the scan reads (non-sensitive WHERE)
SET SESSION AUTHORIZATION regress_tapas_analyst;
PREPARE pw(int) AS SELECT count(*) FROM pat WHERE age > $1 + 1 AND zip = 1;
SET plan_cache_mode = force_generic_plan;
EXECUTE pw(20);
RESET plan_cache_mode;
DEALLOCATE pw;

-- allowed: leakproof operators, comparisons, widening casts, CASE, IN lists
SELECT count(*) FROM pat WHERE zip = 1 AND age < 25;
SELECT sum(hiv::int), sum(age::bigint), sum(CASE WHEN hiv THEN income ELSE 0 END) FROM pat;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat WHERE zip IN (0, 2) AND hiv IS NOT TRUE;
-- the curated functions, with valid constant arguments
SELECT age / 10 AS decade, count(*) FROM pat GROUP BY age / 10;
SELECT width_bucket(age, 20, 30, 2) AS b, count(*) FROM pat GROUP BY 1 ORDER BY 1;
SELECT count(*) FROM pat WHERE substr(zip::text, 1, 1) = '1' AND lower('A') = 'a';
SELECT count(*) FROM pat WHERE zip::text LIKE '1%' AND age % 2 = 0;
SELECT sum(round(income, -2)) FROM pat WHERE zip = 1;
SELECT count(*) FILTER (WHERE income::text = '10') FROM pat;
SELECT extract(year FROM now()) > 2000 AS y, count(*) FROM pat GROUP BY 1;
SELECT count(*) FROM pat WHERE date_trunc('month', now()) <= now() AND zip = 2;
SELECT count(*) FROM pat WHERE zip::text COLLATE "C" < '2';
-- ... and with invalid ones: refused before any row is read
SELECT count(*) FROM pat WHERE substr(zip::text, 1, -1) = '1';
SELECT count(*) FROM pat GROUP BY date_trunc('fortnight', now());
SELECT count(*) FROM pat GROUP BY width_bucket(age, 20, 20, 2);
SELECT count(*) FROM pat WHERE zip::text LIKE 'a\';
-- a delay for the rows that reach a CASE branch: sizes are bounded there
SELECT sum(CASE WHEN hiv THEN length(to_char(now(), repeat('YYYY', 1000))) ELSE 0 END) FROM pat;
SELECT count(*) FILTER (WHERE hiv AND zip::text LIKE repeat('%a', 1000)) FROM pat;
SELECT count(*) FILTER (WHERE hiv AND age IN (SELECT generate_series(1, 1000))) FROM pat;
SELECT count(*) FILTER (WHERE hiv AND age = ANY (ARRAY(SELECT generate_series(1, 1000)))) FROM pat;
SELECT count(*) FILTER (WHERE hiv AND age = ANY (array_fill(21, ARRAY[3000]))) FROM pat;
SELECT count(*) FILTER (WHERE hiv AND age::bigint = ANY ('{20,21,22,23}'::bigint[] || '{24,25,26}')) FROM pat;
-- (in WHERE every row pays the same: not bounded)
SELECT count(*) FROM pat WHERE zip::text NOT LIKE repeat('%a', 1000);
-- tapas.design_member in WHERE: constants, or parameters
SELECT sum(hiv::int) FROM pat WHERE tapas.design_member('bch', 12, 1, 1, id);
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
PREPARE pd(int) AS SELECT count(*) FROM pat WHERE tapas.design_member('bch', 12, 1, $1, id);
SET plan_cache_mode = force_generic_plan;
EXECUTE pd(1);
RESET plan_cache_mode;
DEALLOCATE pd;
SELECT count(*) FILTER (WHERE hiv OR tapas.design_member('bch', 12, 1, 1, id)) FROM pat;
SELECT count(*) FROM pat WHERE tapas.design_member('bch', 12, 1, 999, id);

-- sub-queries over unprotected tables in non-sensitive WHERE conditions
SELECT count(*) FROM pat WHERE zip IN (SELECT zip FROM zips WHERE region = 'south');
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat WHERE EXISTS (SELECT 1 FROM zips z WHERE z.zip = pat.zip AND z.region = 'north');
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- errors in expressions over aggregates happen after the cells are captured
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, 1 / (count(*) - 4) FROM pat GROUP BY zip;
SELECT (SELECT count(*) FROM zips) AS zips, count(*) FROM pat;
SELECT round(avg(income), 2) AS avg_income, 100.0 * count(*) FILTER (WHERE hiv) / count(*) AS pct FROM pat;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

DROP VIEW cap;
DROP SCHEMA mal CASCADE;
DROP TABLE pat, zips;
