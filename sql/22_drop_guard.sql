-- DROP EXTENSION tapas (and DROP SCHEMA tapas CASCADE, DROP OWNED BY the
-- extension's owner) is refused while tables are protected, unless a
-- superuser sets tapas.allow_drop_with_protections; audited roles can do
-- none of it.  In a database of its own, so the other suites keep theirs.
SET client_min_messages = warning;
DROP DATABASE IF EXISTS regress_tapas_drop;
DROP ROLE IF EXISTS regress_tapas_owner;
RESET client_min_messages;
CREATE ROLE regress_tapas_owner SUPERUSER;
CREATE DATABASE regress_tapas_drop;
\c regress_tapas_drop
SET ROLE regress_tapas_owner;
CREATE EXTENSION tapas;
RESET ROLE;
CREATE TABLE dg (id int PRIMARY KEY, s bool NOT NULL);
INSERT INTO dg SELECT g, g = 3 FROM generate_series(1, 20) g;
GRANT SELECT ON dg TO regress_tapas_analyst;
SELECT tapas.protect('dg', 'id', ARRAY['s'], 5) \gset

DROP EXTENSION tapas;
\echo :LAST_ERROR_SQLSTATE
DROP EXTENSION tapas CASCADE;
DROP EXTENSION IF EXISTS tapas CASCADE;
DROP SCHEMA tapas CASCADE;
DROP OWNED BY regress_tapas_owner;
DROP OWNED BY regress_tapas_analyst, regress_tapas_owner CASCADE;
ALTER EXTENSION tapas DROP TABLE tapas.protection;
ALTER EXTENSION tapas DROP FUNCTION tapas.design_size(text, bigint, integer, bigint);
SHOW tapas.allow_drop_with_protections;

-- the analyst can neither drop nor allow dropping, and is still audited
SET SESSION AUTHORIZATION regress_tapas_analyst;
DROP EXTENSION tapas CASCADE;
SET tapas.allow_drop_with_protections = on;
SELECT id FROM dg WHERE s;
SELECT count(*) FROM dg;
RESET SESSION AUTHORIZATION;
SELECT table_name FROM tapas.protected_tables;

-- unprotecting first lets the drop through
SELECT tapas.unprotect('dg') \gset
DROP EXTENSION tapas;
CREATE EXTENSION tapas;
SELECT tapas.protect('dg', 'id', ARRAY['s'], 5) \gset
-- or the explicit superuser setting
SET tapas.allow_drop_with_protections = on;
DROP EXTENSION tapas;
RESET tapas.allow_drop_with_protections;
SELECT count(*) AS extensions FROM pg_extension WHERE extname = 'tapas';

\c contrib_regression
DROP DATABASE regress_tapas_drop;
DROP ROLE regress_tapas_owner;
