-- The ledger: admin-only log of answered cells, with covered keys, per
-- role and session; surviving ROLLBACK and reconnect (restart and crash:
-- test/system/t-ledger-restart.sh).  Cells are recorded here with
-- tapas.ledger_record, the admin's "answer computed elsewhere" entry point;
-- the gate of the capture subsystem appends through the same C function.
-- log_ids are shown relative to the first one of this file, since other
-- suites may log cells before it.
SET tapas.ledger_sync = off;	-- superuser only; durability is tested by the system test
SHOW tapas.ledger_memory;
SHOW tapas.ledger_max_cells;
SHOW tapas.max_records;
CREATE TABLE ledger_t (id bigint PRIMARY KEY, hiv boolean);
INSERT INTO ledger_t SELECT g, g % 7 = 0 FROM generate_series(1, 20) g;
CREATE TABLE ledger_u (id bigint PRIMARY KEY);
SELECT tapas.reset('ledger_t') AS removed;

-- Cells: keys in any order; a repeated key counts once; empty covers are cells too.
SELECT tapas.ledger_record('ledger_t', 'count(*)', 10, ARRAY[5,3,1,2,4,6,7,8,9,10],
						   'SELECT count(*) FROM ledger_t WHERE id <= 10') AS first \gset
SELECT tapas.ledger_record('ledger_t', 'count(*)', 3, ARRAY[20,1,19,1]) - :first AS rel;
SELECT tapas.ledger_record('ledger_t', 'sum(hiv::int)', 1, ARRAY[7,8,-9223372036854775808]) - :first AS rel;
SELECT tapas.ledger_record('ledger_u', 'count(*)', 0, '{}') - :first AS rel;

SELECT log_id - :first AS rel, role, tbl, statistic, answer, covered, query,
	   pid = pg_backend_pid() AS this_pid,
	   session_start = (SELECT backend_start FROM pg_stat_activity
						 WHERE pid = pg_backend_pid()) AS this_session,
	   logged_at <= now() AS logged_before_now
  FROM tapas.query_log WHERE log_id >= :first ORDER BY log_id;

SELECT log_id - :first AS rel, statistic, answer, keys
  FROM tapas.query_matrix('ledger_t') ORDER BY log_id;
SELECT log_id - :first AS rel, statistic, answer, keys
  FROM tapas.query_matrix('ledger_t', 'count(*)') ORDER BY log_id;
SELECT count(*) FROM tapas.query_matrix('ledger_t', 'no such statistic');
SELECT count(*) FROM tapas.query_matrix('ledger_u', NULL);
SELECT cells >= 4 AS has_cells, records >= 13 AS has_records, max_cells, max_records,
	   memory_limit, memory_used > 0 AS used, tables >= 2 AS has_tables,
	   file_bytes > 8 AS file_written, shared_memory > memory_limit AS shmem_ok
  FROM tapas.ledger_usage();

-- Per role, and only the cells after a log_id (how an incremental reader follows the ledger).
SET SESSION AUTHORIZATION regress_tapas_auditor;
SELECT tapas.ledger_record('ledger_t', 'count(*)', 4, ARRAY[1,2,3,4]) - :first AS rel;
RESET SESSION AUTHORIZATION;
SELECT log_id - :first AS rel, answer, keys
  FROM tapas.query_matrix('ledger_t', 'count(*)', 'regress_tapas_auditor') ORDER BY log_id;
SELECT count(*) FROM tapas.query_matrix('ledger_t', NULL, 'postgres');
SELECT log_id - :first AS rel, statistic FROM tapas.query_matrix('ledger_t', after_log_id => :first + 1)
 ORDER BY log_id;

-- Non-transactional: a ROLLBACK (or an error) after logging keeps the cell.
BEGIN;
SELECT tapas.ledger_record('ledger_t', 'count(*)', 2, ARRAY[11,12]) - :first AS rel;
ROLLBACK;
BEGIN;
SELECT tapas.ledger_record('ledger_t', 'count(*)', 2, ARRAY[13,14]) - :first AS rel;
SELECT 1 / 0;
ROLLBACK;
SELECT log_id - :first AS rel, answer, keys FROM tapas.query_matrix('ledger_t', 'count(*)') ORDER BY log_id;

-- A reconnect (new session) sees every cell, tagged with the old session.
\c -
SELECT count(*) AS cells, count(DISTINCT session_start) AS sessions,
	   bool_and(pid <> pg_backend_pid()) AS other_pid
  FROM tapas.query_log WHERE log_id >= :first;
SET tapas.ledger_sync = off;

-- Bad arguments.
\set VERBOSITY terse
SELECT tapas.reset(NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT tapas.reset(0::oid::regclass);
SELECT tapas.reset('no_such_table');
SELECT tapas.reset(424242::oid::regclass) AS removed_unknown;
SELECT * FROM tapas.query_matrix(NULL);
SELECT tapas.ledger_record('ledger_t', NULL, 1, '{1}');
SELECT tapas.ledger_record('ledger_t', 'count(*)', NULL, '{1}');
SELECT tapas.ledger_record('ledger_t', 'count(*)', 1, NULL);
SELECT tapas.ledger_record('ledger_t', '', 1, '{1}');
\echo :LAST_ERROR_SQLSTATE
SELECT tapas.ledger_record('ledger_t', repeat('x', 1025), 1, '{1}');
SELECT tapas.ledger_record('ledger_t', 'count(*)', 1, ARRAY[1, NULL]);
SELECT tapas.ledger_record('ledger_t', 'count(*)', 1, '{{1,2},{3,4}}');
SELECT tapas.ledger_record(424242::oid::regclass, 'count(*)', 1, '{1}');
\echo :LAST_ERROR_SQLSTATE

-- Full: more new records than tapas.max_records is refused whole (TP003),
-- and nothing of the statement is logged: test/system/t-ledger-limits.sh
-- (with a small limit; the default, 2^24, is too many keys for one array).

-- Audited roles can neither read nor change the ledger (42501), not even
-- with EXECUTE granted by mistake or through a SECURITY DEFINER function.
CREATE FUNCTION ledger_peek() RETURNS bigint
	LANGUAGE sql SECURITY DEFINER AS 'SELECT count(*) FROM tapas.query_log';
GRANT EXECUTE ON FUNCTION ledger_peek() TO regress_tapas_analyst;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT * FROM tapas.query_log;
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM tapas.query_log_raw();
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM tapas.query_matrix('ledger_t');
\echo :LAST_ERROR_SQLSTATE
SELECT tapas.reset('ledger_t');
\echo :LAST_ERROR_SQLSTATE
SELECT tapas.ledger_record('ledger_t', 'count(*)', 1, '{1}');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM tapas.ledger_usage();
\echo :LAST_ERROR_SQLSTATE
SELECT ledger_peek();
\echo :LAST_ERROR_SQLSTATE
SET tapas.ledger_sync = off;
\echo :LAST_ERROR_SQLSTATE
RESET SESSION AUTHORIZATION;
GRANT EXECUTE ON FUNCTION tapas.query_matrix(regclass, text, regrole, bigint) TO regress_tapas_analyst;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT * FROM tapas.query_matrix('ledger_t');
\echo :LAST_ERROR_SQLSTATE
RESET SESSION AUTHORIZATION;
REVOKE EXECUTE ON FUNCTION tapas.query_matrix(regclass, text, regrole, bigint) FROM regress_tapas_analyst;

-- A non-superuser member of tapas_admin reads it.
SET SESSION AUTHORIZATION regress_tapas_auditor;
SELECT count(*) AS cells FROM tapas.query_log WHERE log_id >= :first;
SELECT count(*) AS rows FROM tapas.query_matrix('ledger_t');
RESET SESSION AUTHORIZATION;
\set VERBOSITY default

-- Reset removes one table's cells and keys; log_ids are never reused.
SELECT tapas.reset('ledger_t') AS removed;
SELECT count(*) FROM tapas.query_matrix('ledger_t');
SELECT count(*) FROM tapas.query_matrix('ledger_u');
SELECT tapas.ledger_record('ledger_t', 'count(*)', 2, ARRAY[2,1]) - :first AS rel;
SELECT log_id - :first AS rel, keys FROM tapas.query_matrix('ledger_t');
SELECT tapas.reset('ledger_t') AS removed, tapas.reset('ledger_u') AS removed_u;
DROP FUNCTION ledger_peek();
DROP TABLE ledger_t, ledger_u;

-- The cells of a dropped table stay in the ledger (the audit trail outlives
-- the table); query_log shows its OID, and reset by OID removes them.
CREATE TABLE ledger_gone (id int PRIMARY KEY);
SELECT tapas.ledger_record('ledger_gone', 'count(*)', 2, ARRAY[1,2]) > 0 AS logged;
SELECT 'ledger_gone'::regclass::oid AS gone_oid \gset
DROP TABLE ledger_gone;
SELECT tbl::oid = :gone_oid AS by_oid, statistic, covered FROM tapas.query_log WHERE tbl::oid = :gone_oid;
SELECT tapas.reset(:gone_oid::oid::regclass) AS removed;
SELECT count(*) FROM tapas.query_log WHERE tbl::oid = :gone_oid;
