-- Many positives (src/audit/simulated.c): the simulatable decoder decision
-- is binary hard-thresholding pursuit, one trial of at most 6 steps that
-- stops once it holds half of a random vector's positives; up to 256
-- positives before issue 11 item 6, failing closed beyond (TP004), now
-- for any number within the budget.
-- 1. Bernoulli(1/2) rows over n = 2,000 records with 100 positives: deny
--    mode refuses the attack with TP001 (a decision, not a failure to
--    decide), no statement of it ends in TP004, and the attacker's own
--    BHTP on the answered prefix does not recover the positives.
-- 2. 600 positives: a decodable design above 256 positives (each row holds
--    about 300, the logged lower bound), refused with TP001 by the greedy
--    decision (simulated_bhtp; before issue 11 item 6: TP004 at the 137th
--    query), before the attacker's own BHTP (sparsity 600) recovers the
--    positives from the answers it got.  (Kernel figures, n = 2,000: the
--    trial for 320 positives holds half of them at about 600 rows, BHTP
--    recovers 600 at about 1,400.)
SET tapas.audit_scope = role;
SET client_min_messages = warning;
CREATE TABLE many100 (id int PRIMARY KEY, pos boolean NOT NULL);
INSERT INTO many100 SELECT g, g % 20 = 7 FROM generate_series(1, 2000) g;
SELECT tapas.protect('many100', 'id', ARRAY['pos'], 900);
CREATE TABLE many600 (id int PRIMARY KEY, pos boolean NOT NULL);
INSERT INTO many600 SELECT g, g % 10 IN (1, 4, 8) FROM generate_series(1, 2000) g;
SELECT tapas.protect('many600', 'id', ARRAY['pos'], 900);
GRANT SELECT ON many100, many600 TO regress_tapas_analyst;
CREATE TABLE many_answers (tbl text, q int, a numeric, outcome text);
GRANT ALL ON many_answers TO PUBLIC;
-- the attack until its first refusal (at most m queries)
CREATE FUNCTION many_attack(tbl text, m int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE a numeric;
BEGIN
	FOR q IN 1..m LOOP
		BEGIN
			EXECUTE format('SELECT count(*) FILTER (WHERE pos) FROM %I
							 WHERE tapas.design_member(''bernoulli'', 2000, 10, %s, id, 0, 77)', tbl, q)
			   INTO a;
			INSERT INTO many_answers VALUES (tbl, q, a, 'answered');
		EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
			INSERT INTO many_answers VALUES (tbl, q, NULL, SQLSTATE);
			RETURN;
		END;
	END LOOP;
END $$;
RESET client_min_messages;
SET tapas.min_candidates = 2;
-- time enough for every check: the decision must not depend on the load
SET tapas.audit_budget_ms = 600000;
SET tapas.mode = deny;

SELECT count(*) AS positives FROM (SELECT id FROM many100 WHERE pos) s;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT many_attack('many100', 1500);
RESET SESSION AUTHORIZATION;
SELECT outcome, count(*) FROM many_answers WHERE tbl = 'many100' GROUP BY 1 ORDER BY 1;
-- refused within the attack's length, before the decoders' bound
-- m >= s log2(n / s) = 432 for the true 100 positives could be met twice
SELECT max(q) BETWEEN 100 AND 1000 AS refused_in_range FROM many_answers WHERE tbl = 'many100';
SELECT DISTINCT method FROM tapas.alert_records WHERE "table" = 'many100'::regclass;
-- the attacker's BHTP (sparsity 100) on every answer it got: not the
-- positives (an error: no consistent decoding), whereas on 1,000 answers
-- (log mode, a copy of the table) it returns exactly them
CREATE FUNCTION many_decodes(tbl text, m int, ans numeric[]) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	RETURN (SELECT count(*) = 100 AND bool_and(r.record % 20 = 7)
			  FROM tapas.reconstruct_matrix(
					format('SELECT q, id FROM generate_series(1, %s) q, generate_series(1, 2000) id
							 WHERE tapas.design_member(''bernoulli'', 2000, 10, q, id, 0, 77)', m),
					ans, 'bhtp', 100) r);
EXCEPTION WHEN OTHERS THEN
	RETURN false;
END $$;
SELECT many_decodes('many100', max(q) - 1, array_agg(a ORDER BY q) FILTER (WHERE outcome = 'answered'))
	   AS attacker_decodes_at_refusal
  FROM many_answers WHERE tbl = 'many100';
SELECT many_decodes('many100', 1000,
					(SELECT array_agg((SELECT count(*) FROM many100 WHERE pos
										AND tapas.design_member('bernoulli', 2000, 10, q, id, 0, 77)) ORDER BY q)
					   FROM generate_series(1, 1000) q)) AS attacker_decodes_1000_answers;

-- 2. above 256 positives: decided, refused before the attacker decodes
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT many_attack('many600', 1200);
RESET SESSION AUTHORIZATION;
SELECT outcome, count(*) > 0 AS some FROM many_answers WHERE tbl = 'many600' GROUP BY 1 ORDER BY 1;
SELECT max(q) BETWEEN 300 AND 1200 AS refused_in_range FROM many_answers WHERE tbl = 'many600';
SELECT DISTINCT kind, method FROM tapas.alert_records WHERE "table" = 'many600'::regclass;
CREATE FUNCTION many600_decodes(m int, ans numeric[]) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	RETURN (SELECT count(*) = 600 AND bool_and(r.record % 10 IN (1, 4, 8))
			  FROM tapas.reconstruct_matrix(
					format('SELECT q, id FROM generate_series(1, %s) q, generate_series(1, 2000) id
							 WHERE tapas.design_member(''bernoulli'', 2000, 10, q, id, 0, 77)', m),
					ans, 'bhtp', 600) r);
EXCEPTION WHEN OTHERS THEN
	RETURN false;
END $$;
SELECT many600_decodes(max(q) - 1, array_agg(a ORDER BY q) FILTER (WHERE outcome = 'answered'))
	   AS attacker_decodes_at_refusal
  FROM many_answers WHERE tbl = 'many600';
RESET tapas.mode;
RESET tapas.min_candidates;
RESET tapas.audit_budget_ms;
\i sql/fixtures/release_ledger.sql
