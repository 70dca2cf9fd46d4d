-- Small groups hidden by HAVING (issue 10): a group whose cells cover
-- fewer than k rows is dropped, neither released nor logged, when a
-- top-level HAVING conjunct count(..) >= t (> t - 1, t <= count(..))
-- rejects it by its size alone (src/capture/having.c); anything else
-- below k is still refused (TP002).
SET tapas.mode = off;
SET client_min_messages = warning;
CREATE TABLE hv (id int PRIMARY KEY, grp int NOT NULL, born date NOT NULL, rare bool NOT NULL,
                 income numeric);
-- groups 0..3 of 10 rows each, group 4 of 3 rows, group 5 of 1 row
INSERT INTO hv SELECT i, CASE WHEN i <= 40 THEN i % 4 WHEN i <= 43 THEN 4 ELSE 5 END,
       date '1960-01-01' + i * 400, i % 7 = 0, 1000 + i FROM generate_series(1, 44) i;
GRANT SELECT ON hv TO regress_tapas_analyst;
SELECT tapas.protect('hv', 'id', ARRAY['rare', 'income'], 5);
RESET client_min_messages;
CREATE VIEW cap AS
SELECT statistic, answer, covered FROM tapas.last_capture() ORDER BY statistic, answer, covered;
\set VERBOSITY terse
SET SESSION AUTHORIZATION regress_tapas_analyst;

-- everyday spellings: the small groups (3 rows and 1 row) are dropped
SELECT grp, count(*) FROM hv GROUP BY grp HAVING count(*) >= 5 ORDER BY 1;
SELECT grp, count(*) FROM hv GROUP BY grp HAVING count(*) > 4 ORDER BY 1;
SELECT grp, count(*) FROM hv GROUP BY grp HAVING 5 <= count(*) ORDER BY 1;
SELECT grp, count(*) FROM hv GROUP BY grp HAVING 4 < count(id) ORDER BY 1;
SELECT grp, sum(income) FROM hv GROUP BY grp HAVING count(*) >= 10 AND sum(income) > 0 ORDER BY 1;
SELECT grp, count(*) FILTER (WHERE rare) FROM hv GROUP BY grp HAVING count(*) >= 5 ORDER BY 1;
SELECT grp % 2 AS odd, count(*) FROM hv WHERE grp < 5 GROUP BY 1 HAVING count(*) >= 5 ORDER BY 1;
RESET SESSION AUTHORIZATION;
-- the small groups are not logged
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
-- a threshold a small group can reach is still refused
SELECT grp, count(*) FROM hv GROUP BY grp HAVING count(*) >= 3 ORDER BY 1;
\echo :LAST_ERROR_SQLSTATE
-- HAVING over a sensitive aggregate: small groups still refused
SELECT grp, count(*) FROM hv GROUP BY grp HAVING count(*) FILTER (WHERE rare) >= 1 ORDER BY 1;
\echo :LAST_ERROR_SQLSTATE
SELECT grp, count(*) FROM hv GROUP BY grp HAVING sum(income) >= 10000 ORDER BY 1;
\echo :LAST_ERROR_SQLSTATE
-- not a top-level conjunct, or not a constant: still refused
SELECT grp, count(*) FROM hv GROUP BY grp HAVING count(*) >= 5 OR sum(income) > 0 ORDER BY 1;
\echo :LAST_ERROR_SQLSTATE
SELECT grp, count(*) FROM hv GROUP BY grp HAVING NOT count(*) < 5 ORDER BY 1;
\echo :LAST_ERROR_SQLSTATE
-- a parameter: a custom plan folds it into a constant, a generic plan does not
PREPARE p(int) AS SELECT grp, count(*) FROM hv GROUP BY grp HAVING count(*) >= $1 ORDER BY 1;
EXECUTE p(5);
SET plan_cache_mode = force_generic_plan;
EXECUTE p(5);
\echo :LAST_ERROR_SQLSTATE
RESET plan_cache_mode;
DEALLOCATE p;
-- a sensitive WHERE condition joins the count: still at most the group
SELECT grp, count(*) FROM hv WHERE rare OR income > 1010 GROUP BY grp HAVING count(*) >= 5 ORDER BY 1;
-- a count over a sensitive condition is at most its group: still a size bound
SELECT grp, count(*) FROM hv GROUP BY grp HAVING count(*) FILTER (WHERE rare) >= 5 ORDER BY 1;
-- grouping by a sensitive column: a group's size depends on sensitive values
SELECT rare, count(*) FROM hv WHERE grp = 4 GROUP BY rare HAVING count(*) >= 5;
\echo :LAST_ERROR_SQLSTATE
RESET SESSION AUTHORIZATION;
DROP VIEW cap;
DROP TABLE hv;
