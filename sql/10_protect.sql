-- tapas.protect / tapas.unprotect / tapas.protected_tables: validation of
-- every argument, who may call them, and cleanup when a table is dropped.
\set VERBOSITY terse
SET client_min_messages = warning;

CREATE TABLE prot_ok (id int PRIMARY KEY, zip int, hiv bool, income numeric, note text);
CREATE TABLE prot_text_key (id text PRIMARY KEY, hiv bool);
CREATE TABLE prot_nullable (id int UNIQUE, hiv bool);
CREATE TABLE prot_not_unique (id int NOT NULL, hiv bool);
CREATE TABLE prot_multi (id int NOT NULL, b int NOT NULL, hiv bool, UNIQUE (id, b));
CREATE TABLE prot_partial (id int NOT NULL, hiv bool);
CREATE UNIQUE INDEX ON prot_partial (id) WHERE id > 0;
CREATE TABLE prot_parted (id int NOT NULL, hiv bool) PARTITION BY RANGE (id);
CREATE TABLE prot_parent (id int PRIMARY KEY, hiv bool);
CREATE TABLE prot_child () INHERITS (prot_parent);
CREATE VIEW prot_view AS SELECT * FROM prot_ok;
CREATE MATERIALIZED VIEW prot_mat AS SELECT 1 AS id;
CREATE TEMP TABLE prot_temp (id int PRIMARY KEY, hiv bool);
CREATE TABLE prot_bigkey (id bigint PRIMARY KEY, hiv bool);

-- NULL arguments
SELECT tapas.protect(NULL, 'id', ARRAY['hiv'], 2);
SELECT tapas.protect('prot_ok', NULL, ARRAY['hiv'], 2);
SELECT tapas.protect('prot_ok', 'id', NULL, 2);
SELECT tapas.protect('prot_ok', 'id', ARRAY['hiv'], NULL);
SELECT tapas.unprotect(NULL);

-- tables that cannot be protected
SELECT tapas.protect('no_such_table', 'id', ARRAY['hiv'], 2);
SELECT tapas.protect('prot_view', 'id', ARRAY['hiv'], 2);
SELECT tapas.protect('prot_mat', 'id', ARRAY[]::name[], 2);
SELECT tapas.protect('prot_parted', 'id', ARRAY['hiv'], 2);
SELECT tapas.protect('prot_parent', 'id', ARRAY['hiv'], 2);
SELECT tapas.protect('prot_child', 'id', ARRAY['hiv'], 2);
SELECT tapas.protect('prot_temp', 'id', ARRAY['hiv'], 2);
SELECT tapas.protect('pg_class', 'oid', ARRAY[]::name[], 2);

-- the key column
SELECT tapas.protect('prot_ok', 'no_such_column', ARRAY['hiv'], 2);
SELECT tapas.protect('prot_ok', 'ctid', ARRAY['hiv'], 2);
-- a text key is accepted (its records are named by a hash: sql/24_keys)
SELECT tapas.protect('prot_text_key', 'id', ARRAY['hiv'], 2);
SELECT tapas.unprotect('prot_text_key');
SELECT tapas.protect('prot_nullable', 'id', ARRAY['hiv'], 2);
SELECT tapas.protect('prot_not_unique', 'id', ARRAY['hiv'], 2);
SELECT tapas.protect('prot_multi', 'id', ARRAY['hiv'], 2);
SELECT tapas.protect('prot_partial', 'id', ARRAY['hiv'], 2);

-- the sensitive columns
SELECT tapas.protect('prot_ok', 'id', ARRAY['no_such_column'], 2);
SELECT tapas.protect('prot_ok', 'id', ARRAY['id'], 2);
SELECT tapas.protect('prot_ok', 'id', ARRAY['hiv', 'hiv'], 2);
SELECT tapas.protect('prot_ok', 'id', ARRAY['hiv', NULL], 2);
SELECT tapas.protect('prot_ok', 'id', ARRAY[['hiv'], ['zip']], 2);

-- k
SELECT tapas.protect('prot_ok', 'id', ARRAY['hiv'], 0);
SELECT tapas.protect('prot_ok', 'id', ARRAY['hiv'], -5);

-- success, then an update of the same table (upsert), and a bigint key
SELECT tapas.protect('prot_ok', 'id', ARRAY['hiv'], 2);
SELECT tapas.protect('prot_ok', 'id', ARRAY['hiv', 'income'], 3);
SELECT tapas.protect('prot_bigkey', 'id', ARRAY[]::name[], 1);
SELECT * FROM tapas.protected_tables ORDER BY table_name::text;
SELECT relid, key_column, key_attnum, sensitive_columns, sensitive_attnums, k
  FROM tapas.protection ORDER BY relid::text;

-- analysts see which tables are protected and k, not the columns, and
-- cannot change or read the catalog
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT * FROM tapas.protected_tables ORDER BY table_name::text;
SELECT * FROM tapas.protection;
SELECT tapas.protect('prot_ok', 'id', ARRAY['hiv'], 1);
SELECT tapas.unprotect('prot_ok');
SELECT * FROM tapas.last_capture();
SELECT tapas._is_admin();
RESET SESSION AUTHORIZATION;

-- a SECURITY DEFINER function owned by an admin does not make the analyst one
CREATE FUNCTION prot_sneaky() RETURNS void LANGUAGE sql SECURITY DEFINER
	AS $$ SELECT tapas.unprotect('prot_ok') $$;
ALTER FUNCTION prot_sneaky() OWNER TO regress_tapas_auditor;
GRANT EXECUTE ON FUNCTION prot_sneaky() TO regress_tapas_analyst;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT prot_sneaky();
\echo :LAST_ERROR_SQLSTATE
RESET SESSION AUTHORIZATION;

-- members of tapas_admin administer protections
SET SESSION AUTHORIZATION regress_tapas_auditor;
SELECT tapas._is_admin();
SELECT tapas.unprotect('prot_bigkey');
SELECT tapas.protect('prot_bigkey', 'id', ARRAY['hiv'], 2);
SELECT table_name, key_column, sensitive_columns, k FROM tapas.protected_tables ORDER BY table_name::text;
RESET SESSION AUTHORIZATION;

-- unprotect of a table that is not protected
SELECT tapas.unprotect('prot_multi');

-- DROP TABLE forgets the protection
DROP TABLE prot_bigkey;
SELECT relid FROM tapas.protection ORDER BY relid::text;
SELECT tapas.unprotect('prot_ok');
SELECT count(*) FROM tapas.protection;

DROP FUNCTION prot_sneaky();
DROP VIEW prot_view;
DROP MATERIALIZED VIEW prot_mat;
DROP TABLE prot_ok, prot_text_key, prot_nullable, prot_not_unique, prot_multi,
	prot_partial, prot_parted, prot_child, prot_parent;
