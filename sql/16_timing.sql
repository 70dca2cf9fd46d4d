-- The timing channel, closed by construction (issue 10): what a row costs
-- where only some rows are evaluated (CASE branches, FILTER, aggregate
-- arguments, GROUP BY) must not depend on the row beyond its own bounded
-- values (src/capture/allowlist.c, curated.c):
--   1. row-independent sub-expressions are folded once before the scan,
--      and a folded value above 64 kB refuses the query;
--   2. per row, constants are bounded (8 kB, IN lists 8 kB), and so are the
--      cost-driving constant arguments of curated functions;
--   3. functions whose cost grows with an argument's value are refused per row.
SET tapas.mode = off;
\i sql/fixtures/pat.sql
\set VERBOSITY terse
SELECT repeat('z', 9000) AS big \gset
SET SESSION AUTHORIZATION regress_tapas_analyst;

-- the red team's example: the branch runs only for the target
SELECT sum(CASE WHEN hiv THEN length(repeat('x', 200000000)) ELSE 0 END) FROM pat;
\echo :LAST_ERROR_SQLSTATE
-- other spellings: nested branches, COALESCE/NULLIF, FILTER, other growers
SELECT sum(CASE WHEN hiv THEN CASE WHEN zip = 1 THEN length(repeat('ab', 100000)) ELSE 1 END ELSE 0 END) FROM pat;
SELECT sum(CASE WHEN hiv THEN coalesce(NULLIF(zip, zip), length(lpad('x', 1000000))) ELSE 0 END) FROM pat;
SELECT count(*) FILTER (WHERE hiv AND length(rpad('', 5000000, 'y')) > 0) FROM pat;
SELECT count(*) FILTER (WHERE hiv AND md5(repeat('m', 100000)) = '') FROM pat;
-- IN lists of huge arrays, built or folded
SELECT count(*) FILTER (WHERE hiv AND age = ANY (array_fill(21, ARRAY[100000]))) FROM pat;
SELECT count(*) FILTER (WHERE hiv AND age = ANY (string_to_array(repeat('21,', 30000), ',')::int[])) FROM pat;
-- casts of long text, string concatenation growth
SELECT count(*) FILTER (WHERE hiv AND zip::text = repeat('9', 100000)::varchar) FROM pat;
SELECT sum(CASE WHEN hiv THEN length(zip::text || repeat('q', 70000)) ELSE 0 END) FROM pat;
SELECT sum(CASE WHEN hiv THEN length(zip::text || zip::text) ELSE 0 END) FROM pat;
-- a long literal compared per row
SELECT count(*) FILTER (WHERE hiv AND zip::text < :'big') FROM pat;
SELECT count(*) FILTER (WHERE hiv AND zip::char(3) = :'big'::char(9000)) FROM pat;
-- the folded value is bounded wherever it appears, WHERE too
SELECT count(*) FROM pat WHERE length(repeat('x', 200000000)) > 0;
-- curated functions: their cost-driving constants are bounded per row
SELECT sum(CASE WHEN hiv THEN length(to_char(now(), repeat('Y', 300))) ELSE 0 END) FROM pat;
SELECT count(*) FILTER (WHERE hiv AND zip::text LIKE repeat('%', 300)) FROM pat;
SELECT sum(CASE WHEN hiv THEN income / 1.00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001 ELSE 0 END) FROM pat;
SELECT sum(CASE WHEN hiv THEN round(income, 1001) ELSE 0 END) FROM pat;
-- functions whose cost grows with a value: refused per row
SELECT count(*) FILTER (WHERE hiv AND factorial(age) > 0) FROM pat;
SELECT sum(CASE WHEN hiv THEN power(income, 1000) ELSE 0 END) FROM pat;
SELECT count(*) FILTER (WHERE hiv AND zip::text ~ '^(a+)+$') FROM pat;
SELECT sum(CASE WHEN hiv THEN length(repeat('x', zip * 100000000)) ELSE 0 END) FROM pat;
SELECT sum(CASE WHEN hiv THEN (SELECT count(*) FROM generate_series(1, zip * 1000000)) ELSE 0 END) FROM pat;

-- everyday SQL is still answered: small folds, short formats and patterns
SELECT sum(CASE WHEN hiv THEN length(repeat('x', 10)) ELSE 0 END) FROM pat;
SELECT count(*) FILTER (WHERE hiv AND to_char(now(), 'YYYY-MM') <> '') FROM pat;
SELECT count(*) FILTER (WHERE hiv AND zip::text LIKE '1%') FROM pat;
SELECT sum(CASE WHEN hiv THEN round(income / 3, 2) ELSE 0 END) FROM pat;
-- in WHERE every row pays the same: long curated constants stay allowed there
SELECT count(*) FROM pat WHERE to_char(now(), repeat('Y', 300)) <> '';
RESET SESSION AUTHORIZATION;
DROP TABLE pat;
