-- Simulatable decisions on the combined rows of related classes
-- (src/audit/combined.c): two tables that agree on every answered query
-- but differ in their secrets get the same decision at the next query,
-- when the queries are the halves of a split (count(*) FILTER (WHERE pos
-- AND income > t_q) and count(*) FILTER (WHERE pos AND NOT income > t_q)
-- over Bernoulli design row Q_q, 32 thresholds), so that no class has
-- rows enough of its own and the decisions come from the combined rows
-- of pos.  The tables have 3 positives among 2,000 records and differ in
-- one: records j and k, with the same income, that the first 18 design
-- rows cover alike, so every half has the same answer in both until row
-- 19.  Both tables refuse from row 11 on, and the halves they answer
-- isolate no record for the auditor either (tapas.audit at the same floor
-- finds nothing).
SET tapas.audit_scope = role;
SET client_min_messages = warning;
CREATE TABLE scomb_sig AS
SELECT id, string_agg(CASE WHEN tapas.design_member('bernoulli', 2000, 10, q, id, 0, 42)
						   THEN '1' ELSE '0' END, '' ORDER BY q) AS sig
  FROM generate_series(1, 2000) id, generate_series(1, 18) q GROUP BY id;
CREATE TABLE scomb_pair AS
SELECT min(id) AS j, max(id) AS k FROM scomb_sig WHERE id NOT IN (11, 700)
 GROUP BY sig HAVING count(*) = 2 ORDER BY 1 LIMIT 1;
-- positives 11 (income 1550), 700 (3050) and p (2050, as its twin)
CREATE FUNCTION scomb_mk(tbl text, p int, twin int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, pos boolean NOT NULL, income int NOT NULL)', tbl);
	EXECUTE format('INSERT INTO %I SELECT g, g IN (11, 700, %s),
						   CASE WHEN g = 11 THEN 1550 WHEN g = 700 THEN 3050 WHEN g IN (%s, %s) THEN 2050
								ELSE 1000 + (g * 37) %% 5000 END
					  FROM generate_series(1, 2000) g', tbl, p, p, twin);
	PERFORM tapas.protect(tbl::regclass, 'id', ARRAY['pos', 'income'], 900);
	EXECUTE format('GRANT SELECT ON %I TO regress_tapas_analyst', tbl);
END $$;
CREATE TABLE scomb_answers (tbl text, q int, part int, a numeric, outcome text);
GRANT ALL ON scomb_answers TO PUBLIC;
-- design row q asked as its two halves, on each table in turn
CREATE FUNCTION scomb_attack(tbls text[], m int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE a numeric;
	t int;
BEGIN
	FOR q IN 1..m LOOP
		t := 1525 + 100 * (q % 32);
		FOR p IN 1..2 LOOP
			FOR i IN 1..array_length(tbls, 1) LOOP
				BEGIN
					EXECUTE format('SELECT count(*) FILTER (WHERE pos AND %s income > %s) FROM %I
									 WHERE tapas.design_member(''bernoulli'', 2000, 10, %s, id, 0, 42)',
								   CASE WHEN p = 1 THEN '' ELSE 'NOT' END, t, tbls[i], q) INTO a;
					INSERT INTO scomb_answers VALUES (tbls[i], q, p, a, 'answered');
				EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
					INSERT INTO scomb_answers VALUES (tbls[i], q, p, NULL, SQLSTATE);
				END;
			END LOOP;
		END LOOP;
	END LOOP;
END $$;
RESET client_min_messages;
-- the one-positive candidates test steps back to its floor, so that the
-- decoders decide; time enough for every check (no decision may depend
-- on the load)
SET tapas.min_candidates = 2;
SET tapas.audit_budget_ms = 600000;
SELECT scomb_mk('scomb1', j, k), scomb_mk('scomb2', k, j) FROM scomb_pair;
SELECT (SELECT array_agg(id ORDER BY id) FROM scomb1 WHERE pos) <>
	   (SELECT array_agg(id ORDER BY id) FROM scomb2 WHERE pos) AS secrets_differ;
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT scomb_attack(ARRAY['scomb1', 'scomb2'], 24);
RESET SESSION AUTHORIZATION;
-- per query (q, part): did the tables agree on every answered query
-- before it, and did they get the same decision?
WITH j AS (
	SELECT a.q, a.part, a.a AS a1, b.a AS a2, a.outcome AS o1, b.outcome AS o2
	  FROM scomb_answers a JOIN scomb_answers b USING (q, part)
	 WHERE a.tbl = 'scomb1' AND b.tbl = 'scomb2'),
k AS (
	SELECT *, bool_and(a1 IS NOT DISTINCT FROM a2)
				OVER (ORDER BY q, part ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS agreed
	  FROM j)
SELECT count(*) AS queries, count(*) FILTER (WHERE agreed IS NOT FALSE) AS after_agreeing_answers,
	   count(*) FILTER (WHERE agreed IS NOT FALSE AND o1 = o2) AS same_decision,
	   min(q) FILTER (WHERE o1 <> 'answered') AS first_refused_1,
	   min(q) FILTER (WHERE o2 <> 'answered') AS first_refused_2,
	   min(q) FILTER (WHERE a1 IS DISTINCT FROM a2) AS first_different_answer
  FROM k;
-- the first refusal: no class has more than one row of its own before
-- row 33, and it comes from a threshold class's candidates narrowed by the
-- rows answered 1 of the classes it implies or that imply it (implied.c;
-- before them, the combined rows of pos refused from row 14), in both
-- tables by the same method
SELECT DISTINCT ON ("table") "table", statistic LIKE 'count(*) combined 0 %' AS combined_pos,
	   method, action
  FROM tapas.alerts WHERE "table" IN ('scomb1'::regclass, 'scomb2'::regclass)
 ORDER BY "table", alert_id;
-- the answered halves, audited offline at the same floor: no record isolated
SELECT "table", count(a.kind) AS findings
  FROM unnest(ARRAY['scomb1', 'scomb2']::regclass[]) "table"
  LEFT JOIN LATERAL tapas.audit("table") a ON true
 GROUP BY "table" ORDER BY "table";
RESET tapas.mode;
RESET tapas.min_candidates;
RESET tapas.audit_budget_ms;
SET client_min_messages = warning;
DROP TABLE scomb1, scomb2, scomb_sig, scomb_pair, scomb_answers;
DROP FUNCTION scomb_mk(text, int, int), scomb_attack(text[], int);
RESET client_min_messages;
RESET tapas.audit_scope;
\i sql/fixtures/release_ledger.sql
