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
			   sum(nrecords) AS records_alerted,
			   max(raised_at) AS last_alert
		  FROM tapas.alerts_raw() GROUP BY roleid),
	roles AS (
		SELECT coalesce(l.roleid, a.roleid) AS roleid, l.tables, l.cells_logged, l.rows_covered,
			   l.first_logged, l.last_logged, a.alerts, a.refusals, a.records_alerted, a.last_alert
		  FROM logged l FULL JOIN alerted a ON a.roleid = l.roleid)
	SELECT coalesce((SELECT r.rolname FROM pg_catalog.pg_roles r WHERE r.oid = s.roleid),
					('dropped role (OID ' || s.roleid || ')')::name) AS role,
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
	'Per session user: tables and cells logged, rows covered, refusals (deny-mode alerts: one per refused statement, table and kind), alerts, records named by the alerts, the share of tapas.ledger_max_cells its cells take (percent), first and last logged answer, last alert; admin only';
REVOKE ALL ON tapas.role_status FROM PUBLIC;
GRANT SELECT ON tapas.role_status TO tapas_admin;
