
-- ---------------------------------------------------------------------------
-- Capture: protection catalog, capture aggregate, inspection (src/capture/)
-- ---------------------------------------------------------------------------

CREATE TABLE tapas.protection (
	relid				regclass PRIMARY KEY,
	key_column			name NOT NULL,
	key_attnum			int2 NOT NULL,
	sensitive_columns	name[] NOT NULL,
	sensitive_attnums	int2[] NOT NULL,
	k					integer NOT NULL CHECK (k >= 1)
);
SELECT pg_catalog.pg_extension_config_dump('tapas.protection', '');
REVOKE ALL ON tapas.protection FROM PUBLIC;
COMMENT ON TABLE tapas.protection IS
	'Protected tables: key column, sensitive columns and group-size threshold k (change through tapas.protect/unprotect)';

CREATE FUNCTION tapas.protect(tbl regclass, key_column name, sensitive_columns name[], k integer)
RETURNS void
AS 'MODULE_PATHNAME', 'tapas_sql_protect'
LANGUAGE C CALLED ON NULL INPUT VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION tapas.protect(regclass, name, name[], integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.protect(regclass, name, name[], integer) TO tapas_admin;
COMMENT ON FUNCTION tapas.protect(regclass, name, name[], integer) IS
	'Protects a table: every aggregate answer on it by an audited role is captured, and cells covering fewer than k rows are refused (admin only)';

CREATE FUNCTION tapas.unprotect(tbl regclass)
RETURNS void
AS 'MODULE_PATHNAME', 'tapas_sql_unprotect'
LANGUAGE C CALLED ON NULL INPUT VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION tapas.unprotect(regclass) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.unprotect(regclass) TO tapas_admin;
COMMENT ON FUNCTION tapas.unprotect(regclass) IS
	'Removes the protection of a table (admin only); its ledger is kept';

CREATE FUNCTION tapas._is_admin()
RETURNS boolean
AS 'MODULE_PATHNAME', 'tapas_sql_is_admin'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas._is_admin() IS
	'True when the session user is a superuser or a member of tapas_admin (not audited)';

-- Analysts may know which tables are protected and their k (a refusal names
-- k anyway), but not which columns are the key and the sensitive ones.
CREATE VIEW tapas.protected_tables AS
SELECT p.relid AS table_name,
	   CASE WHEN tapas._is_admin() THEN p.key_column END AS key_column,
	   CASE WHEN tapas._is_admin() THEN p.sensitive_columns END AS sensitive_columns,
	   p.k
  FROM tapas.protection p
 WHERE EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid = p.relid);
GRANT SELECT ON tapas.protected_tables TO PUBLIC;
COMMENT ON VIEW tapas.protected_tables IS
	'Protected tables with their k; key and sensitive columns are shown to admins only';

-- DROP TABLE of a protected table removes its catalog row.
CREATE FUNCTION tapas._drop_protection()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	IF pg_catalog.to_regclass('tapas.protection') IS NOT NULL THEN
		DELETE FROM tapas.protection p
		 USING pg_catalog.pg_event_trigger_dropped_objects() d
		 WHERE d.classid = 'pg_catalog.pg_class'::regclass
		   AND d.objsubid = 0 AND p.relid::oid = d.objid;
	END IF;
END
$$;
REVOKE ALL ON FUNCTION tapas._drop_protection() FROM PUBLIC;
COMMENT ON FUNCTION tapas._drop_protection() IS
	'sql_drop event trigger function: forgets the protection of dropped tables';
CREATE EVENT TRIGGER tapas_drop_protection ON sql_drop
	EXECUTE FUNCTION tapas._drop_protection();
COMMENT ON EVENT TRIGGER tapas_drop_protection IS
	'Forgets the protection of a table when it is dropped';

-- The capture aggregate the planner hook adds (resjunk) for every covered set
-- of an audited query level: tapas._cover(key, capture, v1, ..., vm) returns
-- the covered keys and the answer of each of its m statistics (the sum of
-- the non-null values vi), packed in a bytea; the statistics of a level whose
-- captures have the same FILTER (the same covered set) share one, so a row's
-- key is collected once however many statistics cover it.  capture is a
-- constant that tells the planner hook which table and statistics it logs;
-- each vi is a float8 (the transition function checks).  One for int8 keys
-- and one for int2/int4 keys (no cast per row).  Parallel safe, with
-- combine, serial and deserial functions, so the planner keeps parallel and
-- partition-wise partial aggregation; the gate sits above the Finalize Agg
-- (src/capture/plan.c).
CREATE FUNCTION tapas._cover_trans(internal, int8, int4, VARIADIC "any")
RETURNS internal
AS 'MODULE_PATHNAME', 'tapas_sql_cover_trans'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION tapas._cover_trans(internal, int8, int4, "any") IS
	'Transition function of tapas._cover for int8 keys (internal)';

CREATE FUNCTION tapas._cover_trans(internal, int4, int4, VARIADIC "any")
RETURNS internal
AS 'MODULE_PATHNAME', 'tapas_sql_cover_trans4'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION tapas._cover_trans(internal, int4, int4, "any") IS
	'Transition function of tapas._cover for int2 and int4 keys (internal)';

CREATE FUNCTION tapas._cover_final(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'tapas_sql_cover_final'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION tapas._cover_final(internal) IS
	'Final function of tapas._cover (internal)';

CREATE FUNCTION tapas._cover_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'tapas_sql_cover_combine'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION tapas._cover_combine(internal, internal) IS
	'Combine function of tapas._cover: union of the covered keys, sums of the answers (internal)';

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

CREATE AGGREGATE tapas._cover(int8, int4, VARIADIC "any") (
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
COMMENT ON AGGREGATE tapas._cover(int8, int4, VARIADIC "any") IS
	'Capture aggregate added by tapas to audited queries on tables with an int8 key (internal; not for direct use)';

CREATE AGGREGATE tapas._cover(int4, int4, VARIADIC "any") (
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
COMMENT ON AGGREGATE tapas._cover(int4, int4, VARIADIC "any") IS
	'Capture aggregate added by tapas to audited queries on tables with an int2 or int4 key (internal; not for direct use)';
-- Volatile, so that the planner never drops an unreferenced capture column
-- of a sub-query (remove_unused_subquery_outputs keeps volatile outputs).
UPDATE pg_catalog.pg_proc SET provolatile = 'v'
 WHERE oid IN ('tapas._cover(int8, int4, "any")'::pg_catalog.regprocedure,
               'tapas._cover(int4, int4, "any")'::pg_catalog.regprocedure);

-- Admin inspection of what the gate captured in this session.
CREATE FUNCTION tapas.last_capture(OUT relid regclass, OUT statistic text,
								   OUT answer float8, OUT covered bigint, OUT keys bigint[],
								   OUT basis_id bigint, OUT grp integer, OUT aggregates integer[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_last_capture'
LANGUAGE C STRICT VOLATILE;
REVOKE ALL ON FUNCTION tapas.last_capture() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.last_capture() TO tapas_admin;
COMMENT ON FUNCTION tapas.last_capture() IS
	'Cells captured in this backend by the last statement that captured any: per logged term its basis value (statistic, the canonical text, and basis_id, a 64-bit hash of it), answer and covered set, and the answered cell it is a term of: the output group grp (in the order the gate drained them; NULL when grouped by a sensitive column) and the aggregates of the query level (1, 2, ... in order of appearance, select list then HAVING; 0 for the count tapas adds for absent groups) (admin only, for inspection and tests)';

-- declared domains of sensitive columns: values no row holds yet
CREATE TABLE tapas.sensitive_domain (
	relid				regclass NOT NULL,
	attnum				int2 NOT NULL,
	column_name			name NOT NULL,
	domain_values		text[] NOT NULL,
	PRIMARY KEY (relid, attnum)
);
SELECT pg_catalog.pg_extension_config_dump('tapas.sensitive_domain', '');
REVOKE ALL ON tapas.sensitive_domain FROM PUBLIC;
COMMENT ON TABLE tapas.sensitive_domain IS
	'Values an administrator declared for sensitive columns (tapas.declare_domain): grouping by the column logs a 0-cell for each value no group has, as for the values the table holds';

CREATE FUNCTION tapas.declare_domain(tbl regclass, column_name name, domain_values text[])
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	att record;
	v text;
BEGIN
	IF tbl IS NULL OR column_name IS NULL THEN
		RAISE EXCEPTION 'table and column must not be NULL' USING ERRCODE = '22004';
	END IF;
	IF NOT EXISTS (SELECT FROM tapas.protection p WHERE p.relid = tbl
				   AND declare_domain.column_name = ANY (p.sensitive_columns)) THEN
		RAISE EXCEPTION 'column "%" of table % is not a sensitive column of a protected table',
			declare_domain.column_name, tbl
			USING ERRCODE = '42809', HINT = 'Protect the table with the column as sensitive first (tapas.protect).';
	END IF;
	SELECT a.attnum, pg_catalog.format_type(a.atttypid, a.atttypmod) AS typ INTO att
	  FROM pg_catalog.pg_attribute a
	 WHERE a.attrelid = tbl AND a.attname = declare_domain.column_name AND NOT a.attisdropped;
	IF domain_values IS NULL THEN
		DELETE FROM tapas.sensitive_domain d WHERE d.relid = tbl AND d.attnum = att.attnum;
		RETURN;
	END IF;
	IF cardinality(domain_values) > 1000 THEN
		RAISE EXCEPTION 'a declared domain has at most 1000 values' USING ERRCODE = '54000';
	END IF;
	FOREACH v IN ARRAY domain_values LOOP
		IF v IS NOT NULL THEN
			-- each value must be one of the column's type
			EXECUTE pg_catalog.format('SELECT %L::%s', v, att.typ);
		END IF;
	END LOOP;
	INSERT INTO tapas.sensitive_domain AS d VALUES (tbl, att.attnum, declare_domain.column_name, domain_values)
	ON CONFLICT (relid, attnum) DO UPDATE SET domain_values = EXCLUDED.domain_values,
		column_name = EXCLUDED.column_name;
END
$$;
REVOKE ALL ON FUNCTION tapas.declare_domain(regclass, name, text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.declare_domain(regclass, name, text[]) TO tapas_admin;
COMMENT ON FUNCTION tapas.declare_domain(regclass, name, text[]) IS
	'Declares the domain of a sensitive column of a protected table (admin only): grouping by the column, or by an expression of it alone, then logs a 0-cell for every declared value that no group of the answer has, even when no row holds it yet; NULL removes the declaration';
