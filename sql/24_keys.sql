-- Keys that are not one integer column: uuid, text and composite keys.
-- Their records are named by a 64-bit hash of the key's binary form
-- (src/policy/keys.c); tapas.key_registry maps each hash to its key, so a
-- collision is refused at protect and on write, never merged, and alerts
-- name records in their own type (tapas.key_text).
SET client_min_messages = warning;
SET tapas.mode = off;
CREATE TABLE ku (id uuid PRIMARY KEY, rn int NOT NULL, ward int NOT NULL,
				 income int NOT NULL, pos bool NOT NULL);
INSERT INTO ku SELECT md5('u' || g)::uuid, g, g % 7, 1000 + (g * 7919) % 9000, g IN (17, 200)
  FROM generate_series(1, 256) g;
CREATE TABLE kt (id text PRIMARY KEY, rn int NOT NULL, ward int NOT NULL,
				 income int NOT NULL, pos bool NOT NULL);
INSERT INTO kt SELECT CASE WHEN g = 5 THEN 'O''Brien, "Jr" (5)' ELSE 'patient-' || g END,
					  g, g % 7, 1000 + (g * 7919) % 9000, g IN (17, 200)
  FROM generate_series(1, 256) g;
CREATE TABLE kc (a int NOT NULL, b text NOT NULL, rn int NOT NULL, ward int NOT NULL,
				 income int NOT NULL, pos bool NOT NULL, PRIMARY KEY (a, b));
INSERT INTO kc SELECT g % 16, CASE WHEN g = 5 THEN 'x, "y"' ELSE 'x' || (g / 16) END,
					  g, g % 7, 1000 + (g * 7919) % 9000, g IN (17, 200)
  FROM generate_series(1, 256) g;
RESET client_min_messages;

-- what cannot be a key: a composite key without a unique index on exactly
-- its columns, a column listed twice, a key column that is sensitive
SELECT tapas.protect('kc', ARRAY['a'], ARRAY['income'], 128);
SELECT tapas.protect('kc', ARRAY['a', 'b', 'rn'], ARRAY['income'], 128);
SELECT tapas.protect('kc', ARRAY['a', 'a'], ARRAY['income'], 128);
SELECT tapas.protect('kc', ARRAY['a', 'b'], ARRAY['income', 'b'], 128);
SELECT tapas.protect('kc', ARRAY[]::name[], ARRAY['income'], 128);
SELECT tapas.protect('ku', 'id', ARRAY['income', 'pos'], 128);
SELECT tapas.protect('kt', 'id', ARRAY['income', 'pos'], 128);
SELECT tapas.protect('kc', ARRAY['a', 'b'], ARRAY['income', 'pos'], 128);
SELECT relid::regclass, key_column, key_columns, key_attnums FROM tapas.protection
 WHERE relid::regclass::text IN ('ku', 'kt', 'kc') ORDER BY 1;
GRANT SELECT ON ku, kt, kc TO regress_tapas_analyst;
-- every key is registered, under its own hash
SELECT relid::regclass, count(*), count(DISTINCT key_text) FROM tapas.key_registry
 WHERE relid IN ('ku'::regclass, 'kt'::regclass, 'kc'::regclass) GROUP BY 1 ORDER BY 1;
SELECT key_text FROM tapas.key_registry WHERE relid = 'kt'::regclass AND key_text LIKE 'O%';
SELECT key_text, key_text = ROW(5, 'x, "y"'::text)::text AS as_row_text FROM tapas.key_registry
 WHERE relid = 'kc'::regclass AND key_text LIKE '%y%';
SELECT tapas._key_id('x'::text) = tapas._key_id('x'::varchar) AS same_bytes_same_id,
	   tapas._key_id(1, 'ab'::text) <> tapas._key_id(1, 'a'::text) AS prefix_differs,
	   tapas._key_id('ab'::text, 'c'::text) <> tapas._key_id('a'::text, 'bc'::text) AS split_differs;

-- 1. The capture covers the keys' record identities, in the ledger as for
-- any key; the truth (read by tapas) uses the same identities.
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*), sum(income) > 0 AS s FROM ku WHERE rn > 100;
RESET SESSION AUTHORIZATION;
SELECT c.statistic, c.covered,
	   (SELECT array_agg(x ORDER BY x) FROM unnest(c.keys) x) =
	   (SELECT array_agg(tapas._key_id(id) ORDER BY tapas._key_id(id)) FROM ku WHERE rn > 100) AS keys_are_ids
  FROM tapas.last_capture() c;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT rn > 128 AS high, count(*) FILTER (WHERE pos) FROM kc GROUP BY 1 HAVING count(*) > 200;
RESET SESSION AUTHORIZATION;
SELECT statistic, covered, (SELECT array_agg(x ORDER BY x) FROM unnest(c.keys) x) IN
	   ((SELECT array_agg(tapas._key_id(a, b) ORDER BY tapas._key_id(a, b)) FROM kc WHERE rn > 128),
		(SELECT array_agg(tapas._key_id(a, b) ORDER BY tapas._key_id(a, b)) FROM kc WHERE rn <= 128)) AS keys_are_ids
  FROM tapas.last_capture() c ORDER BY covered, keys[1];

-- 2. The difference attack: log mode raises an alert that names the record
-- in its own type; deny mode refuses the same attack on another record.
SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(income) > 0 AS q1 FROM ku;
SELECT sum(income) > 0 AS q2 FROM ku WHERE id <> md5('u7')::uuid;
SELECT sum(income) > 0 AS q1 FROM kt;
SELECT sum(income) > 0 AS q2 FROM kt WHERE id <> 'O''Brien, "Jr" (5)';
SELECT sum(income) > 0 AS q1 FROM kc;
SELECT sum(income) > 0 AS q2 FROM kc WHERE (a, b) <> (5, 'x, "y"');
RESET SESSION AUTHORIZATION;
SELECT "table", kind, record, tapas.key_text("table", record_key) = record AS same
  FROM tapas.alert_records WHERE "table" IN ('ku'::regclass, 'kt'::regclass, 'kc'::regclass)
 ORDER BY alert_id;
SELECT md5('u7')::uuid::text AS expected_uuid;
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(income) > 0 AS q3 FROM ku WHERE id <> md5('u8')::uuid;
\echo :LAST_ERROR_SQLSTATE
SELECT sum(income) > 0 AS q3 FROM kt WHERE id <> 'patient-8';
SELECT sum(income) > 0 AS q3 FROM kc WHERE NOT (a = 8 AND b = 'x0');
SELECT sum(income) > 0 AS q4 FROM kc WHERE a <> 9;
RESET SESSION AUTHORIZATION;

-- 3. A row written after protect is registered and in the truth: its
-- difference is refused too.
INSERT INTO ku VALUES (md5('new')::uuid, 257, 0, 5000, false);
INSERT INTO kc VALUES (99, 'late', 257, 0, 5000, true);
SELECT relid::regclass, count(*) FROM tapas.key_registry
 WHERE relid IN ('ku'::regclass, 'kc'::regclass) GROUP BY 1 ORDER BY 1;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE pos) AS q5 FROM kc WHERE ward <> 3;
SELECT count(*) FILTER (WHERE pos) AS q6 FROM kc WHERE ward <> 3 AND a <> 99;
\echo :LAST_ERROR_SQLSTATE
RESET SESSION AUTHORIZATION;
SELECT sum(income) FROM ku WHERE rn = 257;

-- 4. Collisions are refused, never merged: a registered hash that names
-- another key (made by hand here: real 64-bit collisions are too rare to
-- find) refuses the write, and refuses protect.
INSERT INTO tapas.key_registry VALUES ('kt'::regclass, tapas._key_id('newcomer'::text), 'someone else');
INSERT INTO kt VALUES ('newcomer', 300, 0, 5000, false);
\echo :LAST_ERROR_SQLSTATE
UPDATE kt SET id = 'newcomer' WHERE rn = 1;
SELECT count(*) AS newcomers FROM kt WHERE id = 'newcomer';
CREATE TABLE kt2 (id text PRIMARY KEY, income int NOT NULL);
INSERT INTO kt2 VALUES ('a', 1), ('b', 2);
INSERT INTO tapas.key_registry VALUES ('kt2'::regclass, tapas._key_id('b'::text), 'not b');
SELECT tapas.protect('kt2', 'id', ARRAY['income'], 1);
SELECT count(*) AS protected FROM tapas.protection WHERE relid = 'kt2'::regclass;
DELETE FROM tapas.key_registry WHERE relid IN ('kt'::regclass, 'kt2'::regclass) AND key_text IN ('someone else', 'not b');
SELECT tapas.protect('kt2', 'id', ARRAY['income'], 1);
SELECT tgname FROM pg_trigger WHERE tgrelid = 'kt2'::regclass;
SELECT tapas.unprotect('kt2');
SELECT count(*) AS triggers FROM pg_trigger WHERE tgrelid = 'kt2'::regclass;
DROP TABLE kt2;

-- 5. The Hadamard attack (sql/42_audit_hadamard.sql) on each key type, in
-- deny mode: the 256th query, which makes the design invertible, is refused.
CREATE TABLE hd_refused (tbl text, q int);
GRANT ALL ON hd_refused TO regress_tapas_analyst;
CREATE FUNCTION hadamard_attack(tbl text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE a numeric;
BEGIN
	FOR q IN 1..256 LOOP
		BEGIN
			EXECUTE format('SELECT sum(income) FROM %I
							 WHERE rn <= 256 AND tapas.design_member(''hadamard'', 256, 1, %s, rn, 128)', tbl, q)
			   INTO a;
		EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
			INSERT INTO hd_refused VALUES (tbl, q);
		END;
	END LOOP;
END $$;
SELECT tapas.reset('ku') >= 0 AS reset, tapas.reset('kt') >= 0 AS reset, tapas.reset('kc') >= 0 AS reset;
DELETE FROM kc WHERE a = 99;
DELETE FROM ku WHERE rn = 257;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT hadamard_attack('ku');
SELECT hadamard_attack('kt');
SELECT hadamard_attack('kc');
RESET SESSION AUTHORIZATION;
SELECT tbl, array_agg(q ORDER BY q) AS refused FROM hd_refused GROUP BY tbl ORDER BY tbl;
SET tapas.mode = off;

-- 6. A partitioned table with a composite key that contains the partition
-- key: GROUP BY the partition key with partition-wise aggregation makes one
-- Agg (and one gate) per partition, capturing the cells of the plain plan.
SET client_min_messages = warning;
CREATE TABLE kp (a int NOT NULL, b text NOT NULL, income int NOT NULL, pos bool NOT NULL,
				 PRIMARY KEY (a, b)) PARTITION BY LIST (a);
CREATE TABLE kp_low PARTITION OF kp FOR VALUES IN (0, 1, 2, 3);
CREATE TABLE kp_high PARTITION OF kp FOR VALUES IN (4, 5, 6, 7);
INSERT INTO kp SELECT g % 8, 'r' || g, (g * 7919) % 10000, g % 41 = 0 FROM generate_series(1, 4000) g;
ANALYZE kp;
RESET client_min_messages;
SELECT tapas.protect('kp', ARRAY['b', 'a'], ARRAY['income', 'pos'], 10);
SELECT count(*) AS registered FROM tapas.key_registry WHERE relid = 'kp'::regclass;
GRANT SELECT ON kp, kp_low, kp_high TO regress_tapas_analyst;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE caps (run text, relid regclass, statistic text, answer float8,
				   covered bigint, keys bigint[]);
CREATE VIEW caps_compare AS
SELECT (SELECT count(*) FROM caps WHERE run = 'serial') AS cells,
	   (SELECT sum(covered) FROM caps WHERE run = 'serial') AS covered,
	   (SELECT count(*) FROM ((SELECT relid, statistic, answer, covered, keys FROM caps WHERE run = 'partitionwise'
							   EXCEPT ALL
							   SELECT relid, statistic, answer, covered, keys FROM caps WHERE run = 'serial')
							  UNION ALL
							  (SELECT relid, statistic, answer, covered, keys FROM caps WHERE run = 'serial'
							   EXCEPT ALL
							   SELECT relid, statistic, answer, covered, keys FROM caps WHERE run = 'partitionwise')) d
	   ) AS differing;
\set q 'SELECT a, count(*) FILTER (WHERE pos), sum(income) FROM kp GROUP BY a'
\i sql/fixtures/partitionwise_same.sql
-- a direct query on a partition, and a row inserted into a partition
-- directly is registered by the trigger cloned to it
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM kp_high WHERE a = 5;
RESET SESSION AUTHORIZATION;
SELECT relid, statistic, covered FROM tapas.last_capture();
INSERT INTO kp_high VALUES (6, 'direct', 1, false);
SELECT key_text FROM tapas.key_registry WHERE relid = 'kp'::regclass AND key_text LIKE '%direct%';
-- a table attached later: its rows, written before the trigger was
-- cloned to it, are registered by the ATTACH
CREATE TABLE kp_more (a int NOT NULL, b text NOT NULL, income int NOT NULL, pos bool NOT NULL,
					  PRIMARY KEY (a, b));
INSERT INTO kp_more SELECT 8 + g % 2, 'm' || g, g, false FROM generate_series(1, 50) g;
ALTER TABLE kp ATTACH PARTITION kp_more FOR VALUES IN (8, 9);
SELECT count(*) AS registered FROM tapas.key_registry WHERE relid = 'kp'::regclass;
SELECT count(*) AS registry_triggers FROM pg_trigger
 WHERE tgname = 'tapas_key_registry' AND tgrelid IN ('kp'::regclass, 'kp_low'::regclass,
													 'kp_high'::regclass, 'kp_more'::regclass);
RESET max_parallel_workers_per_gather;

SELECT tapas.reset('ku') >= 0, tapas.reset('kt') >= 0, tapas.reset('kc') >= 0, tapas.reset('kp') >= 0;
SELECT tapas.unprotect('ku'), tapas.unprotect('kt'), tapas.unprotect('kc'), tapas.unprotect('kp');
DELETE FROM tapas.key_registry WHERE relid IN ('ku'::regclass, 'kt'::regclass, 'kc'::regclass, 'kp'::regclass);
DROP VIEW caps_compare;
DROP FUNCTION hadamard_attack(text);
DROP TABLE caps, hd_refused, ku, kt, kc, kp;
