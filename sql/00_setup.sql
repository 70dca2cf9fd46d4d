-- Setup shared by the regression suites: the extension, the roles, and
-- the checks that tapas is preloaded and its settings are locked down.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS tapas;
RESET client_min_messages;

SHOW shared_preload_libraries;
SELECT extname, extversion, nspname
  FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
 WHERE extname = 'tapas';
SELECT rolname, rolcanlogin FROM pg_roles WHERE rolname = 'tapas_admin';

-- The suites' outputs must not depend on the machine's speed: no progress
-- NOTICEs (every 5 s by default) from a slow call on a loaded machine
-- (t-progress.sh tests them).
DO $$
BEGIN
	EXECUTE format('ALTER DATABASE %I SET tapas.progress_interval = %L', current_database(), '1h');
END
$$;

-- Roles used by every suite: an analyst (audited) and an admin (exempt).
DO $$
BEGIN
	CREATE ROLE regress_tapas_analyst LOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END
$$;
DO $$
BEGIN
	CREATE ROLE regress_tapas_auditor LOGIN IN ROLE tapas_admin;
EXCEPTION WHEN duplicate_object THEN NULL;
END
$$;

-- Default mode, and an unknown tapas.* setting is rejected (reserved prefix).
SHOW tapas.mode;
SET tapas.no_such_setting = 1;

-- A superuser may change the mode.
SET tapas.mode = log;
SHOW tapas.mode;
SET tapas.mode = bogus;
RESET tapas.mode;

-- The analyst cannot weaken the audit in any way.
SET SESSION AUTHORIZATION regress_tapas_analyst;
SET tapas.mode = off;
SET LOCAL tapas.mode = off;
BEGIN;
SET LOCAL tapas.mode = off;
ROLLBACK;
RESET tapas.mode;
RESET ALL;
SHOW tapas.mode;
SELECT set_config('tapas.mode', 'off', false);
ALTER ROLE regress_tapas_analyst SET tapas.mode = off;
SET tapas.admin_role = 'regress_tapas_analyst';
RESET SESSION AUTHORIZATION;

-- The admin role is fixed at server start.
SET tapas.admin_role = 'someone';
