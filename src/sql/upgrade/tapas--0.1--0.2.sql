-- tapas 0.1 -> 0.2 (ALTER EXTENSION tapas UPDATE TO '0.2').
\echo Use "ALTER EXTENSION tapas UPDATE TO '0.2'" to load this file. \quit

-- The capture aggregate: an int4 variant for int2/int4 keys (no cast per
-- row), one constant argument (a capture number) instead of relid and
-- statistic, and FINALFUNC_MODIFY = READ_WRITE (the final function empties
-- the state's staging buffer into its bitmap).  Dropping the old one
-- invalidates plans cached with it.
DROP AGGREGATE tapas._cover(int8, float8, oid, text);
DROP FUNCTION tapas._cover_trans(internal, int8, float8, oid, text);

CREATE FUNCTION tapas._cover_trans(internal, int8, float8, int4)
RETURNS internal
AS 'MODULE_PATHNAME', 'tapas_sql_cover_trans'
LANGUAGE C CALLED ON NULL INPUT PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas._cover_trans(internal, int8, float8, int4) IS
	'Transition function of tapas._cover for int8 keys (internal)';

CREATE FUNCTION tapas._cover_trans(internal, int4, float8, int4)
RETURNS internal
AS 'MODULE_PATHNAME', 'tapas_sql_cover_trans4'
LANGUAGE C CALLED ON NULL INPUT PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas._cover_trans(internal, int4, float8, int4) IS
	'Transition function of tapas._cover for int2 and int4 keys (internal)';

CREATE AGGREGATE tapas._cover(int8, float8, int4) (
	SFUNC = tapas._cover_trans,
	STYPE = internal,
	SSPACE = 4096,
	FINALFUNC = tapas._cover_final,
	FINALFUNC_MODIFY = READ_WRITE,
	PARALLEL = RESTRICTED
);
COMMENT ON AGGREGATE tapas._cover(int8, float8, int4) IS
	'Capture aggregate added by tapas to audited queries on tables with an int8 key (internal; not for direct use)';

CREATE AGGREGATE tapas._cover(int4, float8, int4) (
	SFUNC = tapas._cover_trans,
	STYPE = internal,
	SSPACE = 4096,
	FINALFUNC = tapas._cover_final,
	FINALFUNC_MODIFY = READ_WRITE,
	PARALLEL = RESTRICTED
);
COMMENT ON AGGREGATE tapas._cover(int4, float8, int4) IS
	'Capture aggregate added by tapas to audited queries on tables with an int2 or int4 key (internal; not for direct use)';
-- Volatile, so that the planner never drops an unreferenced capture column
-- of a sub-query (remove_unused_subquery_outputs keeps volatile outputs).
UPDATE pg_catalog.pg_proc SET provolatile = 'v'
 WHERE oid IN ('tapas._cover(int8, float8, int4)'::pg_catalog.regprocedure,
               'tapas._cover(int4, float8, int4)'::pg_catalog.regprocedure);

-- tapas.ledger_usage() reports file_synced_bytes (the ledger flusher).
DROP FUNCTION tapas.ledger_usage();
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

REVOKE ALL ON FUNCTION tapas.ledger_usage() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.ledger_usage() TO tapas_admin;
