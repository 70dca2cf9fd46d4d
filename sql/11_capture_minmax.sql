-- min, max and count(DISTINCT) over columns that are not sensitive answer
-- facts about quasi-identifiers: allowed (k on the covered set) as long as
-- nothing sensitive decides which rows they see.
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
-- ordered-set aggregates stay refused
SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY age) FROM pat;
RESET SESSION AUTHORIZATION;
DROP TABLE pat;
