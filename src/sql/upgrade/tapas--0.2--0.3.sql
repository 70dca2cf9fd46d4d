-- tapas 0.2 -> 0.3 (ALTER EXTENSION tapas UPDATE).
-- Every object that src/sql/*.sql adds or changes after 0.2 is added or changed here too;
-- test/system/t-extension-update.sh checks that the result equals a fresh install.
\echo Use "ALTER EXTENSION tapas UPDATE" to load this file. \quit

-- the alerts view names dropped roles and tables outside this database
CREATE OR REPLACE VIEW tapas.alerts AS
	SELECT alert_id, raised_at,
		   -- a dropped role says so, instead of pg_get_userbyid's "unknown (OID=n)"
		   coalesce((SELECT r.rolname FROM pg_catalog.pg_roles r WHERE r.oid = a.roleid),
					('dropped role ' || a.roleid)::name) AS role, pid,
		   tbl AS "table", statistic, record_key, kind, method, action, log_ids, detail,
		   -- the table's name here; an OID that names no table of this database
		   -- is a dropped table or one of another database (same ledger)
		   coalesce((SELECT c.oid::regclass::text FROM pg_catalog.pg_class c WHERE c.oid = a.tbl),
					'table ' || a.tbl::oid || ' (dropped, or of another database)') AS table_name
	  FROM tapas.alerts_raw() a;
COMMENT ON VIEW tapas.alerts IS
	'Alerts of the auditor: one row per isolated record and query (alert id, time, session user (or "dropped role N"), pid, table, statistic, key of the record, kind determined or reconstructed, method, action logged/warned/denied, log_ids of the queries involved, detail, and the table''s name, or what its OID is when it names no table of this database); survives ROLLBACK and restart; admin only';

-- ---------------------------------------------------------------------------
-- Per-role status (in the spirit of pg_stat_statements): what each audited
-- role has been answered, refused and alerted for, from the ledger and the
-- alerts.  Admin only, like the views it reads.
-- ---------------------------------------------------------------------------

CREATE VIEW tapas.role_status AS
	WITH logged AS (
		SELECT roleid, count(*) AS cells_logged, count(DISTINCT tbl) AS tables,
			   sum(covered) AS rows_covered, min(logged_at) AS first_logged,
			   max(logged_at) AS last_logged
		  FROM tapas.query_log_raw() GROUP BY roleid),
	alerted AS (
		SELECT roleid, count(*) AS alerts,
			   count(*) FILTER (WHERE action = 'denied') AS refusals,
			   count(DISTINCT (tbl, record_key)) AS records_alerted,
			   max(raised_at) AS last_alert
		  FROM tapas.alerts_raw() GROUP BY roleid),
	roles AS (
		SELECT coalesce(l.roleid, a.roleid) AS roleid, l.tables, l.cells_logged, l.rows_covered,
			   l.first_logged, l.last_logged, a.alerts, a.refusals, a.records_alerted, a.last_alert
		  FROM logged l FULL JOIN alerted a ON a.roleid = l.roleid)
	SELECT coalesce((SELECT r.rolname FROM pg_catalog.pg_roles r WHERE r.oid = s.roleid),
					('dropped role ' || s.roleid)::name) AS role,
		   coalesce(s.tables, 0) AS tables,
		   coalesce(s.cells_logged, 0) AS cells_logged,
		   coalesce(s.rows_covered, 0) AS rows_covered,
		   coalesce(s.refusals, 0) AS refusals,
		   coalesce(s.alerts, 0) AS alerts,
		   coalesce(s.records_alerted, 0) AS records_alerted,
		   round(100.0 * coalesce(s.cells_logged, 0) / u.max_cells, 2) AS ledger_cells_pct,
		   s.first_logged, s.last_logged, s.last_alert
	  FROM roles s CROSS JOIN tapas.ledger_usage() u;
COMMENT ON VIEW tapas.role_status IS
	'Per session user: tables and cells logged, rows covered, refusals (deny-mode alerts, one per refused record and query), alerts, distinct records alerted, the share of tapas.ledger_max_cells its cells take (percent), first and last logged answer, last alert; admin only';
REVOKE ALL ON tapas.role_status FROM PUBLIC;
GRANT SELECT ON tapas.role_status TO tapas_admin;

-- step plots (the demo's disclosure picture)
CREATE FUNCTION tapas.step_svg(series text[], x float8[], y float8[], marked boolean[] DEFAULT NULL,
	title text DEFAULT NULL, x_label text DEFAULT NULL, y_label text DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'tapas_sql_step_svg'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas.step_svg(text[], float8[], float8[], boolean[], text, text, text) IS
'Step curves as a standalone SVG document (opaque background, ticks and labels, legend): point i, (x[i], y[i]), belongs to the curve series[i]; y holds until the next x of its curve; marked points are drawn as crosses ("refused query"). For records isolated against queries answered.';
