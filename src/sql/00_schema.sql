-- tapas install script, assembled by the Makefile from src/sql/NN_*.sql.
\echo Use "CREATE EXTENSION tapas" to load this file. \quit

-- The admin role: members are exempt from auditing and may read the ledger
-- and alerts.  Roles are cluster-wide, so create it only if missing.
DO $$
BEGIN
	IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'tapas_admin') THEN
		CREATE ROLE tapas_admin NOLOGIN;
	END IF;
END
$$;

COMMENT ON SCHEMA tapas IS 'tapas: aggregate query auditing against record isolation, and privacy attack toolbox';
GRANT USAGE ON SCHEMA tapas TO PUBLIC;
