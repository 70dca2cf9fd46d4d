-- Partitioned tables (declarative): protecting the parent protects every
-- partition, present and future.  A direct query on a partition is
-- captured and audited as a query on the parent (same ledger table, same
-- record keys); partition pruning and partition-wise aggregation keep
-- working and capture the same cells; the auditor's truth scan reads every
-- partition; DETACH PARTITION is refused (src/policy/partitions.c).
SET client_min_messages = warning;
SET tapas.mode = off;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE pt (id int NOT NULL PRIMARY KEY, g20 int NOT NULL, rare bool NOT NULL,
				 income int NOT NULL) PARTITION BY RANGE (id);
CREATE TABLE pt_1 PARTITION OF pt FOR VALUES FROM (1) TO (20001);
CREATE TABLE pt_2 PARTITION OF pt FOR VALUES FROM (20001) TO (40001);
-- attached with its columns in another order: numbered unlike the parent
CREATE TABLE pt_3 (income int NOT NULL, rare bool NOT NULL, g20 int NOT NULL, id int NOT NULL);
ALTER TABLE pt ATTACH PARTITION pt_3 FOR VALUES FROM (40001) TO (60001);
INSERT INTO pt SELECT i, i % 20, i % 97 = 0, (i * 7919) % 100000 FROM generate_series(1, 60000) i;
-- list partitions (by the key), with a default partition
CREATE TABLE lt (id int NOT NULL PRIMARY KEY, ward int NOT NULL, hiv bool NOT NULL)
  PARTITION BY LIST (id);
CREATE TABLE lt_few PARTITION OF lt FOR VALUES IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
CREATE TABLE lt_rest PARTITION OF lt DEFAULT;
INSERT INTO lt SELECT g, g % 10, g % 97 = 0 FROM generate_series(1, 1000) g;
ANALYZE pt, lt;
RESET client_min_messages;

-- what cannot be protected: a partition on its own, a partitioned table
-- whose key is not its partition key (no unique index can cover it)
SELECT tapas.protect('pt_1', 'id', ARRAY['rare', 'income'], 5);
CREATE TABLE bad (id int NOT NULL, ward int NOT NULL, hiv bool NOT NULL,
				  PRIMARY KEY (id, ward)) PARTITION BY LIST (ward);
SELECT tapas.protect('bad', 'id', ARRAY['hiv'], 5);
DROP TABLE bad;
SELECT tapas.protect('pt', 'id', ARRAY['rare', 'income'], 5);
SELECT tapas.protect('lt', 'id', ARRAY['hiv'], 100);
GRANT SELECT ON pt, pt_1, pt_2, pt_3, lt, lt_few, lt_rest TO regress_tapas_analyst;

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

-- 1. Reads through the parent: every partition is captured, and pruning
-- still prunes (the cell covers exactly the rows of the kept partitions).
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*), sum(income) FROM pt WHERE g20 < 10;
RESET SESSION AUTHORIZATION;
SELECT relid, statistic, covered FROM tapas.last_capture();
SET SESSION AUTHORIZATION regress_tapas_analyst;
EXPLAIN (COSTS OFF) SELECT count(*) FILTER (WHERE rare) FROM pt WHERE id > 30000;
SELECT count(*) FILTER (WHERE rare) FROM pt WHERE id > 30000;
RESET SESSION AUTHORIZATION;
SELECT relid, statistic, covered FROM tapas.last_capture();

-- 2. Partition-wise aggregation (partial: one Partial Agg per partition
-- under the Finalize Agg that carries the gate) captures the cells of
-- the plain plan.
\set q 'SELECT g20, count(*) FILTER (WHERE rare), sum(income) FROM pt GROUP BY g20'
\i sql/fixtures/partitionwise_same.sql
\set q 'SELECT g20 < 5 AS low, avg(income) FROM pt WHERE id <= 45000 GROUP BY 1 HAVING count(*) > 10'
\i sql/fixtures/partitionwise_same.sql

-- 3. A direct query on a partition is a query on the parent restricted to
-- that partition's keys: logged for pt, covering the partition's rows.
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*), sum(income) > 0 AS s FROM pt_2 WHERE g20 = 3;
RESET SESSION AUTHORIZATION;
SELECT relid, statistic, covered, keys[1] AS first_key FROM tapas.last_capture();
-- ... and refused when the partition numbers its columns otherwise
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pt_3;
-- reading rows of a partition is refused like reading rows of the parent
SELECT income FROM pt_1 WHERE id = 7;
SELECT * FROM lt_few;
COPY pt_1 TO STDOUT;
RESET SESSION AUTHORIZATION;

-- 4. A partition created after protect is protected at once, and the
-- auditor's truth includes its rows.
CREATE TABLE pt_4 PARTITION OF pt FOR VALUES FROM (60001) TO (80001);
INSERT INTO pt SELECT i, i % 20, i % 97 = 0, (i * 7919) % 100000 FROM generate_series(60001, 62000) i;
GRANT SELECT ON pt_4 TO regress_tapas_analyst;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT income FROM pt_4 LIMIT 1;
SELECT count(*) FROM pt_4 WHERE g20 = 0;
RESET SESSION AUTHORIZATION;
SELECT relid, statistic, covered FROM tapas.last_capture();

-- 5. The difference attack in deny mode, through the parent, through a
-- partition, and mixing both: refused at the query that isolates.
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(income) > 0 AS q1 FROM pt WHERE id <= 10000;
SELECT sum(income) > 0 AS q2 FROM pt WHERE id <= 10001;
\echo :LAST_ERROR_SQLSTATE
-- the new partition: its rows are in the truth
SELECT sum(income) > 0 AS q3 FROM pt_4;
SELECT sum(income) > 0 AS q4 FROM pt_4 WHERE id <> 61500;
\echo :LAST_ERROR_SQLSTATE
-- a partition against the parent
SELECT sum(income) > 0 AS q5 FROM pt_2;
SELECT sum(income) > 0 AS q6 FROM pt WHERE id > 20001 AND id <= 40000;
\echo :LAST_ERROR_SQLSTATE
-- list partitions: the default partition (ids 11 ..) against the table
-- without id 11
SELECT count(*) FILTER (WHERE hiv) AS q7 FROM lt_rest;
SELECT count(*) FILTER (WHERE hiv) AS q8 FROM lt WHERE id >= 12;
SELECT count(*) FILTER (WHERE hiv) AS q9 FROM lt WHERE id >= 21;
RESET SESSION AUTHORIZATION;
-- log mode: the alert names the record by its key, under the parent
SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE hiv) AS q10 FROM lt WHERE id <> 1;
SELECT count(*) FILTER (WHERE hiv) AS q11 FROM lt;
RESET SESSION AUTHORIZATION;
SELECT "table", record_key, kind, action FROM tapas.alert_records WHERE "table" = 'lt'::regclass
 ORDER BY alert_id;
SET tapas.mode = off;
SELECT tbl, count(*) AS logged_cells FROM tapas.query_log
 WHERE tbl IN ('pt'::regclass, 'lt'::regclass) GROUP BY tbl ORDER BY tbl;
SELECT count(*) AS partition_cells FROM tapas.query_log
 WHERE tbl::text LIKE 'pt\_%' OR tbl::text LIKE 'lt\_%';

-- 6. The BCH attack (sql/43_audit_bch.sql) in deny mode on a table
-- partitioned in three and on a plain copy: refused at the same queries.
SET client_min_messages = warning;
CREATE TABLE bchp (id int PRIMARY KEY, pos boolean NOT NULL) PARTITION BY RANGE (id);
CREATE TABLE bchp_1 PARTITION OF bchp FOR VALUES FROM (1) TO (1500);
CREATE TABLE bchp_2 PARTITION OF bchp FOR VALUES FROM (1500) TO (3000);
CREATE TABLE bchp_3 PARTITION OF bchp FOR VALUES FROM (3000) TO (5000);
INSERT INTO bchp SELECT g, g IN (17, 2500) FROM generate_series(1, 4095) g;
CREATE TABLE bchc (id int PRIMARY KEY, pos boolean NOT NULL);
INSERT INTO bchc SELECT * FROM bchp;
SELECT tapas.protect('bchp', 'id', ARRAY['pos'], 2048);
SELECT tapas.protect('bchc', 'id', ARRAY['pos'], 2048);
GRANT SELECT ON bchp, bchc TO regress_tapas_analyst;
CREATE TABLE bch_answers (tbl text, q int, a numeric, refused boolean DEFAULT false);
GRANT ALL ON bch_answers TO PUBLIC;
RESET client_min_messages;
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
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT bch_attack('bchp', 2);
SELECT bch_attack('bchc', 2);
RESET SESSION AUTHORIZATION;
SET tapas.mode = off;
SELECT tbl, array_agg(q ORDER BY q) AS refused FROM bch_answers WHERE refused GROUP BY tbl ORDER BY tbl;
SELECT count(*) AS same_answers FROM bch_answers p JOIN bch_answers c USING (q, a, refused)
 WHERE p.tbl = 'bchp' AND c.tbl = 'bchc';
SELECT tapas.reset('bchp') >= 0 AS reset, tapas.reset('bchc') >= 0 AS reset;
SELECT tapas.unprotect('bchp'), tapas.unprotect('bchc');
DROP FUNCTION bch_attack(text, int);
DROP TABLE bch_answers, bchp, bchc;

-- 7. DETACH is refused (the partition's rows are in pt's ledger), and so
-- is attaching a protected table as a partition of another table.
ALTER TABLE pt DETACH PARTITION pt_4;
CREATE TABLE other (id int NOT NULL PRIMARY KEY, g20 int NOT NULL, rare bool NOT NULL,
					income int NOT NULL) PARTITION BY RANGE (id);
ALTER TABLE other ATTACH PARTITION pt FOR VALUES FROM (1) TO (100000);
DROP TABLE other;
-- dropping a partition is allowed (its rows are gone)
DROP TABLE pt_4;

SELECT tapas.reset('pt') >= 0 AS reset, tapas.reset('lt') >= 0 AS reset;
SELECT tapas.unprotect('pt');
SELECT tapas.unprotect('lt');
-- unprotected, a partition can be detached
ALTER TABLE pt DETACH PARTITION pt_3;
DROP VIEW caps_compare;
DROP TABLE caps, pt, pt_3, lt;
