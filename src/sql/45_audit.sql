
-- ---------------------------------------------------------------------------
-- The auditor (src/audit/, src/pg/audit.c): alerts raised when an answer
-- isolates a record (determined by the row space, or reconstructed by a
-- decoder), and the on-demand audit.  Admin only: REVOKE FROM PUBLIC, GRANT
-- to tapas_admin, and each function also checks the session user itself.
-- ---------------------------------------------------------------------------

CREATE FUNCTION tapas.alerts_raw(
	OUT alert_id bigint, OUT raised_at timestamptz, OUT roleid oid, OUT pid integer,
	OUT tbl regclass, OUT statistic text, OUT record_key bigint, OUT kind text,
	OUT method text, OUT action text, OUT log_ids bigint[], OUT detail text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_alerts'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas.alerts_raw() IS
	'Alerts kept in shared memory, oldest first (admin only); use the view tapas.alerts';

CREATE VIEW tapas.alerts AS
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

CREATE FUNCTION tapas.audit(tbl regclass,
	OUT role text, OUT statistic text, OUT record_key bigint, OUT kind text,
	OUT method text, OUT detail text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_audit'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas.audit(regclass) IS
	'Re-runs the full audit of a table on the whole ledger (every statistic and role, no time budget) and returns every isolated record: determined by the logged rows or reconstructed from the logged answers; raises no alert; admin only';

REVOKE ALL ON FUNCTION tapas.alerts_raw() FROM PUBLIC;
REVOKE ALL ON tapas.alerts FROM PUBLIC;
REVOKE ALL ON FUNCTION tapas.audit(regclass) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.alerts_raw() TO tapas_admin;
GRANT SELECT ON tapas.alerts TO tapas_admin;
GRANT EXECUTE ON FUNCTION tapas.audit(regclass) TO tapas_admin;
