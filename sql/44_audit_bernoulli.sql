-- Bernoulli(1/2) queries (n = 2,000), the compressed-sensing attack: s = 3
-- positives (caught by the exhaustive sparse search) and s = 5 (caught by
-- OMP).  Oracle: the first prefix of the design on which the same kind of
-- decoder, run by the attacker through tapas.reconstruct_matrix, returns
-- exactly the positives.  Deny mode refuses that query.
-- the decoders per role: a second role repeats the attack on its own
-- (tapas.audit_scope = all, which combines the roles, is sql/47_audit_joint.sql)
SET tapas.audit_scope = role;
SET client_min_messages = warning;
CREATE TABLE bern3 (id int PRIMARY KEY, pos boolean NOT NULL);
INSERT INTO bern3 SELECT g, g IN (11, 700, 1999) FROM generate_series(1, 2000) g;
SELECT tapas.protect('bern3', 'id', ARRAY['pos'], 900);
CREATE TABLE bern5 (id int PRIMARY KEY, pos boolean NOT NULL);
INSERT INTO bern5 SELECT g, g IN (5, 400, 888, 1234, 1777) FROM generate_series(1, 2000) g;
SELECT tapas.protect('bern5', 'id', ARRAY['pos'], 900);
GRANT SELECT ON bern3, bern5 TO regress_tapas_analyst;
DO $$
BEGIN
	CREATE ROLE regress_tapas_analyst2 LOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
GRANT SELECT ON bern3, bern5 TO regress_tapas_analyst2;
CREATE TABLE bern_answers (tbl text, q int, a numeric, refused boolean DEFAULT false);
GRANT ALL ON bern_answers TO PUBLIC;
RESET client_min_messages;

CREATE FUNCTION bern_attack(tbl text, m int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE a numeric;
BEGIN
	FOR q IN 1..m LOOP
		BEGIN
			EXECUTE format('SELECT count(*) FILTER (WHERE pos) FROM %I
							 WHERE tapas.design_member(''bernoulli'', 2000, 10, %s, id, 0, 42)', tbl, q)
			   INTO a;
			INSERT INTO bern_answers VALUES (tbl, q, a);
		EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
			INSERT INTO bern_answers VALUES (tbl, q, 0, true);
		END;
	END LOOP;
END $$;
CREATE FUNCTION first_decoded(tbl text, method text, s int, m int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE got bigint[];
	truth bigint[];
BEGIN
	EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %I WHERE pos', tbl) INTO truth;
	FOR t IN 1..m LOOP
		BEGIN
			SELECT array_agg(record ORDER BY record) INTO got
			  FROM tapas.reconstruct_matrix(
				format('SELECT q, id FROM generate_series(1, %s) q, generate_series(1, 2000) id
						 WHERE tapas.design_member(''bernoulli'', 2000, 10, q, id, 0, 42)', t),
				(SELECT array_agg(a ORDER BY q) FROM bern_answers b WHERE b.tbl = first_decoded.tbl AND q <= t),
				method, s);
			IF got = truth THEN
				RETURN t;
			END IF;
		EXCEPTION WHEN OTHERS THEN
			NULL;
		END;
	END LOOP;
	RETURN NULL;
END $$;
CREATE FUNCTION bern_alerts(tbl regclass) RETURNS TABLE (at_query bigint, records bigint[],
	kind text, method text, action text)
LANGUAGE sql AS $$
	SELECT (SELECT count(*) FROM tapas.query_log q WHERE q.tbl = a."table"
			   AND q.role = a.role AND q.log_id <= a.log_ids[array_upper(a.log_ids, 1)]),
		   array_agg(a.record_key ORDER BY a.record_key), a.kind, a.method, a.action
	  FROM tapas.alert_records a WHERE a."table" = tbl
	 GROUP BY 1, 3, 4, 5 ORDER BY 1 $$;

SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT bern_attack('bern3', 40);
SELECT bern_attack('bern5', 90);
RESET SESSION AUTHORIZATION;
SELECT first_decoded('bern3', 'sparse', 3, 40) AS oracle_query;
SELECT * FROM bern_alerts('bern3');
SELECT first_decoded('bern5', 'omp', 5, 90) AS oracle_query;
SELECT * FROM bern_alerts('bern5');

-- deny mode, another role: refusals from the same queries on
DELETE FROM bern_answers;
SET tapas.mode = deny;
-- time enough for the simulatable decoders: the decisions must not depend on the load
SET tapas.audit_budget_ms = 600000;
SET SESSION AUTHORIZATION regress_tapas_analyst2;
SELECT bern_attack('bern3', 40);
SELECT bern_attack('bern5', 90);
RESET SESSION AUTHORIZATION;
SELECT tbl, min(q) AS first_refused, count(*) AS refused
  FROM bern_answers WHERE refused GROUP BY tbl ORDER BY tbl;
-- the attacker's decoders on the answered queries only: no exact recovery
CREATE FUNCTION answered_decode(tbl text, method text, s int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE got bigint[];
	truth bigint[];
BEGIN
	EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %I WHERE pos', tbl) INTO truth;
	SELECT array_agg(record ORDER BY record) INTO got
	  FROM tapas.reconstruct_matrix(
		format('SELECT r, id FROM (SELECT q, row_number() OVER (ORDER BY q) AS r
									 FROM bern_answers WHERE tbl = %L AND NOT refused) qq,
						   generate_series(1, 2000) id
				 WHERE tapas.design_member(''bernoulli'', 2000, 10, qq.q, id, 0, 42)', tbl),
		(SELECT array_agg(a ORDER BY q) FROM bern_answers b WHERE b.tbl = answered_decode.tbl AND NOT refused),
		method, s);
	RETURN CASE WHEN got = truth THEN 'recovered' ELSE 'wrong' END;
EXCEPTION WHEN OTHERS THEN
	RETURN 'decoder fails';
END $$;
SELECT answered_decode('bern3', 'sparse', 3) AS sparse, answered_decode('bern3', 'omp', 3) AS omp;
SELECT answered_decode('bern5', 'omp', 5) AS omp;
RESET tapas.mode;
RESET tapas.audit_budget_ms;
\i sql/fixtures/release_ledger.sql
