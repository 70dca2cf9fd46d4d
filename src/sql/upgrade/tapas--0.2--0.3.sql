-- tapas 0.2 -> 0.3 (ALTER EXTENSION tapas UPDATE).
-- Every object that src/sql/*.sql adds or changes after 0.2 is added or changed here too;
-- test/system/t-extension-update.sh checks that the result equals a fresh install.
\echo Use "ALTER EXTENSION tapas UPDATE" to load this file. \quit

-- tapas.last_capture() gains basis_id (issue 10: the normal form of a cell)
DROP FUNCTION tapas.last_capture();
CREATE FUNCTION tapas.last_capture(OUT relid regclass, OUT statistic text,
								   OUT answer float8, OUT covered bigint, OUT keys bigint[],
								   OUT basis_id bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_last_capture'
LANGUAGE C STRICT VOLATILE;
REVOKE ALL ON FUNCTION tapas.last_capture() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.last_capture() TO tapas_admin;
COMMENT ON FUNCTION tapas.last_capture() IS
	'Cells captured in this backend by the last statement that captured any: per logged term its basis value (statistic, the canonical text, and basis_id, a 64-bit hash of it), answer and covered set (admin only, for inspection and tests)';
