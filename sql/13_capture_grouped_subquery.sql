-- A sub-query that groups by a sensitive column and whose rows are used
-- again above (aggregated, counted, filtered, joined) is captured like the
-- flat query "SELECT hiv, count(*) ... GROUP BY hiv": the gate sits on the
-- sub-query's Agg and logs every group's cell, whatever the level above
-- does with them (it can only learn a function of those cells).  Issue 13:
-- these shapes failed with "grouping column 1 is not in the gate's input",
-- then were refused; the planner had dropped the grouping column's label
-- (a trivial SubqueryScan removed by setrefs), not the column.
SET tapas.mode = off;
\i sql/fixtures/pat.sql
CREATE VIEW cap AS
SELECT statistic, answer, covered, keys FROM tapas.last_capture() ORDER BY statistic, keys;
\set VERBOSITY terse

-- the flat query, for comparison
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT hiv, count(*) FROM pat GROUP BY hiv ORDER BY hiv;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- the number of groups: the same two cells
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM (SELECT hiv FROM pat GROUP BY hiv) s;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(hiv) FROM (SELECT hiv FROM pat GROUP BY hiv) s;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- a sum over groups that the sub-query does not project (GROUP BY zip, hiv):
-- one cell per (zip, hiv), as for SELECT zip, hiv, count(*) ... GROUP BY zip, hiv
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(c) FROM (SELECT count(*) c FROM pat GROUP BY zip, hiv) s;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(c) FROM (SELECT zip, hiv, count(*) c FROM pat GROUP BY zip, hiv) s;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS cells FROM cap;

-- max over the groups of a filtered set, a filter above the groups, HAVING
-- and LIMIT inside: every group of the sub-query is logged
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT max(c) FROM (SELECT count(*) c FROM pat WHERE zip = 1 GROUP BY hiv) s;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM (SELECT zip FROM pat GROUP BY zip, hiv) s WHERE zip = 1;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM (SELECT hiv FROM pat GROUP BY hiv HAVING count(*) > 5) s;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM (SELECT hiv FROM pat GROUP BY hiv LIMIT 1) s;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- a computed sensitive key, inside a scalar sub-query
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT (SELECT count(*) FROM (SELECT income > 50 FROM pat GROUP BY 1) s) AS n;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- CTEs (inlined and materialized), a sub-query of a sub-query, UNION ALL,
-- a join with a lookup list: the same cells
SET SESSION AUTHORIZATION regress_tapas_analyst;
WITH g AS (SELECT hiv, count(*) c FROM pat GROUP BY hiv) SELECT sum(c) FROM g;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
WITH g AS MATERIALIZED (SELECT hiv, count(*) c FROM pat GROUP BY hiv) SELECT sum(c) FROM g;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM (SELECT c FROM (SELECT hiv, count(*) c FROM pat GROUP BY hiv) a) b;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM (SELECT hiv FROM pat GROUP BY hiv UNION ALL SELECT hiv FROM pat WHERE zip = 0 GROUP BY hiv) s;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM (SELECT zip, hiv FROM pat GROUP BY zip, hiv) s JOIN (VALUES (0), (1)) v(z) ON v.z = s.zip;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS cells FROM cap;

-- returning the groups, as before
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT hiv, c FROM (SELECT hiv, count(*) c FROM pat GROUP BY hiv) s ORDER BY hiv;
SELECT c FROM (SELECT zip, hiv, count(*) c FROM pat GROUP BY zip, hiv) s ORDER BY c;
RESET SESSION AUTHORIZATION;

-- what stays refused, each with its own message: grouping sets over a
-- sensitive column, EXISTS (DISTINCT without aggregates is GROUP BY: answered
-- as the sub-query grouped by hiv above)
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM (SELECT hiv, zip FROM pat GROUP BY ROLLUP (hiv, zip)) s;
SELECT count(*) FROM (SELECT DISTINCT hiv FROM pat) s;
SELECT EXISTS (SELECT 1 FROM pat GROUP BY hiv HAVING count(*) = 3) AS e;
RESET SESSION AUTHORIZATION;

-- audited like the flat query: after a first answer that leaves out
-- record 4 (an analyst audited alone, with a fresh ledger), the sub-query
-- over the groups would determine it and is refused in deny mode, as the
-- flat query is
CREATE ROLE regress_tapas_sq LOGIN;
GRANT SELECT ON pat TO regress_tapas_sq;
SET tapas.mode = deny;
SET tapas.audit_scope = role;
SET SESSION AUTHORIZATION regress_tapas_sq;
SELECT count(*) FILTER (WHERE hiv) AS q1 FROM pat WHERE id <> 4;
SELECT max(c) FROM (SELECT count(*) c FROM pat GROUP BY hiv) s;
SELECT count(*) FROM (SELECT hiv FROM pat GROUP BY hiv) s;
SELECT hiv, count(*) FROM pat GROUP BY hiv ORDER BY hiv;
RESET SESSION AUTHORIZATION;
SELECT record_key, kind, action FROM tapas.alert_records
 WHERE "table" = 'pat'::regclass AND role = 'regress_tapas_sq' ORDER BY alert_id;
RESET tapas.audit_scope;
RESET tapas.mode;

SELECT tapas.unprotect('pat');
DROP VIEW cap;
DROP TABLE pat;
DROP ROLE regress_tapas_sq;
