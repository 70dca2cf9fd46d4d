-- Design-aware decoders in the auditor: logged rows recognised as BCH or
-- Hadamard design rows (record = key) and decoded by the design's decoder
-- (methods 'bch' and 'hadamard').  They run when the generic decoders find
-- nothing; a record is alerted once, by the first method that finds it.
-- the decoders per role: a second role repeats the attack on its own
-- (tapas.audit_scope = all, which combines the roles, is sql/47_audit_joint.sql)
SET tapas.audit_scope = role;
SET client_min_messages = warning;
CREATE TABLE dz_b1 (id int PRIMARY KEY, pos boolean NOT NULL);
INSERT INTO dz_b1 SELECT g, g = 3001 FROM generate_series(1, 4095) g;
SELECT tapas.protect('dz_b1', 'id', ARRAY['pos'], 2048) IS NULL AS protected;
CREATE TABLE dz_b2 (id int PRIMARY KEY, pos boolean NOT NULL);
INSERT INTO dz_b2 SELECT g, g IN (17, 2500) FROM generate_series(1, 4095) g;
SELECT tapas.protect('dz_b2', 'id', ARRAY['pos'], 2048) IS NULL AS protected;
CREATE TABLE dz_b3 (id int PRIMARY KEY, pos boolean NOT NULL);
INSERT INTO dz_b3 SELECT g, g IN (17, 2500, 4000) FROM generate_series(1, 4095) g;
SELECT tapas.protect('dz_b3', 'id', ARRAY['pos'], 2048) IS NULL AS protected;
CREATE TABLE dz_h (id int PRIMARY KEY, ward int NOT NULL, debt int NOT NULL);
INSERT INTO dz_h SELECT g, g % 4, CASE g WHEN 9 THEN 5 WHEN 100 THEN 2 WHEN 201 THEN 7 ELSE 0 END
  FROM generate_series(1, 256) g;
SELECT tapas.protect('dz_h', 'id', ARRAY['debt'], 100) IS NULL AS protected;
CREATE TABLE dz_benign (id int PRIMARY KEY, age int NOT NULL, zip int NOT NULL, pos boolean NOT NULL);
INSERT INTO dz_benign SELECT g, 20 + g % 50, g % 30, g % 997 = 3 FROM generate_series(1, 4095) g;
SELECT tapas.protect('dz_benign', 'id', ARRAY['pos'], 20) IS NULL AS protected;
GRANT SELECT ON dz_b1, dz_b2, dz_b3, dz_h, dz_benign TO regress_tapas_analyst;
CREATE TABLE dz_answers (tbl text, q int, a numeric);
GRANT ALL ON dz_answers TO PUBLIC;
RESET client_min_messages;

CREATE FUNCTION dz_bch_attack(tbl text, s int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE a numeric;
BEGIN
	FOR q IN 1..tapas.design_size('bch', 4095, s, 2048) LOOP
		BEGIN
			EXECUTE format('SELECT count(*) FILTER (WHERE pos) FROM %I
							 WHERE tapas.design_member(''bch'', 4095, %s, %s, id, 2048)', tbl, s, q)
			   INTO a;
		EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
			a := NULL;			-- refused
		END;
		INSERT INTO dz_answers VALUES (tbl, q, a);
	END LOOP;
END $$;
CREATE FUNCTION dz_alerts(tbl regclass) RETURNS TABLE (at_query bigint, records bigint[],
	kind text, method text)
LANGUAGE sql AS $$
	SELECT at_query, array_agg(record_key ORDER BY record_key), kind, method FROM (
	SELECT (SELECT count(*) FROM tapas.query_log q WHERE q.tbl = a."table"
			   AND q.role = a.role AND q.log_id <= a.log_ids[array_upper(a.log_ids, 1)]) AS at_query,
		   a.record_key, a.kind, a.method
	  FROM tapas.alert_records a WHERE a."table" = tbl) t GROUP BY 1, 3, 4 ORDER BY 1, 4 $$;
-- oracle: the first prefix t of the s-design's queries that contains a
-- whole BCH design with s' <= s blocks (its parity rows are queries
-- 1..12 s', complemented alike; its total is the s-design's last query)
-- on which the attacker's own tapas.reconstruct('bch', ...) returns the truth
CREATE FUNCTION dz_bch_oracle(tbl text, s int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE got bigint[];
	truth bigint[];
	m int := tapas.design_size('bch', 4095, s, 2048);
	ans numeric[];
BEGIN
	EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %I WHERE pos', tbl) INTO truth;
	FOR t IN 1..m LOOP
		FOR sp IN 1..s LOOP
			CONTINUE WHEN 12 * sp > t OR (tapas.design_size('bch', 4095, sp, 2048) > 12 * sp AND t < m);
			SELECT array_agg(a ORDER BY q) INTO ans FROM dz_answers d
			 WHERE d.tbl = dz_bch_oracle.tbl AND (q <= 12 * sp OR
				   (q = m AND tapas.design_size('bch', 4095, sp, 2048) > 12 * sp));
			BEGIN
				SELECT array_agg(record ORDER BY record) INTO got
				  FROM tapas.reconstruct('bch', 4095, ans, sp, 2048);
				IF got = truth THEN
					RETURN t;
				END IF;
			EXCEPTION WHEN data_exception THEN
				NULL;
			END;
		END LOOP;
	END LOOP;
	RETURN NULL;
END $$;
-- the s'-design's queries are the s-design's first 12 s' (and its last,
-- the total, when the s'-design has one)
SELECT tapas.design_size('bch', 4095, 1, 2048) AS size_s1, tapas.design_size('bch', 4095, 2, 2048) AS size_s2,
	   bool_and(tapas.design_member('bch', 4095, 1, q, id, 2048) =
				tapas.design_member('bch', 4095, 2, q, id, 2048)) AS same_rows
  FROM generate_series(1, 12) q, generate_series(1, 4095) id;

-- BCH, s = 2, with the expensive sparse search out of budget: the audit
-- fails closed from the query on which the sparse search is triggered (an
-- 'incomplete' alert per query in log mode), and the BCH decoder, which
-- runs whatever the budget, catches both positives at the query where it
-- first decodes (the 25th: the total query that turns the complemented
-- rows into parity rows), as the attacker's own decoder on the prefixes says
SET tapas.mode = log;
SET tapas.audit_budget_ms = 0;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT dz_bch_attack('dz_b2', 2);
RESET SESSION AUTHORIZATION;
SELECT dz_bch_oracle('dz_b2', 2) AS oracle_query;
SELECT * FROM dz_alerts('dz_b2') WHERE kind <> 'incomplete';
SELECT count(*) AS incomplete, min(detail) AS detail FROM tapas.alerts
 WHERE "table" = 'dz_b2'::regclass AND kind = 'incomplete';
SELECT detail FROM tapas.alerts WHERE "table" = 'dz_b2'::regclass AND kind <> 'incomplete'
 ORDER BY alert_id LIMIT 1;

-- BCH, s = 1: the cheap single-positive test finds the record first (when
-- one candidate is left); the BCH decoder, which also succeeds at that
-- 12th query (no row of the s = 1 design is complemented), adds no second
-- alert for it
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT dz_bch_attack('dz_b1', 1);
RESET SESSION AUTHORIZATION;
SELECT dz_bch_oracle('dz_b1', 1) AS oracle_query;
SELECT * FROM dz_alerts('dz_b1') WHERE kind <> 'incomplete';
-- three positives against the s = 2 design: the BCH decoder fails or
-- returns a wrong support, so no 'bch' alert (nor the attacker's decoder)
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT dz_bch_attack('dz_b3', 2);
RESET SESSION AUTHORIZATION;
SELECT dz_bch_oracle('dz_b3', 2) AS oracle_query;
SELECT count(*) AS alerts FROM tapas.alerts WHERE "table" = 'dz_b3'::regclass AND kind <> 'incomplete';

-- deny mode, another role, budget still 0: refused (TP004) from the query
-- on which the sparse search is triggered, and the attacker's decoder,
-- missing those answers, cannot decode
DO $$
BEGIN
	CREATE ROLE regress_tapas_analyst2 LOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
GRANT SELECT ON dz_b2 TO regress_tapas_analyst2;
DELETE FROM dz_answers WHERE tbl = 'dz_b2';
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst2;
SELECT dz_bch_attack('dz_b2', 2);
RESET SESSION AUTHORIZATION;
SET tapas.mode = log;
SELECT array_agg(q) AS refused FROM dz_answers WHERE tbl = 'dz_b2' AND a IS NULL;
SELECT record_key, method, action FROM tapas.alert_records
 WHERE "table" = 'dz_b2'::regclass AND role = 'regress_tapas_analyst2' ORDER BY record_key;
SELECT dz_bch_oracle('dz_b2', 2) AS oracle_query_on_what_was_answered;
RESET tapas.audit_budget_ms;

-- Hadamard, n = 256, a sparse integer column (not 0/1, so no generic
-- decoder applies): every record is determined at query 256 (row space);
-- the Hadamard decoder agrees there and adds no second alert.  The full
-- audit lists both findings for the three nonzero records.
SET SESSION AUTHORIZATION regress_tapas_analyst;
DO $$
DECLARE a numeric;
BEGIN
	FOR q IN 1..256 LOOP
		SELECT sum(debt) INTO a FROM dz_h WHERE tapas.design_member('hadamard', 256, 1, q, id, 100);
		INSERT INTO dz_answers VALUES ('dz_h', q, a);
	END LOOP;
END $$;
RESET SESSION AUTHORIZATION;
SELECT at_query, cardinality(records) AS listed, kind, method FROM dz_alerts('dz_h');
SELECT count(*) AS alerts, sum(nrecords) AS records FROM tapas.alerts WHERE "table" = 'dz_h'::regclass;
SELECT array_agg(record ORDER BY record) AS decoded, array_agg(value ORDER BY record) AS "values"
  FROM tapas.reconstruct('hadamard', 256,
		(SELECT array_agg(a ORDER BY q) FROM dz_answers WHERE tbl = 'dz_h'), 1, 100)
 WHERE value <> 0;
SELECT method, kind, count(*) AS records, array_agg(record_key ORDER BY record_key) FILTER (WHERE method = 'hadamard') AS keys
  FROM tapas.audit('dz_h') GROUP BY 1, 2 ORDER BY 1;

-- benign: 300 GROUP BY queries over quasi-identifiers and a few totals,
-- no design alert (and the full audit finds none either)
SET SESSION AUTHORIZATION regress_tapas_analyst;
DO $$
DECLARE r record;
BEGIN
	FOR i IN 1..100 LOOP
		PERFORM zip, count(*) FILTER (WHERE pos) FROM dz_benign WHERE age >= 20 + i % 30 GROUP BY zip;
		PERFORM count(*) FILTER (WHERE pos) FROM dz_benign WHERE zip <> i % 30;
		PERFORM count(*) FILTER (WHERE pos) FROM dz_benign;
	END LOOP;
END $$;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS design_alerts FROM tapas.alerts
 WHERE "table" = 'dz_benign'::regclass AND method IN ('bch', 'hadamard');
SELECT count(*) AS design_findings FROM tapas.audit('dz_benign') WHERE method IN ('bch', 'hadamard');
RESET tapas.mode;
\i sql/fixtures/release_ledger.sql
