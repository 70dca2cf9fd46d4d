-- tapas 0.2 -> 0.3 (ALTER EXTENSION tapas UPDATE).
-- Every object that src/sql/*.sql adds or changes after 0.2 is added or changed here too;
-- test/system/t-extension-update.sh checks that the result equals a fresh install.
\echo Use "ALTER EXTENSION tapas UPDATE" to load this file. \quit

-- ledger keyed by (database, table): the views act on the current database,
-- alerts name theirs, dropped roles are named as such
CREATE OR REPLACE VIEW tapas.query_log AS
	SELECT q.log_id, q.logged_at,
		   coalesce(r.rolname, ('dropped role (OID ' || q.roleid || ')')::name) AS role, q.pid,
		   q.session_start, q.tbl, q.statistic, q.answer, q.covered, q.query
	  FROM tapas.query_log_raw() q
	  LEFT JOIN pg_catalog.pg_roles r ON r.oid = q.roleid;
COMMENT ON VIEW tapas.query_log IS
	'Logged answers of the current database: one row per answered cell (log_id, time, session user, pid and backend start = session, table, statistic, answer, number of covered rows, query text); admin only';
COMMENT ON FUNCTION tapas.query_log_raw() IS
	'Every logged cell of the current database in the tapas ledger (admin only); use the view tapas.query_log';
COMMENT ON FUNCTION tapas.reset(regclass) IS
	'Removes every logged cell and key index of a table of the current database from the ledger, in memory and on disk; returns the number of cells removed; not transactional; admin only';

DROP VIEW tapas.alerts;
DROP FUNCTION tapas.alerts_raw();
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
	'Alerts of the auditor, of every database: one row per statement, table and kind of isolation (alert id, time, session user, pid, table of the current database, statistics, key of its first record, kind determined or reconstructed, methods, action logged/warned/denied, log_ids of the queries involved, detail, database, table name, keys of the isolated records (the first 32, ascending) and their number); survives ROLLBACK and restart; admin only';

CREATE VIEW tapas.alert_records AS
	SELECT a.alert_id, a.raised_at, a.role, a.pid, a."table", a.statistic, r.record_key,
		   a.kind, a.method, a.action, a.log_ids, a.detail, a.database, a.table_name
	  FROM tapas.alerts a CROSS JOIN LATERAL pg_catalog.unnest(a.record_keys) AS r(record_key);
COMMENT ON VIEW tapas.alert_records IS
	'The records listed in the alerts: one row per alert and listed record key (the first 32 of each alert), with the alert''s columns; admin only';
REVOKE ALL ON FUNCTION tapas.alerts_raw() FROM PUBLIC;
REVOKE ALL ON tapas.alerts FROM PUBLIC;
REVOKE ALL ON tapas.alert_records FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.alerts_raw() TO tapas_admin;
GRANT SELECT ON tapas.alerts TO tapas_admin;
GRANT SELECT ON tapas.alert_records TO tapas_admin;
