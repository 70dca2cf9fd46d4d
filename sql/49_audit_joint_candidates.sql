-- The one-positive candidates test over a group of related 0/1 classes
-- (src/audit/candidates.c, tapas_audit_joint_candidates): a narrowing
-- split over a class and its linear relative.  Two patients are rare,
-- 112 (income over 3000) and 300; rare = (rare AND income > 3000) + (rare
-- AND NOT income > 3000), three classes with different truth vectors, so
-- their cells combine: (rare AND NOT income > 3000) over records 1..200
-- answered 0, rare over 16 records answered 1, then (rare AND income >
-- 3000) over 21 records, 6 of them in the 16, leave 6 candidates for the
-- positive, fewer than tapas.min_candidates = 10.  Each class alone keeps
-- 16 or 21 (the alert's statistic names the group).
SET client_min_messages = warning;
CREATE TABLE jc (id int PRIMARY KEY, rare boolean NOT NULL, income int NOT NULL);
INSERT INTO jc SELECT g, g IN (112, 300), 1000 + (g * 37) % 5000 FROM generate_series(1, 400) g;
UPDATE jc SET income = 4000 WHERE id = 112;
UPDATE jc SET income = 2000 WHERE id = 300;
SELECT tapas.protect('jc', 'id', ARRAY['rare', 'income'], 10);
CREATE TABLE jc2 AS SELECT * FROM jc;
ALTER TABLE jc2 ADD PRIMARY KEY (id);
SELECT tapas.protect('jc2', 'id', ARRAY['rare', 'income'], 10);
GRANT SELECT ON jc, jc2 TO regress_tapas_analyst;
CREATE TABLE jc_answers (tbl text, q int, a numeric, outcome text);
GRANT ALL ON jc_answers TO PUBLIC;
CREATE FUNCTION jc_ask(tbl text, q int, sql text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE a numeric;
BEGIN
	EXECUTE format(sql, tbl) INTO a;
	INSERT INTO jc_answers VALUES (tbl, q, a, 'answered');
EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
	INSERT INTO jc_answers VALUES (tbl, q, NULL, SQLSTATE);
END $$;
CREATE FUNCTION jc_attack(tbl text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM jc_ask(tbl, 1, 'SELECT count(*) FILTER (WHERE rare AND NOT income > 3000) FROM %I WHERE id <= 200');
	PERFORM jc_ask(tbl, 2, 'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE id BETWEEN 100 AND 115');
	PERFORM jc_ask(tbl, 3, 'SELECT count(*) FILTER (WHERE rare AND income > 3000) FROM %I WHERE id BETWEEN 110 AND 130');
END $$;
RESET client_min_messages;
SET tapas.audit_scope = role;

-- deny mode: the third query is refused (it could leave 6 candidates)
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT jc_attack('jc');
RESET SESSION AUTHORIZATION;
SELECT q, a, outcome FROM jc_answers WHERE tbl = 'jc' ORDER BY q;
SELECT record_key, kind, method, action, statistic FROM tapas.alert_records WHERE "table" = 'jc'::regclass;
-- log mode: answered, and alerted with the positive named
SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT jc_attack('jc2');
RESET SESSION AUTHORIZATION;
SELECT q, a, outcome FROM jc_answers WHERE tbl = 'jc2' ORDER BY q;
SELECT record_key, kind, method, action, statistic FROM tapas.alert_records WHERE "table" = 'jc2'::regclass;
-- what the log-mode attacker knows: the positive is one of 110 .. 115
SELECT count(*) AS candidates FROM generate_series(110, 115) g;
RESET tapas.mode;
RESET tapas.audit_scope;
