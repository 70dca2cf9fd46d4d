-- min, max and count(DISTINCT) over columns that are not sensitive answer
-- facts about quasi-identifiers: allowed (k on the covered set) as long as
-- nothing sensitive decides which rows they see.  So are bool_and, bool_or
-- and every (min and max of booleans), corr, covar_* and regr_* (functions
-- of sums of public values) and the ordered-set percentile_cont,
-- percentile_disc and mode (one row's public value, as min).
SET client_min_messages = warning;
\i sql/fixtures/pat.sql
\set VERBOSITY terse
SET tapas.mode = off;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT min(age), max(age), count(DISTINCT zip), count(DISTINCT age) FROM pat;
SELECT zip, min(age), max(age) FROM pat GROUP BY zip ORDER BY zip;
SELECT max(age) FILTER (WHERE zip = 1) FROM pat WHERE age > 20;
RESET SESSION AUTHORIZATION;
SELECT statistic, covered FROM tapas.last_capture() ORDER BY 1;
SET SESSION AUTHORIZATION regress_tapas_analyst;
-- k applies to the covered set
SELECT max(age) FROM pat WHERE id = 3;
-- refused: a sensitive argument, FILTER, WHERE conjunct or grouping key
SELECT max(income) FROM pat;
SELECT count(DISTINCT income) FROM pat;
SELECT max(age) FILTER (WHERE hiv) FROM pat;
SELECT max(age) FROM pat WHERE hiv;
SELECT hiv, max(age) FROM pat GROUP BY hiv;
SELECT min(CASE WHEN hiv THEN age END) FROM pat;
SELECT bool_or(hiv OR age > 25) FROM pat;
SELECT corr(age, income) FROM pat;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY income) FROM pat;
SELECT regr_slope(age, zip) FILTER (WHERE hiv) FROM pat;
SELECT mode() WITHIN GROUP (ORDER BY age) FROM pat WHERE hiv;
-- the other aggregates over public columns
SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY age) FROM pat;
SELECT zip, bool_and(age > 20), bool_or(age > 25), every(zip < 3),
	   round(corr(age, id)::numeric, 6) AS corr, round(regr_slope(age, id)::numeric, 6) AS slope,
	   round(covar_pop(age, id)::numeric, 6) AS covar, regr_count(age, id),
	   percentile_cont(0.5) WITHIN GROUP (ORDER BY age) AS median, mode() WITHIN GROUP (ORDER BY age)
  FROM pat GROUP BY zip ORDER BY zip;
-- a fraction array is coerced per call (ArrayCoerceExpr): refused as not row-independent
SELECT percentile_cont(ARRAY[0.25, 0.75]) WITHIN GROUP (ORDER BY age) FROM pat;
-- k still applies, and the list aggregates stay refused
SELECT corr(age, zip) FROM pat WHERE id = 3;
SELECT string_agg(age::text, ',') FROM pat;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY age) FROM pat WHERE id < 2;
RESET SESSION AUTHORIZATION;
DROP TABLE pat;
