
-- ---------------------------------------------------------------------------
-- The ledger (src/ledger/, src/pg/ledger.c): every answered cell of a
-- protected table, with its covered keys, per role and session.  Admin only:
-- REVOKE FROM PUBLIC, GRANT to tapas_admin, and each function also checks
-- the session user itself.
-- ---------------------------------------------------------------------------

CREATE FUNCTION tapas.query_log_raw(
	OUT log_id bigint, OUT logged_at timestamptz, OUT roleid oid, OUT pid integer,
	OUT session_start timestamptz, OUT tbl regclass, OUT statistic text,
	OUT answer double precision, OUT covered bigint, OUT query text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_query_log'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas.query_log_raw() IS
	'Every logged cell of the current database in the tapas ledger (admin only); use the view tapas.query_log';

CREATE VIEW tapas.query_log AS
	SELECT q.log_id, q.logged_at,
		   coalesce(r.rolname, ('dropped role (OID ' || q.roleid || ')')::name) AS role, q.pid,
		   q.session_start, q.tbl, q.statistic, q.answer, q.covered, q.query
	  FROM tapas.query_log_raw() q
	  LEFT JOIN pg_catalog.pg_roles r ON r.oid = q.roleid;
COMMENT ON VIEW tapas.query_log IS
	'Logged answers of the current database: one row per answered cell (log_id, time, session user, pid and backend start = session, table, statistic, answer, number of covered rows, query text); admin only';

CREATE FUNCTION tapas.query_matrix(tbl regclass, statistic text DEFAULT NULL,
	role regrole DEFAULT NULL, after_log_id bigint DEFAULT 0,
	OUT log_id bigint, OUT statistic text, OUT answer double precision, OUT keys bigint[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_query_matrix'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas.query_matrix(regclass, text, regrole, bigint) IS
	'The logged query matrix of a table: per cell its log_id, statistic, answer b and covered keys (a row of A) as a sorted array; all statistics when statistic is NULL, all roles when role is NULL, only cells after after_log_id; admin only';

CREATE FUNCTION tapas.reset(tbl regclass)
RETURNS bigint
AS 'MODULE_PATHNAME', 'tapas_sql_reset'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION tapas.reset(regclass) IS
	'Removes every logged cell and key index of a table of the current database from the ledger, in memory and on disk; returns the number of cells removed; not transactional; admin only';

CREATE FUNCTION tapas.ledger_record(tbl regclass, statistic text, answer double precision,
	keys bigint[], query text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'tapas_sql_ledger_record'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION tapas.ledger_record(regclass, text, double precision, bigint[], text) IS
	'Records an answer computed elsewhere (e.g. importing an audit) as one cell over the given keys, tagged with the calling admin; returns its log_id; not transactional; admin only';

CREATE FUNCTION tapas.ledger_usage(
	OUT cells bigint, OUT max_cells bigint, OUT records bigint, OUT max_records bigint,
	OUT memory_used bigint, OUT memory_limit bigint, OUT tables integer,
	OUT statistics bigint, OUT file_bytes bigint, OUT shared_memory bigint,
	OUT file_synced_bytes bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'tapas_sql_ledger_usage'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas.ledger_usage() IS
	'Fill of the ledger against its limits (memory in bytes: arena for statistics, query texts and covers), size of its file, its total shared memory, and how much of the file is known to be on disk (fdatasync''d); admin only';

REVOKE ALL ON FUNCTION tapas.query_log_raw() FROM PUBLIC;
REVOKE ALL ON tapas.query_log FROM PUBLIC;
REVOKE ALL ON FUNCTION tapas.query_matrix(regclass, text, regrole, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION tapas.reset(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION tapas.ledger_record(regclass, text, double precision, bigint[], text) FROM PUBLIC;
REVOKE ALL ON FUNCTION tapas.ledger_usage() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.query_log_raw() TO tapas_admin;
GRANT SELECT ON tapas.query_log TO tapas_admin;
GRANT EXECUTE ON FUNCTION tapas.query_matrix(regclass, text, regrole, bigint) TO tapas_admin;
GRANT EXECUTE ON FUNCTION tapas.reset(regclass) TO tapas_admin;
GRANT EXECUTE ON FUNCTION tapas.ledger_record(regclass, text, double precision, bigint[], text) TO tapas_admin;
GRANT EXECUTE ON FUNCTION tapas.ledger_usage() TO tapas_admin;
