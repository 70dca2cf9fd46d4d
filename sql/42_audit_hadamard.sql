-- The Hadamard attack on n = 256 records (k = 128): the analyst asks the
-- 256 rows of the Sylvester design (H + J) / 2, each covering 128 or 256
-- records.  No row before the last determines anything; the 256th makes
-- the design square and invertible, so every record is determined there.
-- Values are not sparse (incomes), so only the row-space test can fire.
-- the decoders per role: a second role repeats the attack on its own
-- (tapas.audit_scope = all, which combines the roles, is sql/47_audit_joint.sql)
SET tapas.audit_scope = role;
SET client_min_messages = warning;
CREATE TABLE hd (id int PRIMARY KEY, income int NOT NULL);
INSERT INTO hd SELECT g, 1000 + (g * 7919) % 9000 FROM generate_series(1, 256) g;
SELECT tapas.protect('hd', 'id', ARRAY['income'], 128);
GRANT SELECT ON hd TO regress_tapas_analyst;
CREATE TABLE hd_answers (q int PRIMARY KEY, a numeric);
GRANT ALL ON hd_answers TO regress_tapas_analyst;
RESET client_min_messages;

-- log mode: one alert per record, all at query 256
SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
DO $$
DECLARE a numeric;
BEGIN
	FOR q IN 1..256 LOOP
		SELECT sum(income) INTO a FROM hd
		 WHERE tapas.design_member('hadamard', 256, 1, q, id, 128);
		INSERT INTO hd_answers VALUES (q, a);
	END LOOP;
END $$;
RESET SESSION AUTHORIZATION;
-- one alert for the statement, listing its records (the first 32) and their number
SELECT count(*) AS alerts, sum(nrecords) AS records, max(cardinality(record_keys)) AS listed,
	   min(log_ids[array_upper(log_ids, 1)]) = max(log_ids[array_upper(log_ids, 1)]) AS same_query,
	   (SELECT count(*) FROM tapas.query_log q WHERE q.tbl = 'hd'::regclass
		 AND q.log_id <= max(a.log_ids[array_upper(a.log_ids, 1)])) AS at_query,
	   min(kind) AS kind, min(method) AS method
  FROM tapas.alerts a WHERE "table" = 'hd'::regclass;
-- the attacker's decoder indeed recovers every income from the answers
SELECT count(*) AS recovered
  FROM tapas.reconstruct('hadamard', 256, (SELECT array_agg(a ORDER BY q) FROM hd_answers), 1, 128) r
  JOIN hd ON hd.id = r.record AND hd.income = r.value;

-- deny mode, another role: the 256th query is refused; the decoder then
-- fails on the 255 answers it got (plus a guess for the last)
DO $$
BEGIN
	CREATE ROLE regress_tapas_analyst2 LOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
GRANT SELECT ON hd TO regress_tapas_analyst2;
GRANT ALL ON hd_answers TO regress_tapas_analyst2;
TRUNCATE hd_answers;
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst2;
DO $$
DECLARE a numeric;
BEGIN
	FOR q IN 1..256 LOOP
		BEGIN
			SELECT sum(income) INTO a FROM hd
			 WHERE tapas.design_member('hadamard', 256, 1, q, id, 128);
			INSERT INTO hd_answers VALUES (q, a);
		EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
			RAISE NOTICE 'query % refused', q;
			INSERT INTO hd_answers VALUES (q, 0);
		END;
	END LOOP;
END $$;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS denied_alerts, sum(nrecords) AS records, min(action) AS action
  FROM tapas.alerts WHERE "table" = 'hd'::regclass AND action = 'denied';
SELECT count(*) AS logged_for_role2 FROM tapas.query_log
 WHERE tbl = 'hd'::regclass AND role = 'regress_tapas_analyst2';
SELECT count(*) AS recovered_with_guess
  FROM tapas.reconstruct('hadamard', 256, (SELECT array_agg(a ORDER BY q) FROM hd_answers), 1, 128) r
  JOIN hd ON hd.id = r.record AND hd.income = r.value;
RESET tapas.mode;
