-- Arithmetic over quasi-identifiers (issue 10, class 1 and "analysts keep
-- their everyday SQL"): + - * on non-sensitive columns are admitted and
-- evaluated on every row of the table before the query reads any
-- (src/capture/prevalidate.c), so that no error depends on the rows a
-- query selects or on a sensitive value.
SET tapas.mode = off;
\i sql/fixtures/pat.sql
\set VERBOSITY default
CREATE TABLE born (id int PRIMARY KEY, born date NOT NULL, sex text NOT NULL, code int2 NOT NULL,
                   rare bool NOT NULL);
INSERT INTO born SELECT i, date '1950-01-01' + i * 400, CASE WHEN i % 2 = 0 THEN 'f' ELSE 'm' END,
       (i % 3)::int2, i = 7 FROM generate_series(1, 40) i;
-- one row near the top of int4: age-like arithmetic with it overflows
INSERT INTO pat VALUES (13, 1, 2147483000, false, 5);
SELECT tapas.protect('born', 'id', ARRAY['rare'], 2);
GRANT SELECT ON born TO regress_tapas_analyst;
SET SESSION AUTHORIZATION regress_tapas_analyst;

-- everyday arithmetic on quasi-identifiers: answered
SELECT count(*) FROM born WHERE born + 365 > date '1960-01-01';
SELECT count(*) FROM born WHERE born + interval '1 year' > date '1960-01-01';
SELECT count(*) FROM born WHERE extract(year FROM born)::int / 10 * 10 = 1970;
SELECT (extract(year FROM born)::int / 10 * 10) AS decade, count(*) FROM born GROUP BY 1 ORDER BY 1;
SELECT count(*) FROM born WHERE sex || '-' || code::text = 'f-1';
SELECT count(*) FROM born WHERE abs(code - 1) = 1;
SELECT count(*) FILTER (WHERE rare AND code * 2 = 2) FROM born;
SELECT sum(CASE WHEN code + 1 = 2 THEN 1 ELSE 0 END) FROM born;
-- an overflow on some row of the table refuses the query as a whole,
-- whatever rows the query selects: here the row with age 2147483000 is
-- not even in the WHERE's range, and the same refusal comes without the
-- sensitive condition
SELECT count(*) FROM pat WHERE age < 100 AND age + 1000 > 0;
SELECT count(*) FILTER (WHERE hiv AND age + 1000 > 0) FROM pat;
SELECT count(*) FILTER (WHERE age + 1000 > 0) FROM pat;
-- the same arithmetic that fits every row is answered
SELECT count(*) FILTER (WHERE hiv AND age + 100 > 0) FROM pat;
-- parameters: checked with the value of each execution
PREPARE q(int) AS SELECT count(*) FROM pat WHERE age + $1 > 0;
EXECUTE q(100);
EXECUTE q(1000);
DEALLOCATE q;
-- casts of text to numbers: checked on every row too, and the refusal
-- does not show the failing text
RESET SESSION AUTHORIZATION;
CREATE TABLE zipt (id int PRIMARY KEY, zip text NOT NULL, hiv bool NOT NULL);
INSERT INTO zipt SELECT i, (10000 + i % 4)::text, i % 5 = 0 FROM generate_series(1, 20) i;
SELECT tapas.protect('zipt', 'id', ARRAY['hiv'], 2);
GRANT SELECT ON zipt TO regress_tapas_analyst;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE hiv) FROM zipt WHERE zip::int >= 10002;
RESET SESSION AUTHORIZATION;
UPDATE zipt SET zip = 'N/A' WHERE id = 20;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE hiv) FROM zipt WHERE zip::int >= 10002;
-- guards are kept: a cast is checked on the rows that the non-sensitive
-- WHERE conjuncts before it keep, or within its CASE
SELECT count(*) FILTER (WHERE hiv) FROM zipt WHERE zip <> 'N/A' AND zip::int >= 10002;
SELECT count(*) FILTER (WHERE hiv AND CASE WHEN zip <> 'N/A' THEN zip::int END >= 10002) FROM zipt;
-- but a sensitive guard is no guard: the cast is checked on every row
SELECT count(*) FILTER (WHERE hiv AND CASE WHEN hiv THEN zip::int END >= 10002) FROM zipt;
SELECT count(*) FROM zipt WHERE zip::int >= 10002 AND zip <> 'N/A';
RESET SESSION AUTHORIZATION;
DROP TABLE zipt;
SET SESSION AUTHORIZATION regress_tapas_analyst;
-- EXPLAIN reads no row: nothing is evaluated
EXPLAIN (COSTS OFF) SELECT count(*) FROM pat WHERE age + 1000 > 0;
-- sensitive numbers with a bounded constant (curated.c): unit changes and
-- offsets, which overflow only beyond 10^131066 (numeric) or 1.8e302
-- (float8); a constant out of the bounds, or an integer, is refused
SELECT round(sum(income * 1.1), 2), round(avg(income - 1000), 2), round(avg(2 * income + 1), 2) FROM pat;
SELECT sum(income * 1e7) FROM pat;
SELECT sum(income * income) FROM pat;
SELECT sum(income - 1e16) FROM pat;
-- but not as a grouping key: its absent values would not be logged
SELECT count(*) FROM pat GROUP BY income + 1;
-- still refused per row: sensitive columns, division by a row value,
-- functions whose cost grows with a value, and arithmetic in a sub-query
SELECT sum(hiv::int * 2000000000) FROM pat;
SELECT count(*) FROM pat WHERE 100 / (age - 21) > 0;
SELECT count(*) FROM born WHERE length(repeat(sex, code)) > 1;
SELECT count(*) FROM born WHERE code IN (SELECT zip + 1 FROM pat WHERE false);
RESET SESSION AUTHORIZATION;
DROP TABLE pat, born;
