-- The joint system's bound on unknowns (tapas.audit_joint_max_unknowns,
-- superuser; src/audit/determined.c): a group of related classes whose
-- regions times records exceed it fails closed (TP004 in deny mode), and
-- raising the bound audits the same group at its next statement (the
-- entry remembers the bound it failed under).  The halves of a split,
-- rare AND income > t and rare AND NOT income > t for two thresholds t,
-- are four related classes over three regions of income: about 3 x 2,564
-- unknowns (2,000 records and the row space's headroom).
SET client_min_messages = warning;
CREATE TABLE jb (id int PRIMARY KEY, age int NOT NULL, rare boolean NOT NULL, income int NOT NULL);
INSERT INTO jb SELECT g, 20 + g % 60, g IN (112, 1300), 1000 + (g * 37) % 5000 FROM generate_series(1, 2000) g;
SELECT tapas.protect('jb', 'id', ARRAY['rare', 'income'], 10) IS NOT NULL AS protected;
GRANT SELECT ON jb TO regress_tapas_analyst;
CREATE FUNCTION jb_ask(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE a numeric;
BEGIN
	EXECUTE sql INTO a;
	RETURN a::text;
EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
	RETURN SQLSTATE;
END $$;
CREATE FUNCTION jb_half(t int, neg bool, lo int) RETURNS text LANGUAGE sql AS $$
	SELECT jb_ask(format('SELECT count(*) FILTER (WHERE rare AND %s income > %s) FROM jb WHERE age >= %s',
						 CASE WHEN neg THEN 'NOT' ELSE '' END, t, lo))
$$;
RESET client_min_messages;
SET tapas.audit_scope = role;
SET tapas.mode = deny;

-- an analyst cannot change the bound
SET SESSION AUTHORIZATION regress_tapas_analyst;
SET tapas.audit_joint_max_unknowns = 100000000;
SHOW tapas.audit_joint_max_unknowns;
RESET SESSION AUTHORIZATION;

-- under a bound of 4,096 the fourth half relates the four classes: TP004
SET tapas.audit_joint_max_unknowns = 4096;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT jb_half(2000, false, 20) AS a1, jb_half(2000, true, 21) AS b1,
	   jb_half(4000, false, 22) AS a2, jb_half(4000, true, 23) AS b2,
	   jb_half(4000, true, 24) AS b2_again;
RESET SESSION AUTHORIZATION;
SELECT kind, action, detail LIKE '%joint row-space test of related classes reached its size or rank limit%' AS reason
  FROM tapas.alerts WHERE table_name = 'jb' ORDER BY alert_id;

-- raised, the same group is audited: the statement is decided
SET tapas.audit_joint_max_unknowns = 2097152;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT jb_half(4000, true, 25) AS b2_raised, jb_half(2000, false, 26) AS a1_raised;
RESET SESSION AUTHORIZATION;
SELECT count(*) FILTER (WHERE kind = 'incomplete') AS incomplete_alerts, count(*) AS alerts FROM tapas.alerts WHERE table_name = 'jb';

RESET tapas.audit_joint_max_unknowns;
RESET tapas.mode;
RESET tapas.audit_scope;
SELECT tapas.reset('jb') IS NOT NULL AS reset;
DROP TABLE jb;
DROP FUNCTION jb_half(int, bool, int);
DROP FUNCTION jb_ask(text);
