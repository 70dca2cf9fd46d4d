
-- ---------------------------------------------------------------------------
-- The auditor (src/audit/, src/pg/audit.c): alerts raised when an answer
-- isolates a record (determined by the row space, or reconstructed by a
-- decoder), and the on-demand audit.  Admin only: REVOKE FROM PUBLIC, GRANT
-- to tapas_admin, and each function also checks the session user itself.
-- ---------------------------------------------------------------------------

CREATE FUNCTION tapas.alerts_raw(
	OUT alert_id bigint, OUT raised_at timestamptz, OUT roleid oid, OUT pid integer,
	OUT tbl regclass, OUT statistic text, OUT record_key bigint, OUT kind text,
	OUT method text, OUT action text, OUT log_ids bigint[], OUT detail text,
	OUT dbid oid, OUT record_keys bigint[], OUT nrecords integer)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_alerts'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas.alerts_raw() IS
	'Alerts kept in shared memory, oldest first, of every database (admin only); use the view tapas.alerts';

-- Alerts of every database: "table" is the table of the current database
-- (NULL for another database's alert, whose OID means nothing here),
-- table_name names it in either case.
CREATE VIEW tapas.alerts AS
	SELECT a.alert_id, a.raised_at,
		   coalesce(r.rolname, ('dropped role (OID ' || a.roleid || ')')::name) AS role, a.pid,
		   CASE WHEN a.dbid = d0.oid THEN a.tbl END AS "table",
		   a.statistic, a.record_key, a.kind, a.method, a.action, a.log_ids, a.detail,
		   coalesce(d.datname, ('dropped database (OID ' || a.dbid || ')')::name) AS database,
		   CASE WHEN a.dbid = d0.oid THEN a.tbl::text
				ELSE 'table OID ' || a.tbl::oid || ' of database ' ||
					 coalesce(pg_catalog.quote_ident(d.datname), 'OID ' || a.dbid) END AS table_name,
		   a.record_keys, a.nrecords
	  FROM tapas.alerts_raw() a
	  JOIN pg_catalog.pg_database d0 ON d0.datname = pg_catalog.current_database()
	  LEFT JOIN pg_catalog.pg_roles r ON r.oid = a.roleid
	  LEFT JOIN pg_catalog.pg_database d ON d.oid = a.dbid;
COMMENT ON VIEW tapas.alerts IS
	'Alerts of the auditor, of every database: one row per statement, table and kind of isolation (alert id, time, session user, pid, table of the current database, statistics, key of its first record, kind determined, reconstructed or incomplete (a check that could not complete; record_key 0), methods, action logged/warned/denied, log_ids of the queries involved, detail, database, table name, keys of the isolated records (the first 32, ascending) and their number); survives ROLLBACK and restart; admin only';

CREATE VIEW tapas.alert_records AS
	SELECT a.alert_id, a.raised_at, a.role, a.pid, a."table", a.statistic, r.record_key,
		   a.kind, a.method, a.action, a.log_ids, a.detail, a.database, a.table_name,
		   tapas.key_text(a."table", r.record_key) AS record
	  FROM tapas.alerts a CROSS JOIN LATERAL pg_catalog.unnest(a.record_keys) AS r(record_key);
COMMENT ON VIEW tapas.alert_records IS
	'The records listed in the alerts: one row per alert and listed record key (the first 32 of each alert), with the alert''s columns, and the record''s key in its own type (record: tapas.key_text); admin only';

CREATE FUNCTION tapas.audit(tbl regclass,
	OUT role text, OUT statistic text, OUT record_key bigint, OUT kind text,
	OUT method text, OUT detail text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_audit'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas.audit(regclass) IS
	'Re-runs the full audit of a table on the whole ledger (per basis-value class and audit scope: every role under tapas.audit_scope = all, shown as (all), else per role; no time budget) and returns every isolated record: determined by the logged rows or reconstructed from the logged answers; raises no alert; admin only';

REVOKE ALL ON FUNCTION tapas.alerts_raw() FROM PUBLIC;
REVOKE ALL ON tapas.alerts FROM PUBLIC;
REVOKE ALL ON tapas.alert_records FROM PUBLIC;
REVOKE ALL ON FUNCTION tapas.audit(regclass) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.alerts_raw() TO tapas_admin;
GRANT SELECT ON tapas.alerts TO tapas_admin;
GRANT SELECT ON tapas.alert_records TO tapas_admin;
GRANT EXECUTE ON FUNCTION tapas.audit(regclass) TO tapas_admin;

CREATE FUNCTION tapas.audit_shared_state(
	OUT tbl regclass, OUT role text, OUT rows integer, OUT rank bigint,
	OUT records bigint, OUT bytes bigint, OUT copies bigint, OUT readers bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_audit_shared_state'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
REVOKE ALL ON FUNCTION tapas.audit_shared_state() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.audit_shared_state() TO tapas_admin;
COMMENT ON FUNCTION tapas.audit_shared_state() IS
	'The row-space states of this database kept in shared memory for new backends to start from (tapas.audit_shared_memory), one row per (table, audit scope, class): the scope''s role (NULL under tapas.audit_scope = all), the logged rows the state holds, its rank and number of records, its size, how often a backend copied it, and how many backends read its basis rows in place now (a copy evicted while read is freed by its last reader); admin only';

CREATE FUNCTION tapas.audit_shared_truths(
	OUT tbl regclass, OUT nonzero bigint, OUT records bigint, OUT bytes bigint,
	OUT copies bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_audit_shared_truths'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
REVOKE ALL ON FUNCTION tapas.audit_shared_truths() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.audit_shared_truths() TO tapas_admin;
COMMENT ON FUNCTION tapas.audit_shared_truths() IS
	'The truth vectors of this database kept in shared memory for new backends (tapas.audit_shared_memory), one row per (table, canonical basis tree): its records with a nonzero value, the table''s rows when it was read, its size and how often a backend took it instead of scanning the table; a copy is taken only while the table''s write stamp is the one it was read at; admin only';
