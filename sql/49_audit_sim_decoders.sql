-- Simulatable decoder decisions (src/audit/simulated.c): in deny mode the
-- sparse-search, pursuit and design decoders decide on the design alone
-- (the logged queries, the largest logged answer as a lower bound on the
-- positives, and the new query), never on the new answer or the secrets.
-- Test: two tables that agree on every answered query but differ in their
-- secrets get the same decision at every next query, for a Bernoulli and
-- a BCH attack; the refusal comes no later than the query the attacker's
-- own decoder needs.
SET tapas.audit_scope = role;
SET client_min_messages = warning;
DO $$
BEGIN
	CREATE ROLE regress_tapas_analyst2 LOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
CREATE FUNCTION sim_mk(tbl text, n int, positives int[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, pos boolean NOT NULL)', tbl);
	EXECUTE format('INSERT INTO %I SELECT g, g = ANY (%L) FROM generate_series(1, %s) g',
				   tbl, positives, n);
	PERFORM tapas.protect(tbl::regclass, 'id', ARRAY['pos'], n / 2 - 100);
	EXECUTE format('GRANT SELECT ON %I TO regress_tapas_analyst, regress_tapas_analyst2', tbl);
END $$;
CREATE TABLE sim_answers (tbl text, q int, a numeric, outcome text);
GRANT ALL ON sim_answers TO PUBLIC;
-- one attack query per design row; the outcome is 'answered' or the SQLSTATE
CREATE FUNCTION sim_attack(tbl text, q int, member text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE a numeric;
BEGIN
	EXECUTE format('SELECT count(*) FILTER (WHERE pos) FROM %I WHERE ' || member, tbl, q) INTO a;
	INSERT INTO sim_answers VALUES (tbl, q, a, 'answered');
EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
	INSERT INTO sim_answers VALUES (tbl, q, NULL, SQLSTATE);
END $$;
CREATE FUNCTION sim_run_attack(tbls text[], m int, member text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	FOR q IN 1..m LOOP
		FOR i IN 1..array_length(tbls, 1) LOOP
			PERFORM sim_attack(tbls[i], q, member);
		END LOOP;
	END LOOP;
END $$;
-- per query q: did t1 and t2 agree on every answered query before q, and
-- did they get the same decision at q?
CREATE FUNCTION sim_compare(t1 text, t2 text) RETURNS TABLE (queries bigint,
	queries_after_agreeing_answers bigint, same_decision bigint,
	first_refused_1 int, first_refused_2 int, first_different_answer int)
LANGUAGE sql AS $$
	WITH j AS (
		SELECT a.q, a.a AS a1, b.a AS a2, a.outcome AS o1, b.outcome AS o2
		  FROM sim_answers a JOIN sim_answers b USING (q)
		 WHERE a.tbl = t1 AND b.tbl = t2),
	k AS (
		SELECT q, o1, o2, a1, a2,
			   bool_and(a1 IS NOT DISTINCT FROM a2)
				 OVER (ORDER BY q ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS agreed
		  FROM j)
	SELECT count(*), count(*) FILTER (WHERE agreed IS NOT FALSE),
		   count(*) FILTER (WHERE agreed IS NOT FALSE AND o1 = o2),
		   min(q) FILTER (WHERE o1 <> 'answered'), min(q) FILTER (WHERE o2 <> 'answered'),
		   min(q) FILTER (WHERE a1 IS DISTINCT FROM a2)
	  FROM k $$;
RESET client_min_messages;
-- the one-positive candidates test (sql/48_audit_simulatable.sql) steps
-- back to its floor, so that the decoders decide
SET tapas.min_candidates = 2;
-- time enough for every check: the decisions must not depend on the load
SET tapas.audit_budget_ms = 600000;

-- 1. Bernoulli(1/2) rows over n = 2,000 records, 3 positives.  The two
-- tables differ in one positive: records j and k that the first 18 rows
-- cover alike, so every answer to those rows is the same in both.
CREATE TABLE bern_sig AS
SELECT id, string_agg(CASE WHEN tapas.design_member('bernoulli', 2000, 10, q, id, 0, 42)
						   THEN '1' ELSE '0' END, '' ORDER BY q) AS sig
  FROM generate_series(1, 2000) id, generate_series(1, 18) q GROUP BY id;
CREATE TABLE bern_pair AS
SELECT min(id) AS j, max(id) AS k FROM bern_sig WHERE id NOT IN (11, 700)
 GROUP BY sig HAVING count(*) = 2 ORDER BY 1 LIMIT 1;
SELECT sim_mk('sb1', 2000, ARRAY[11, 700, j]), sim_mk('sb2', 2000, ARRAY[11, 700, k]) FROM bern_pair;
SELECT (SELECT array_agg(id ORDER BY id) FROM sb1 WHERE pos) <>
	   (SELECT array_agg(id ORDER BY id) FROM sb2 WHERE pos) AS secrets_differ;
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sim_run_attack(ARRAY['sb1', 'sb2'], 40, 'tapas.design_member(''bernoulli'', 2000, 10, %s, id, 0, 42)');
RESET SESSION AUTHORIZATION;
SELECT * FROM sim_compare('sb1', 'sb2');
-- the attacker's exhaustive decoder on the first queries: the first prefix
-- whose answers single out the positives (computed from sb1's answers in
-- log mode by a third table with sb1's secrets)
CREATE FUNCTION sim_first_decoded(tbl text, n int, s int, m int, member text, method text)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE got bigint[];
	truth bigint[];
	ans numeric[];
BEGIN
	EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %I WHERE pos', tbl) INTO truth;
	EXECUTE format('SELECT array_agg((SELECT count(*) FROM %I WHERE pos AND ' || member || ') ORDER BY q)
					  FROM generate_series(1, %s) q', tbl, 'q', m) INTO ans;
	FOR t IN 1..m LOOP
		BEGIN
			SELECT array_agg(record ORDER BY record) INTO got
			  FROM tapas.reconstruct_matrix(
				format('SELECT q, id FROM generate_series(1, %s) q, generate_series(1, %s) id WHERE '
					   || format(member, 'q'), t, n), ans[1:t], method, s);
			IF got = truth THEN
				RETURN t;
			END IF;
		EXCEPTION WHEN OTHERS THEN
			NULL;
		END;
	END LOOP;
	RETURN NULL;
END $$;
SELECT sim_first_decoded('sb1', 2000, 3, 40, 'tapas.design_member(''bernoulli'', 2000, 10, %s, id, 0, 42)', 'sparse')
	   >= (SELECT first_refused_1 FROM sim_compare('sb1', 'sb2')) AS refused_no_later_than_the_decoder;

-- 2. BCH, s = 2, record = key (n = 4,095).  Over the first block of 12
-- queries every record has its own pattern (alpha^j, j < 4095, are the
-- nonzero elements of GF(2^12)).  Positives {a, b} and {c, d} with
-- c = a xor F and d = b xor F on the patterns of the first 16 queries,
-- F within the queries that cover exactly one of a and b, have the same
-- count on each of those queries.
CREATE TABLE bch_sig AS
SELECT id, sum(CASE WHEN tapas.design_member('bch', 4095, 2, q, id, 2048) THEN 1 << (q - 1) ELSE 0 END)::int AS sig
  FROM generate_series(1, 4095) id, generate_series(1, 16) q GROUP BY id;
CREATE TABLE bch_pair AS
SELECT a.id AS a, b.id AS b, c.id AS c, d.id AS d
  FROM bch_sig a, bch_sig b, generate_series(1, 65535) f, bch_sig c, bch_sig d
 WHERE a.id = 17 AND b.id = 2500 AND f & ~(a.sig # b.sig) = 0
   AND c.sig = a.sig # f AND d.sig = b.sig # f
 ORDER BY f LIMIT 1;
SELECT count(*) AS pairs_found FROM bch_pair;
SELECT sim_mk('sc1', 4095, ARRAY[a, b]), sim_mk('sc2', 4095, ARRAY[c, d]) FROM bch_pair;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sim_run_attack(ARRAY['sc1', 'sc2'], 24, 'tapas.design_member(''bch'', 4095, 2, %s, id, 2048)');
RESET SESSION AUTHORIZATION;
SELECT * FROM sim_compare('sc1', 'sc2');
SELECT q, outcome FROM sim_answers WHERE tbl = 'sc1' AND outcome <> 'answered' ORDER BY q LIMIT 3;
SELECT sim_first_decoded('sc1', 4095, 2, 24, 'tapas.design_member(''bch'', 4095, 2, %s, id, 2048)', 'sparse')
	   >= (SELECT first_refused_1 FROM sim_compare('sc1', 'sc2')) AS refused_no_later_than_the_decoder;
-- the methods that refused (the record an alert names may be a true
-- positive, which the auditor knows; the decision did not read it, so the
-- alerts of two such tables may name different records and methods)
SELECT DISTINCT method, action FROM tapas.alert_records
 WHERE "table" IN ('sb1'::regclass, 'sb2'::regclass, 'sc1'::regclass, 'sc2'::regclass)
 ORDER BY 1;
RESET tapas.mode;
RESET tapas.min_candidates;
RESET tapas.audit_budget_ms;
\i sql/fixtures/release_ledger.sql
