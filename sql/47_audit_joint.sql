-- The joint system: per protected table and audit scope, the cells of
-- every statistic whose per-row value has the same truth vector are rows of
-- one system, so spellings, statements and (under tapas.audit_scope = all)
-- roles combine as the attacker combines them.  Each attack is refused in
-- deny mode at the query that isolates a record.
SET client_min_messages = warning;
CREATE TABLE pat (id int PRIMARY KEY, age int NOT NULL, ward int NOT NULL, rare boolean NOT NULL);
INSERT INTO pat SELECT g, 20 + g % 70, g % 7, g IN (777, 1500, 3001) FROM generate_series(1, 4095) g;
UPDATE pat SET age = 91 WHERE id = 777;
SELECT tapas.protect('pat', 'id', ARRAY['rare'], 100);
CREATE TABLE jt_answers (part text, q int, a numeric, refused text);
GRANT ALL ON jt_answers TO PUBLIC;
DO $$
BEGIN
	CREATE ROLE regress_tapas_analyst2 LOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
GRANT SELECT ON pat TO regress_tapas_analyst, regress_tapas_analyst2;
RESET client_min_messages;
SHOW tapas.audit_scope;
SELECT count(*) AS aged_91 FROM pat WHERE age = 91;

-- runs one query; records its answer, or the SQLSTATE of its refusal
CREATE FUNCTION ask(part text, q int, sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE a numeric;
BEGIN
	EXECUTE sql INTO a;
	INSERT INTO jt_answers VALUES (part, q, a, NULL);
	RETURN 'answered';
EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
	INSERT INTO jt_answers VALUES (part, q, NULL, SQLSTATE);
	RETURN SQLSTATE;
END $$;

-- a fresh copy of pat for each part, so that each starts from an empty ledger
CREATE FUNCTION fresh(tbl text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I AS SELECT * FROM pat', tbl);
	EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (id)', tbl);
	PERFORM tapas.protect(tbl::regclass, 'id', ARRAY['rare'], 100);
	EXECUTE format('GRANT SELECT ON %I TO regress_tapas_analyst, regress_tapas_analyst2', tbl);
END $$;
SET client_min_messages = warning;
SELECT fresh(t) FROM unnest(ARRAY['p_diff', 'p_two', 'p_track', 'p_coll', 'p_collr', 'p_cplm']) t;
RESET client_min_messages;
SET tapas.mode = deny;

-- 1. Difference attack across spellings: a count over everyone, then a
-- sum of a CASE over everyone but the one patient aged 91.
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT ask('diff', 1, 'SELECT count(*) FILTER (WHERE rare) FROM p_diff');
SELECT ask('diff', 2, 'SELECT sum(CASE WHEN rare THEN 1 ELSE 0 END) FROM p_diff WHERE age <> 91');
SELECT ask('diff', 3, 'SELECT sum(rare::int) FROM p_diff WHERE age <> 91');
-- a query that isolates nothing, in a third spelling, is answered
SELECT ask('diff', 4, 'SELECT sum(rare::int) FROM p_diff WHERE ward = 3');
RESET SESSION AUTHORIZATION;

-- 2. Two texts in one statement.
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT ask('two', 1, 'SELECT count(*) FILTER (WHERE rare) + sum(rare::int) FILTER (WHERE id <> 1500) FROM p_two');
SELECT ask('two', 2, 'SELECT count(*) FILTER (WHERE rare) + sum(rare::int) FILTER (WHERE id > 100) FROM p_two');
RESET SESSION AUTHORIZATION;

-- 3. Denning's tracker over four texts: T = ward < 3, C = (ward = 1 AND
-- id < 5), record 1 alone: T, not T, C or T, C or not T; the fourth
-- determines record 1 and is refused.
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT ask('track', 1, 'SELECT count(*) FILTER (WHERE rare) FROM p_track WHERE ward < 3');
SELECT ask('track', 2, 'SELECT sum(rare::int) FROM p_track WHERE NOT ward < 3');
SELECT ask('track', 3, 'SELECT sum(CASE WHEN rare THEN 1 ELSE 0 END) FROM p_track WHERE (ward = 1 AND id < 5) OR ward < 3');
SELECT ask('track', 4, 'SELECT count(*) FILTER (WHERE rare IS TRUE) FROM p_track WHERE (ward = 1 AND id < 5) OR NOT ward < 3');
RESET SESSION AUTHORIZATION;

-- 4. Collusion: the two halves of a difference from two roles.  Under
-- tapas.audit_scope = all (the default) the second half is refused ...
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT ask('coll', 1, 'SELECT count(*) FILTER (WHERE rare) FROM p_coll');
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION regress_tapas_analyst2;
SELECT ask('coll', 2, 'SELECT sum(rare::int) FROM p_coll WHERE id <> 3001');
RESET SESSION AUTHORIZATION;
-- ... and under scope role each role alone isolates nothing: answered
SET tapas.audit_scope = role;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT ask('collr', 1, 'SELECT count(*) FILTER (WHERE rare) FROM p_collr');
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION regress_tapas_analyst2;
SELECT ask('collr', 2, 'SELECT sum(rare::int) FROM p_collr WHERE id <> 3001');
RESET SESSION AUTHORIZATION;
RESET tapas.audit_scope;

-- every refusal, with its SQLSTATE; the alerts name the records
SELECT part, q, refused FROM jt_answers WHERE refused IS NOT NULL ORDER BY part, q;
SELECT "table", record_key, kind, action FROM tapas.alerts
 WHERE "table"::text LIKE 'p\_%' ORDER BY alert_id;
-- refused answers are not logged
SELECT tbl, count(*) AS logged FROM tapas.query_log WHERE tbl::text LIKE 'p\_%'
 GROUP BY tbl ORDER BY tbl::text;

-- 5. The BCH attack (s = 1) split across three spellings: refused at the
-- query whose answers single out the patient (as sql/43_audit_bch.sql does
-- for one spelling).
CREATE TABLE bchs (id int PRIMARY KEY, pos boolean NOT NULL);
INSERT INTO bchs SELECT g, g = 3001 FROM generate_series(1, 4095) g;
SELECT tapas.protect('bchs', 'id', ARRAY['pos'], 2048);
GRANT SELECT ON bchs TO regress_tapas_analyst;
CREATE FUNCTION bch_split() RETURNS void LANGUAGE plpgsql AS $$
DECLARE texts text[] := ARRAY['count(*) FILTER (WHERE pos)', 'sum(pos::int)',
							   'sum(CASE WHEN pos THEN 1 ELSE 0 END)'];
BEGIN
	FOR q IN 1..tapas.design_size('bch', 4095, 1, 2048) LOOP
		PERFORM ask('bch', q, format('SELECT %s FROM bchs WHERE tapas.design_member(''bch'', 4095, 1, %s, id, 2048)',
									 texts[1 + q % 3], q));
	END LOOP;
END $$;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT bch_split();
RESET SESSION AUTHORIZATION;
SELECT q, refused FROM jt_answers WHERE part = 'bch' AND refused IS NOT NULL ORDER BY q;
-- the attacker's decoder on what it got does not find the patient
SELECT count(*) AS answered FROM jt_answers WHERE part = 'bch' AND refused IS NULL;
RESET tapas.mode;
