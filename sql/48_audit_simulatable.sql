-- Simulatable denial (Kenthapadi, Mishra, Nissim, PODS 2005): in deny mode
-- a refusal depends only on the logged answers and the new query, never on
-- the new answer, so it tells the attacker nothing; an anonymity floor
-- tapas.min_candidates (default 10) on the attacker's candidate set.
SET client_min_messages = warning;
CREATE FUNCTION mk(tbl text, positive int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, ward int NOT NULL, rare boolean NOT NULL)', tbl);
	EXECUTE format('INSERT INTO %I SELECT g, g %% 7, g = %s FROM generate_series(1, 4000) g', tbl, positive);
	PERFORM tapas.protect(tbl::regclass, 'id', ARRAY['rare'], 100);
	EXECUTE format('GRANT SELECT ON %I TO regress_tapas_analyst, regress_tapas_analyst2', tbl);
END $$;
DO $$
BEGIN
	CREATE ROLE regress_tapas_analyst2 LOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
SELECT mk('orc', 3456), mk('sim1', 3456), mk('sim2', 3999), mk('sy', 77);
RESET client_min_messages;
SHOW tapas.min_candidates;
CREATE FUNCTION try(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE a numeric;
BEGIN
	EXECUTE sql INTO a;
	RETURN 'answered';
EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
	RETURN SQLSTATE;
END $$;
SET tapas.mode = deny;

-- 1. The refusal oracle: after the total (1) and one half (0), the
-- attacker asks, for each remaining candidate c, a count over c and a
-- fresh part of the known-negative half.  Every such query is refused
-- alike, whether c is the patient (3456) or not: the refusals name nobody.
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT try('SELECT count(*) FILTER (WHERE rare) FROM orc') AS total,
	   try('SELECT count(*) FILTER (WHERE rare) FROM orc WHERE id <= 2000') AS half;
SELECT c, try(format('SELECT count(*) FILTER (WHERE rare) FROM orc WHERE id = %s OR (id <= 2000 AND ward = %s)',
					 c, c % 7)) AS outcome
  FROM unnest(ARRAY[2001, 2500, 3000, 3456, 3999]) c;
-- a query that leaves at least 10 candidates either way is answered
SELECT try('SELECT count(*) FILTER (WHERE rare) FROM orc WHERE id > 3000') AS quarter;
RESET SESSION AUTHORIZATION;

-- 2. Two tables that agree on every answered query get the same decision
-- at the next query, whatever their secrets (the positive is 3456 in sim1
-- and 3999 in sim2): query 4 would be answered 1 by sim1 and 0 by sim2,
-- and both are refused (a decision on the true answer would refuse sim1
-- only, and so tell the attacker which).  Only the last query, which
-- leaves enough candidates either way, tells them apart.
CREATE TABLE sim_q (n int, sql text);
INSERT INTO sim_q VALUES
	(1, 'SELECT count(*) FILTER (WHERE rare) FROM %I'),
	(2, 'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE id <= 2000'),
	(3, 'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE id > 3000'),
	(4, 'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE id = 3456 OR id <= 1000'),
	(5, 'SELECT sum(rare::int) FROM %I WHERE id <> 3456'),
	(6, 'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE id > 3000 AND ward = 3'),
	(7, 'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE id > 3400 AND id <= 3500');
GRANT SELECT ON sim_q TO PUBLIC;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT n, try(format(sql, 'sim1')) AS sim1, try(format(sql, 'sim2')) AS sim2 FROM sim_q ORDER BY n;
RESET SESSION AUTHORIZATION;
-- their logged answers: equal up to the last
WITH a AS (SELECT row_number() OVER (ORDER BY log_id) AS k, statistic, answer
			 FROM tapas.query_log WHERE tbl = 'sim1'::regclass),
	 b AS (SELECT row_number() OVER (ORDER BY log_id) AS k, answer
			 FROM tapas.query_log WHERE tbl = 'sim2'::regclass)
SELECT k, a.statistic, a.answer AS sim1, b.answer AS sim2 FROM a JOIN b USING (k) ORDER BY k;

-- 3. Rows taken over from the ledger are tested: two roles each ask one
-- half of a difference under tapas.audit_scope = role (nothing isolated
-- per role); once the scope is all, the next statement on the table finds
-- the record their rows determine and alerts it (method rowspace_sync).
SET tapas.mode = log;
SET tapas.audit_scope = role;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE rare) AS total FROM sy;
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION regress_tapas_analyst2;
SELECT count(*) FILTER (WHERE rare) AS all_but_77 FROM sy WHERE id <> 77;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS alerts_per_role FROM tapas.alerts WHERE "table" = 'sy'::regclass;
RESET tapas.audit_scope;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE rare) AS ward_1 FROM sy WHERE ward = 1;
RESET SESSION AUTHORIZATION;
SELECT record_key, kind, method, action FROM tapas.alerts WHERE "table" = 'sy'::regclass;

-- 4. Budget 0 and a BCH s = 2 attack whose record order is a permutation
-- of the key (column p = 1031 id mod 4096, a quasi-identifier): nothing is
-- answered unaudited.  With the default floor the candidates test refuses
-- first (TP001); with tapas.min_candidates = 2 it refuses later (only
-- where one candidate could be left), the sparse search is triggered but
-- out of budget, and deny mode refuses those queries with TP004.
-- Either way the attacker's decoder on what was answered finds no unique
-- support.
SET client_min_messages = warning;
CREATE TABLE perm_answers (tbl text, q int, a numeric, refused text);
GRANT ALL ON perm_answers TO PUBLIC;
CREATE FUNCTION perm_table(tbl text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, p int NOT NULL, pos boolean NOT NULL)', tbl);
	EXECUTE format('INSERT INTO %I SELECT g, (1031 * g) %% 4096, g IN (17, 2500) FROM generate_series(1, 4095) g', tbl);
	PERFORM tapas.protect(tbl::regclass, 'id', ARRAY['pos'], 2048);
	EXECUTE format('GRANT SELECT ON %I TO regress_tapas_analyst', tbl);
END $$;
SELECT perm_table('perm10'), perm_table('perm2');
RESET client_min_messages;
CREATE FUNCTION perm_attack(tbl text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE a numeric;
BEGIN
	FOR q IN 1..tapas.design_size('bch', 4095, 2, 2048) LOOP
		BEGIN
			EXECUTE format('SELECT count(*) FILTER (WHERE pos) FROM %I
							 WHERE tapas.design_member(''bch'', 4095, 2, %s, p, 2048)', tbl, q) INTO a;
			INSERT INTO perm_answers VALUES (tbl, q, a, NULL);
		EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
			INSERT INTO perm_answers VALUES (tbl, q, NULL, SQLSTATE);
		END;
	END LOOP;
END $$;
CREATE FUNCTION perm_decode(tbl text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM * FROM tapas.reconstruct_matrix(
		format('SELECT r, id FROM (SELECT q, row_number() OVER (ORDER BY q) AS r FROM perm_answers
									WHERE tbl = %L AND refused IS NULL) qq, %I t
				 WHERE tapas.design_member(''bch'', 4095, 2, qq.q, t.p, 2048)', tbl, tbl),
		(SELECT array_agg(a ORDER BY q) FROM perm_answers WHERE perm_answers.tbl = perm_decode.tbl AND refused IS NULL),
		'sparse', 2);
	RETURN 'unique support found (the attack succeeded)';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLERRM;
END $$;
SET tapas.mode = deny;
SET tapas.audit_budget_ms = 0;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT perm_attack('perm10');
RESET SESSION AUTHORIZATION;
SET tapas.min_candidates = 2;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT perm_attack('perm2');
RESET SESSION AUTHORIZATION;
RESET tapas.min_candidates;
RESET tapas.audit_budget_ms;
SELECT tbl, refused, count(*) AS queries, min(q) AS first FROM perm_answers GROUP BY 1, 2 ORDER BY 1, 2;
SELECT perm_decode('perm10') AS perm10, perm_decode('perm2') AS perm2;
SELECT "table", kind, action, min(detail) AS reason FROM tapas.alerts
 WHERE "table" IN ('perm10'::regclass, 'perm2'::regclass) AND kind = 'incomplete'
 GROUP BY 1, 2, 3 ORDER BY 1;
RESET tapas.mode;

-- 5. Zero answers that overlap narrow the positive's candidates before any
-- answer says that a positive exists: id <= 2500 and 1500 < id < 3995 both
-- answered 0 leave 3995..4000, 6 records, and the total would name the
-- positive (3999).  Refused; with 21 records left (id < 3980) answered.
SELECT mk('zo', 3999), mk('zo21', 3999);
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT try('SELECT count(*) FILTER (WHERE rare) FROM zo WHERE id <= 2500') AS low,
	   try('SELECT count(*) FILTER (WHERE rare) FROM zo WHERE id > 1500 AND id < 3995') AS high,
	   try('SELECT count(*) FILTER (WHERE rare) FROM zo') AS total,
	   try('SELECT count(*) FILTER (WHERE rare) FROM zo WHERE id > 3900') AS tail;
SELECT try('SELECT count(*) FILTER (WHERE rare) FROM zo21 WHERE id <= 2500') AS low,
	   try('SELECT count(*) FILTER (WHERE rare) FROM zo21 WHERE id > 1500 AND id < 3980') AS high,
	   try('SELECT count(*) FILTER (WHERE rare) FROM zo21') AS total;
RESET SESSION AUTHORIZATION;
RESET tapas.mode;

-- 6. One statement with two cells that overlap: the total and everyone but
-- 3995..4000.  Answered 1 and 0 they would leave those 6 records, although
-- each cell alone leaves thousands: refused; with 21 records outside the
-- second cell answered; GROUP BY ROLLUP (the wards and their total) too,
-- but not after that: its wards cut the 21 into parts of 3.
SELECT mk('ov', 3999), mk('ov21', 3999), mk('ovr', 3999);
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT try('SELECT count(*) FILTER (WHERE rare) + 0 * count(*) FILTER (WHERE rare AND id < 3995) FROM ov') AS six,
	   try('SELECT count(*) FILTER (WHERE rare) + 0 * count(*) FILTER (WHERE rare AND id < 3980) FROM ov21') AS twenty_one,
	   try('SELECT sum(c) FROM (SELECT ward, count(*) FILTER (WHERE rare) AS c FROM ovr GROUP BY ROLLUP (ward)) r') AS rollup,
	   try('SELECT sum(c) FROM (SELECT ward, count(*) FILTER (WHERE rare) AS c FROM ov21 GROUP BY ROLLUP (ward)) r') AS rollup_after;
RESET SESSION AUTHORIZATION;
RESET tapas.mode;
