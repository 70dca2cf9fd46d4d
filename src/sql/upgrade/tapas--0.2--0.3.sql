-- tapas 0.2 -> 0.3 (ALTER EXTENSION tapas UPDATE).
-- Every object that src/sql/*.sql adds or changes after 0.2 is added or changed here too;
-- test/system/t-extension-update.sh checks that the result equals a fresh install.
\echo Use "ALTER EXTENSION tapas UPDATE" to load this file. \quit

-- Parallel capture (issue 12): tapas._cover gets combine, serial and deserial
-- functions and becomes parallel safe (src/capture/cover.c, plan.c).
ALTER FUNCTION tapas._cover_trans(internal, int8, float8, int4) PARALLEL SAFE;
ALTER FUNCTION tapas._cover_trans(internal, int4, float8, int4) PARALLEL SAFE;
ALTER FUNCTION tapas._cover_final(internal) PARALLEL SAFE;

CREATE FUNCTION tapas._cover_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'tapas_sql_cover_combine'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION tapas._cover_combine(internal, internal) IS
	'Combine function of tapas._cover: union of the covered keys, sum of the answers (internal)';

CREATE FUNCTION tapas._cover_serial(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'tapas_sql_cover_serial'
LANGUAGE C STRICT PARALLEL SAFE;
COMMENT ON FUNCTION tapas._cover_serial(internal) IS
	'Serialisation function of tapas._cover: a partial state as bytea (internal)';

CREATE FUNCTION tapas._cover_deserial(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'tapas_sql_cover_deserial'
LANGUAGE C STRICT PARALLEL SAFE;
COMMENT ON FUNCTION tapas._cover_deserial(bytea, internal) IS
	'Deserialisation function of tapas._cover (internal)';

CREATE OR REPLACE AGGREGATE tapas._cover(int8, float8, int4) (
	SFUNC = tapas._cover_trans,
	STYPE = internal,
	SSPACE = 4096,
	FINALFUNC = tapas._cover_final,
	FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = tapas._cover_combine,
	SERIALFUNC = tapas._cover_serial,
	DESERIALFUNC = tapas._cover_deserial,
	PARALLEL = SAFE
);
CREATE OR REPLACE AGGREGATE tapas._cover(int4, float8, int4) (
	SFUNC = tapas._cover_trans,
	STYPE = internal,
	SSPACE = 4096,
	FINALFUNC = tapas._cover_final,
	FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = tapas._cover_combine,
	SERIALFUNC = tapas._cover_serial,
	DESERIALFUNC = tapas._cover_deserial,
	PARALLEL = SAFE
);
-- CREATE OR REPLACE resets the volatility the install script sets (see 10_capture.sql)
UPDATE pg_catalog.pg_proc SET provolatile = 'v'
 WHERE oid IN ('tapas._cover(int8, float8, int4)'::pg_catalog.regprocedure,
               'tapas._cover(int4, float8, int4)'::pg_catalog.regprocedure);
