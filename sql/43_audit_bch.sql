-- The BCH attack (n = 4,095, k = n/2): s = 1 (one positive) and s = 2 (two
-- positives).  The alert must come at the first query after which the true
-- positives are the only sparse explanation of the answers: the oracle is
-- tapas.reconstruct_matrix(..., 'sparse', s) on each prefix of the design,
-- which fails while several supports of weight <= s fit.  Deny mode refuses
-- that query, and the attacker's BCH decoder then fails or is wrong.
-- With tapas.min_candidates = 10 the simulatable candidates test
-- (src/audit/candidates.c) comes first: for s = 1 at the query after
-- which fewer than 10 patients could be the positive (the 9th), in deny
-- mode from the query on which some answer could do that.
-- the decoders per role: a second role repeats the attack on its own
-- (tapas.audit_scope = all, which combines the roles, is sql/47_audit_joint.sql)
SET tapas.audit_scope = role;
SET client_min_messages = warning;
CREATE TABLE bch1 (id int PRIMARY KEY, ward int NOT NULL, pos boolean NOT NULL);
INSERT INTO bch1 SELECT g, g % 7, g = 3001 FROM generate_series(1, 4095) g;
SELECT tapas.protect('bch1', 'id', ARRAY['pos'], 2048);
CREATE TABLE bch2 (id int PRIMARY KEY, ward int NOT NULL, pos boolean NOT NULL);
INSERT INTO bch2 SELECT g, g % 7, g IN (17, 2500) FROM generate_series(1, 4095) g;
SELECT tapas.protect('bch2', 'id', ARRAY['pos'], 2048);
GRANT SELECT ON bch1, bch2 TO regress_tapas_analyst;
CREATE TABLE bch_answers (tbl text, q int, a numeric, refused boolean DEFAULT false);
GRANT ALL ON bch_answers TO PUBLIC;
RESET client_min_messages;

-- the attack, as plain SQL: one count per design query; refusals recorded
CREATE FUNCTION bch_attack(tbl text, s int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE a numeric;
BEGIN
	FOR q IN 1..tapas.design_size('bch', 4095, s, 2048) LOOP
		BEGIN
			EXECUTE format('SELECT count(*) FILTER (WHERE pos) FROM %I
							 WHERE tapas.design_member(''bch'', 4095, %s, %s, id, 2048)', tbl, s, q)
			   INTO a;
			INSERT INTO bch_answers VALUES (tbl, q, a);
		EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
			INSERT INTO bch_answers VALUES (tbl, q, 0, true);
		END;
	END LOOP;
END $$;
-- oracle: the first prefix whose answers single out the truth
CREATE FUNCTION first_unique(tbl text, s int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE got bigint[];
	truth bigint[];
BEGIN
	EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %I WHERE pos', tbl) INTO truth;
	FOR t IN 1..tapas.design_size('bch', 4095, s, 2048) LOOP
		BEGIN
			SELECT array_agg(record ORDER BY record) INTO got
			  FROM tapas.reconstruct_matrix(
				format('SELECT q, id FROM generate_series(1, %s) q, generate_series(1, 4095) id
						 WHERE tapas.design_member(''bch'', 4095, %s, q, id, 2048)', t, s),
				(SELECT array_agg(a ORDER BY q) FROM bch_answers b WHERE b.tbl = first_unique.tbl AND q <= t),
				'sparse', s);
			IF got = truth THEN
				RETURN t;
			END IF;
		EXCEPTION WHEN OTHERS THEN
			NULL;
		END;
	END LOOP;
	RETURN NULL;
END $$;
CREATE FUNCTION bch_alerts(tbl regclass) RETURNS TABLE (at_query bigint, record_key bigint,
	kind text, method text, action text)
LANGUAGE sql AS $$
	SELECT (SELECT count(*) FROM tapas.query_log q WHERE q.tbl = a."table"
			   AND q.role = a.role AND q.log_id <= a.log_ids[array_upper(a.log_ids, 1)]),
		   a.record_key, a.kind, a.method, a.action
	  FROM tapas.alert_records a WHERE a."table" = tbl ORDER BY a.alert_id, a.record_key $$;

SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT bch_attack('bch1', 1);
SELECT bch_attack('bch2', 2);
RESET SESSION AUTHORIZATION;
-- s = 1: the oracle's query and the alert's query agree
SELECT first_unique('bch1', 1) AS oracle_query;
SELECT * FROM bch_alerts('bch1');
-- s = 2
SELECT first_unique('bch2', 2) AS oracle_query;
SELECT * FROM bch_alerts('bch2');
-- and the attacker's decoder indeed finds the positives from all answers
SELECT array_agg(record ORDER BY record) AS decoded FROM tapas.reconstruct('bch', 4095,
	(SELECT array_agg(a ORDER BY q) FROM bch_answers WHERE tbl = 'bch1'), 1, 2048);
SELECT array_agg(record ORDER BY record) AS decoded FROM tapas.reconstruct('bch', 4095,
	(SELECT array_agg(a ORDER BY q) FROM bch_answers WHERE tbl = 'bch2'), 2, 2048);

-- deny mode, a fresh role: refused exactly where the alerts came
DO $$
BEGIN
	CREATE ROLE regress_tapas_analyst2 LOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
DELETE FROM bch_answers;
GRANT SELECT ON bch1, bch2 TO regress_tapas_analyst2;
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst2;
SELECT bch_attack('bch1', 1);
SELECT bch_attack('bch2', 2);
RESET SESSION AUTHORIZATION;
SELECT tbl, array_agg(q ORDER BY q) AS refused FROM bch_answers WHERE refused GROUP BY tbl ORDER BY tbl;
-- what the attacker got does not single out the positives: on the answered
-- queries alone, several supports of weight <= s fit (the sparse decoder
-- fails), and BCH decoding with a guess for each refused answer is right
-- for one guess and wrong for the other, with nothing to tell them apart
CREATE FUNCTION answered_unique(tbl text, s int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE got bigint[];
BEGIN
	SELECT array_agg(record ORDER BY record) INTO got
	  FROM tapas.reconstruct_matrix(
		format('SELECT r, id FROM (SELECT q, row_number() OVER (ORDER BY q) AS r
									 FROM generate_series(1, %s) q
									WHERE q NOT IN (SELECT q FROM bch_answers WHERE tbl = %L AND refused)) qq,
						   generate_series(1, 4095) id
				 WHERE tapas.design_member(''bch'', 4095, %s, qq.q, id, 2048)',
			   tapas.design_size('bch', 4095, s, 2048), tbl, s),
		(SELECT array_agg(a ORDER BY q) FROM bch_answers b WHERE b.tbl = answered_unique.tbl AND NOT refused),
		'sparse', s);
	RETURN got::text;
EXCEPTION WHEN OTHERS THEN
	RETURN SQLERRM;
END $$;
SELECT answered_unique('bch1', 1);
SELECT answered_unique('bch2', 2);
CREATE FUNCTION bch_guess(tbl text, s int, guess numeric) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	RETURN (SELECT array_agg(record ORDER BY record)::text FROM tapas.reconstruct('bch', 4095,
		(SELECT array_agg(CASE WHEN refused THEN guess ELSE a END ORDER BY q)
		   FROM bch_answers b WHERE b.tbl = bch_guess.tbl), s, 2048));
EXCEPTION WHEN OTHERS THEN
	RETURN 'decoder fails';
END $$;
SELECT g AS guess, bch_guess('bch1', 1, g) AS decoded FROM generate_series(0, 1) g;
SELECT g AS guess, bch_guess('bch2', 2, g) AS decoded FROM generate_series(0, 2) g;

-- s = 5 (61 queries): beyond the exhaustive search, OMP catches it; the
-- oracle is the attacker's OMP on the prefixes just before and at the alert
CREATE TABLE bch5 (id int PRIMARY KEY, pos boolean NOT NULL);
INSERT INTO bch5 SELECT g, g IN (5, 400, 888, 1234, 3777) FROM generate_series(1, 4095) g;
SELECT tapas.protect('bch5', 'id', ARRAY['pos'], 2048) IS NULL AS protected;
GRANT SELECT ON bch5 TO regress_tapas_analyst;
SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT bch_attack('bch5', 5);
RESET SESSION AUTHORIZATION;
SELECT at_query, array_agg(record_key ORDER BY record_key) AS records, kind, method
  FROM bch_alerts('bch5') GROUP BY 1, 3, 4;
CREATE FUNCTION omp_prefix(t int) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	RETURN (SELECT array_agg(record ORDER BY record)::text FROM tapas.reconstruct_matrix(
		format('SELECT q, id FROM generate_series(1, %s) q, generate_series(1, 4095) id
				 WHERE tapas.design_member(''bch'', 4095, 5, q, id, 2048)', t),
		(SELECT array_agg(a ORDER BY q) FROM bch_answers WHERE tbl = 'bch5' AND q <= t), 'omp', 5));
EXCEPTION WHEN OTHERS THEN
	RETURN 'decoder fails';
END $$;
SELECT t AS prefix, omp_prefix(t) AS attacker_omp FROM generate_series(59, 60) t;
RESET tapas.mode;
\i sql/fixtures/release_ledger.sql
