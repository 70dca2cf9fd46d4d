-- Per-role quotas of the ledger: a role whose cells (wide GROUP BYs) or
-- their memory would pass tapas.ledger_max_cells_per_role or
-- tapas.ledger_memory_per_role gets TP003 naming the setting and logs
-- nothing of that statement; other roles keep getting answers; an audited
-- role cannot raise its own quota.  Dropped roles show as such in the log.
SET client_min_messages = warning;
DO $$
BEGIN
	CREATE ROLE regress_tapas_flood LOGIN;
	CREATE ROLE regress_tapas_flood2 LOGIN;
	CREATE ROLE regress_tapas_flood3 LOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END
$$;
CREATE TABLE flood (id int PRIMARY KEY, grp int NOT NULL, x int NOT NULL);
INSERT INTO flood SELECT g, g % 40, g % 7 FROM generate_series(1, 400) g;
SELECT tapas.protect('flood', 'id', ARRAY['x'], 5);
GRANT SELECT ON flood TO regress_tapas_flood, regress_tapas_flood2, regress_tapas_flood3;
RESET client_min_messages;
SET tapas.mode = off;

SHOW tapas.ledger_max_cells_per_role;
SHOW tapas.ledger_memory_per_role;
SET tapas.ledger_max_cells_per_role = 50;

-- 40 cells fit, 40 more would pass 50: refused, nothing logged
SET SESSION AUTHORIZATION regress_tapas_flood;
SET tapas.ledger_max_cells_per_role = 0;
SELECT count(*) AS groups FROM (SELECT grp, count(*) FROM flood GROUP BY grp) g;
SELECT count(*) AS groups FROM (SELECT grp, sum(x) FROM flood GROUP BY grp) g;
\echo :LAST_ERROR_SQLSTATE
-- a statement that fits the rest of the quota is still answered
SELECT count(*) AS total FROM flood;
RESET SESSION AUTHORIZATION;

-- another role, same quota, while the first is at its quota: answered
SET SESSION AUTHORIZATION regress_tapas_flood2;
SELECT count(*) AS groups FROM (SELECT grp, count(*) FROM flood GROUP BY grp) g;
RESET SESSION AUTHORIZATION;

-- the memory quota: covers and query texts of the role's cells
SET tapas.ledger_max_cells_per_role = 0;
SET tapas.ledger_memory_per_role = '1kB';
SET SESSION AUTHORIZATION regress_tapas_flood3;
SELECT count(*) AS groups FROM (SELECT grp, count(*) FROM flood GROUP BY grp) g;
SELECT count(*) AS groups FROM (SELECT grp, sum(x) FROM flood WHERE x > 0 GROUP BY grp) g;
\echo :LAST_ERROR_SQLSTATE
RESET SESSION AUTHORIZATION;
RESET tapas.ledger_memory_per_role;
RESET tapas.ledger_max_cells_per_role;

SELECT role, count(*) AS cells FROM tapas.query_log
 WHERE tbl = 'flood'::regclass GROUP BY role ORDER BY role;

-- a dropped role's cells stay, named as such
REVOKE ALL ON flood FROM regress_tapas_flood2;
DROP ROLE regress_tapas_flood2;
SELECT role LIKE 'dropped role (OID %)' AS dropped, count(*) AS cells FROM tapas.query_log
 WHERE tbl = 'flood'::regclass AND role NOT LIKE 'regress_tapas_flood%' GROUP BY 1;

SELECT tapas.reset('flood') AS removed;
DROP TABLE flood;
DROP ROLE regress_tapas_flood;
DROP ROLE regress_tapas_flood3;
