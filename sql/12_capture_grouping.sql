-- GROUPING SETS, ROLLUP, CUBE, HAVING (cells consulted by HAVING are captured
-- even when their group is filtered out), ORDER BY / LIMIT / DISTINCT above
-- the aggregate.
-- capture only: the auditor's refusals have their own suites (sql/4x_audit_*)
SET tapas.mode = off;
\i sql/fixtures/pat.sql
-- what the gate captured for the last analyst statement, in a stable order
CREATE VIEW cap AS
SELECT statistic, answer, covered, keys FROM tapas.last_capture() ORDER BY statistic, keys;
\set VERBOSITY terse

-- every grouping-set row is a cell
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, age > 22 AS older, count(*)
  FROM pat GROUP BY GROUPING SETS ((zip), (age > 22), ()) ORDER BY 1, 2;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, sum(income) FROM pat GROUP BY ROLLUP (zip) ORDER BY 1;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, zip > 0 AS pos, count(*) FROM pat GROUP BY CUBE (zip, zip > 0)
HAVING count(*) >= 5 ORDER BY 1, 2;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS cells, sum(covered) AS covered FROM cap;

-- a sensitive WHERE with ROLLUP: the grand total stays, absent groups are
-- logged with answer 0
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, count(*) FROM pat WHERE hiv AND age > 21 GROUP BY ROLLUP (zip) ORDER BY 1;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- HAVING: groups filtered out are captured too, including aggregates that
-- only HAVING uses
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, count(*) FROM pat GROUP BY zip HAVING sum(income) > 150 ORDER BY zip;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat HAVING count(*) > 100;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- ORDER BY / LIMIT / OFFSET / DISTINCT above the aggregate: every group is
-- captured, not only the rows returned
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, count(*) FROM pat GROUP BY zip ORDER BY sum(income) DESC LIMIT 1;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT DISTINCT count(*) FROM pat GROUP BY zip;
SELECT zip, count(*) FROM pat GROUP BY zip ORDER BY zip OFFSET 2;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- GROUP BY a sensitive column: the cell of value g is "... filter (where
-- col = g)" over its non-sensitive group; a value absent from a group is a
-- cell with answer 0 (zip 1 has no HIV-positive row with income > 50)
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, hiv, count(*), sum(income) FROM pat WHERE income > 50 GROUP BY zip, hiv ORDER BY 1, 2;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT hiv FROM pat GROUP BY hiv ORDER BY 1;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- an expression over a sensitive column, with a parameter, and a NULL group
SET SESSION AUTHORIZATION regress_tapas_analyst;
PREPARE rich(int) AS SELECT income > $1 AS rich, count(*) FROM pat WHERE zip = 1 GROUP BY 1 ORDER BY 1;
EXECUTE rich(30);
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
DEALLOCATE rich;

-- k applies to the non-sensitive group, not to the count of one value
SELECT tapas.protect('pat', 'id', ARRAY['hiv', 'income'], 4);
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, hiv, count(*) FROM pat GROUP BY zip, hiv ORDER BY 1, 2;
SELECT zip, hiv, count(*) FROM pat WHERE age > 21 GROUP BY zip, hiv ORDER BY 1, 2;
RESET SESSION AUTHORIZATION;

-- hash aggregation that spills (work_mem 64kB): 60 groups of 5,000 keys in
-- random physical order, so each group's capture fills its bitmap and the
-- hash table is reset between batches; every cell still holds exactly its
-- group's keys
SELECT setseed(0.7);
CREATE TABLE spill (id int PRIMARY KEY, g int NOT NULL, hiv bool);
INSERT INTO spill SELECT i, i % 60, i % 11 = 0 FROM generate_series(1, 300000) i ORDER BY random();
ANALYZE spill;
GRANT SELECT ON spill TO regress_tapas_analyst;
SELECT tapas.protect('spill', 'id', ARRAY['hiv'], 2);
SET work_mem = '64kB';
SET enable_sort = off;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) AS groups, sum(n) AS rows, sum(h) AS hiv
  FROM (SELECT g, count(*) AS n, sum(hiv::int) AS h FROM spill GROUP BY g) s;
RESET SESSION AUTHORIZATION;
RESET work_mem;
RESET enable_sort;
SELECT statistic, count(*) AS cells, sum(covered) AS covered, sum(answer) AS answer,
       bool_and(covered = 5000) AS all_5000,
       bool_and(keys = ARRAY(SELECT id::bigint FROM spill s WHERE s.g = c.keys[1] % 60 ORDER BY id))
         AS exact_keys
  FROM tapas.last_capture() c GROUP BY statistic ORDER BY statistic;

SELECT tapas.unprotect('spill');
DROP TABLE spill;

DROP VIEW cap;
DROP TABLE pat;

