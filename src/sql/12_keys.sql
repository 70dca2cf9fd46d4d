-- ---------------------------------------------------------------------------
-- Keys that are not one integer column (issue 12): uuid, text, composite.
-- Their records are named by a 64-bit hash of the key's binary form; the
-- registry maps (table, hash) to the key's text and makes a collision an
-- error, never a silent merge of two records (src/policy/keys.c).
-- ---------------------------------------------------------------------------
ALTER TABLE tapas.protection ADD COLUMN key_columns name[];
ALTER TABLE tapas.protection ADD COLUMN key_attnums int2[];
COMMENT ON COLUMN tapas.protection.key_columns IS
	'All key columns, in order (NULL: the one column key_column)';
COMMENT ON COLUMN tapas.protection.key_attnums IS
	'Attribute numbers of key_columns (NULL: key_attnum)';

CREATE TABLE tapas.key_registry (
	relid		oid NOT NULL,
	key_hash	int8 NOT NULL,
	key_text	text NOT NULL,
	PRIMARY KEY (relid, key_hash)
);
SELECT pg_catalog.pg_extension_config_dump('tapas.key_registry', '');
REVOKE ALL ON tapas.key_registry FROM PUBLIC;
COMMENT ON TABLE tapas.key_registry IS
	'Record identities of protected tables whose key is not one integer column: the 64-bit hash the ledger uses, and the key it names (written by tapas.protect and the tapas_key_registry trigger)';

CREATE FUNCTION tapas._key_id(VARIADIC "any")
RETURNS int8
AS 'MODULE_PATHNAME', 'tapas_sql_key_id'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION tapas._key_id(VARIADIC "any") IS
	'Record identity of a key given as its columns: a 64-bit hash of their binary forms (internal)';

CREATE FUNCTION tapas._key_text(VARIADIC "any")
RETURNS text
AS 'MODULE_PATHNAME', 'tapas_sql_key_text_of'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas._key_text(VARIADIC "any") IS
	'Text form of a key given as its columns: the column''s output, or ROW(...)::text for several (internal)';

CREATE FUNCTION tapas._key_register()
RETURNS trigger
AS 'MODULE_PATHNAME', 'tapas_sql_key_register'
LANGUAGE C SECURITY DEFINER
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION tapas._key_register() FROM PUBLIC;
COMMENT ON FUNCTION tapas._key_register() IS
	'Row trigger of protected tables with hashed keys: registers each written key, and refuses a key whose hash names another (internal)';

CREATE FUNCTION tapas.key_text(tbl regclass, record_key bigint)
RETURNS text
AS 'MODULE_PATHNAME', 'tapas_sql_key_text'
LANGUAGE C STRICT STABLE;
REVOKE ALL ON FUNCTION tapas.key_text(regclass, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.key_text(regclass, bigint) TO tapas_admin;
COMMENT ON FUNCTION tapas.key_text(regclass, bigint) IS
	'A record key of the ledger and alerts in the key''s own type, as text (the integer, or the registered uuid, text or composite key); admin only';

CREATE FUNCTION tapas.protect(tbl regclass, key_columns name[], sensitive_columns name[], k integer)
RETURNS void
AS 'MODULE_PATHNAME', 'tapas_sql_protect_columns'
LANGUAGE C CALLED ON NULL INPUT VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION tapas.protect(regclass, name[], name[], integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.protect(regclass, name[], name[], integer) TO tapas_admin;
COMMENT ON FUNCTION tapas.protect(regclass, name[], name[], integer) IS
	'Protects a table with a composite key (its columns unique together, NOT NULL): like tapas.protect(tbl, key_column, ...) (admin only)';
