-- tapas.role_status: per session user, what was logged, refused and
-- alerted (admin only); a dropped role shows as "dropped role (OID N)",
-- as in tapas.alerts.  A role and a table of this file only, so that earlier suites'
-- ledger rows do not show.
\set VERBOSITY terse
CREATE ROLE regress_tapas_status LOGIN;
CREATE TABLE st (id int PRIMARY KEY, x bool NOT NULL);
INSERT INTO st SELECT g, g % 5 = 0 FROM generate_series(1, 40) g;
SELECT tapas.protect('st', 'id', ARRAY['x'], 5) \gset
GRANT SELECT ON st TO regress_tapas_status;
SELECT 'st'::regclass::oid AS st_oid, 'regress_tapas_status'::regrole::oid AS role_oid \gset

SET SESSION AUTHORIZATION regress_tapas_status;
SELECT count(*) FILTER (WHERE x) FROM st;
SELECT count(*) FILTER (WHERE x) FROM st WHERE id <> 5;
SELECT count(*) FILTER (WHERE x) AS first_half FROM st WHERE id <= 20;
SELECT * FROM tapas.role_status;
RESET SESSION AUTHORIZATION;

SELECT role, tables, cells_logged, rows_covered, refusals, alerts, records_alerted,
	   ledger_cells_pct, first_logged <= last_logged AS ordered, last_alert IS NOT NULL AS alerted
  FROM tapas.role_status WHERE role = 'regress_tapas_status';
SELECT role, table_name, record_key, kind, action FROM tapas.alerts WHERE "table" = 'st'::regclass;

-- the table dropped, then the role: the alert stays, and says what it can
DROP TABLE st;
DROP ROLE regress_tapas_status;
SELECT role = 'dropped role (OID ' || :'role_oid' || ')' AS dropped_role_shown,
	   record_key, action
  FROM tapas.alerts WHERE "table"::oid = :'st_oid';
SELECT count(*) AS status_rows FROM tapas.role_status WHERE role = 'dropped role (OID ' || :'role_oid' || ')';
SELECT tapas.reset(:'st_oid'::oid::regclass) AS cells_removed;
