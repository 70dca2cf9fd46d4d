-- variance and stddev in every spelling are functions of n, sum(x) and
-- sum(x * x) over the covered set: captured as those three cells, so the
-- auditor sees what they reveal (a difference of two stddevs isolates a
-- record as a difference of two sums does).
SET client_min_messages = warning;
\i sql/fixtures/pat.sql
CREATE VIEW cap AS
SELECT statistic, answer, covered, keys FROM tapas.last_capture() ORDER BY statistic, keys;
\set VERBOSITY terse
SELECT tapas.reset('pat') >= 0 AS reset;

SET tapas.mode = off;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT round(variance(income), 4) AS variance, round(stddev_pop(income), 4) AS stddev_pop FROM pat;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
-- the answers agree with the three cells: var_samp = (S2 - S1^2/n) / (n - 1)
SELECT round((s2 - s1 * s1 / n) / (n - 1), 4) AS from_cells
  FROM (SELECT sum(income) AS s1, sum(income * income) AS s2, count(income) AS n FROM pat) t;
-- an integer column is squared in numeric: no overflow at the top of int4
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, round(stddev(age), 4) FROM pat GROUP BY zip ORDER BY zip;
RESET SESSION AUTHORIZATION;
SELECT statistic, count(*) FROM tapas.last_capture() GROUP BY statistic ORDER BY statistic;

-- deny mode: the difference of two stddevs is refused like that of two sums
SET tapas.mode = deny;
SELECT tapas.reset('pat') >= 0 AS reset;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT round(stddev(income), 4) FROM pat;
SELECT round(stddev(income), 4) FROM pat WHERE id <> 3;
RESET SESSION AUTHORIZATION;
-- and k applies to each of them
SET tapas.mode = off;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT variance(income) FROM pat WHERE id = 3;
-- other order statistics stay refused
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY income) FROM pat;
SELECT max(income) FROM pat;
RESET SESSION AUTHORIZATION;
DROP VIEW cap;
DROP TABLE pat;
