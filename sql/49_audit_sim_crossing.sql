-- A GROUP BY crossing with more than 256 positives (src/audit/simulated.c,
-- issue 11 item 6): GROUP BY zip (100 zips of 100 records, which the other
-- columns do not nest), then 40 GROUP BYs over quasi-identifiers, the
-- workload of test/bench/benign-workload.sh --cross at n = 10,000 with 30%
-- positives.  The crossings leave most records in singleton atoms and the
-- logged answers imply more than 256 positives among them, with enough rows
-- for the information bound: the simulated decoder check must run.
-- 1. tapas.audit_max_positives = 256 (the cap before): statements fail
--    closed (TP004, "more positives than the reconstruction decoders cover").
-- 2. the default (no cap but the budget): the same statements on a copy of
--    the table are decided, and those that failed closed answered: the
--    greedy decoder, with the products from the statements' families of
--    disjoint rows, does not recover half of a random vector of that many
--    positives.  (In both runs one early statement is refused, TP001, by
--    the same decision at 6 positives among 1,091 singletons, and one has
--    a group below k, TP002.)
SET tapas.audit_scope = role;
SET client_min_messages = warning;
SELECT setseed(0.12);
CREATE TABLE cross_u (id int PRIMARY KEY, age int NOT NULL, sex int NOT NULL, region int NOT NULL,
					  edu int NOT NULL, sick bool NOT NULL, zip int NOT NULL);
INSERT INTO cross_u SELECT i, 18 + floor(random() * 72)::int, floor(random() * 2)::int,
	   floor(random() * 8)::int, floor(random() * 4)::int, random() < 0.3, (i * 7919) % 100
  FROM generate_series(1, 10000) i;
CREATE TABLE cross_capped AS SELECT * FROM cross_u;
ALTER TABLE cross_capped ADD PRIMARY KEY (id);
CREATE TABLE cross_free AS SELECT * FROM cross_u;
ALTER TABLE cross_free ADD PRIMARY KEY (id);
SELECT tapas.protect('cross_capped', 'id', ARRAY['sick'], 10) IS NULL AS protected;
SELECT tapas.protect('cross_free', 'id', ARRAY['sick'], 10) IS NULL AS protected;
GRANT SELECT ON cross_capped, cross_free TO regress_tapas_analyst;
CREATE TABLE cross_stmts (q int PRIMARY KEY, sql text NOT NULL);
INSERT INTO cross_stmts VALUES
	(1, 'SELECT zip, count(*) FILTER (WHERE sick) FROM %I GROUP BY zip'),
	(2, 'SELECT region, edu, count(*) FILTER (WHERE sick) FROM %I WHERE region BETWEEN 5 AND 5 GROUP BY region, edu'),
	(3, 'SELECT edu, age / 10, count(*) FILTER (WHERE sick) FROM %I WHERE age BETWEEN 65 AND 80 GROUP BY edu, age / 10'),
	(4, 'SELECT sex, edu, count(*) FILTER (WHERE sick) FROM %I WHERE edu BETWEEN 3 AND 3 GROUP BY sex, edu'),
	(5, 'SELECT age / 10, count(*) FILTER (WHERE sick) FROM %I WHERE edu BETWEEN 1 AND 2 GROUP BY age / 10'),
	(6, 'SELECT region, sex, count(*) FILTER (WHERE sick) FROM %I WHERE age BETWEEN 61 AND 89 GROUP BY region, sex'),
	(7, 'SELECT edu, count(*) FILTER (WHERE sick) FROM %I WHERE age BETWEEN 43 AND 47 GROUP BY edu'),
	(8, 'SELECT region, sex, count(*) FILTER (WHERE sick) FROM %I WHERE edu BETWEEN 3 AND 3 GROUP BY region, sex'),
	(9, 'SELECT age / 10, count(*) FILTER (WHERE sick) FROM %I WHERE age BETWEEN 83 AND 84 GROUP BY age / 10'),
	(10, 'SELECT sex, count(*) FILTER (WHERE sick) FROM %I WHERE region BETWEEN 7 AND 7 GROUP BY sex'),
	(11, 'SELECT edu, age / 10, count(*) FILTER (WHERE sick) FROM %I WHERE age BETWEEN 87 AND 88 GROUP BY edu, age / 10'),
	(12, 'SELECT region, count(*) FILTER (WHERE sick) FROM %I WHERE edu BETWEEN 0 AND 1 GROUP BY region'),
	(13, 'SELECT sex, count(*) FILTER (WHERE sick) FROM %I WHERE region BETWEEN 6 AND 7 GROUP BY sex'),
	(14, 'SELECT region, edu, count(*) FILTER (WHERE sick) FROM %I WHERE edu BETWEEN 3 AND 3 GROUP BY region, edu'),
	(15, 'SELECT sex, count(*) FILTER (WHERE sick) FROM %I WHERE age BETWEEN 51 AND 73 GROUP BY sex'),
	(16, 'SELECT region, sex, count(*) FILTER (WHERE sick) FROM %I WHERE edu BETWEEN 3 AND 3 GROUP BY region, sex'),
	(17, 'SELECT sex, count(*) FILTER (WHERE sick) FROM %I WHERE region BETWEEN 3 AND 5 GROUP BY sex'),
	(18, 'SELECT region, sex, count(*) FILTER (WHERE sick) FROM %I WHERE region BETWEEN 2 AND 2 GROUP BY region, sex'),
	(19, 'SELECT edu, age / 10, count(*) FILTER (WHERE sick) FROM %I WHERE region BETWEEN 0 AND 0 GROUP BY edu, age / 10'),
	(20, 'SELECT edu, count(*) FILTER (WHERE sick) FROM %I WHERE edu BETWEEN 3 AND 3 GROUP BY edu'),
	(21, 'SELECT edu, age / 10, count(*) FILTER (WHERE sick) FROM %I WHERE age BETWEEN 31 AND 79 GROUP BY edu, age / 10'),
	(22, 'SELECT edu, count(*) FILTER (WHERE sick) FROM %I WHERE age BETWEEN 27 AND 71 GROUP BY edu'),
	(23, 'SELECT sex, edu, count(*) FILTER (WHERE sick) FROM %I WHERE age BETWEEN 73 AND 81 GROUP BY sex, edu'),
	(24, 'SELECT region, edu, count(*) FILTER (WHERE sick) FROM %I WHERE region BETWEEN 0 AND 7 GROUP BY region, edu'),
	(25, 'SELECT region, sex, count(*) FILTER (WHERE sick) FROM %I WHERE age BETWEEN 61 AND 70 GROUP BY region, sex'),
	(26, 'SELECT region, edu, count(*) FILTER (WHERE sick) FROM %I WHERE region BETWEEN 7 AND 7 GROUP BY region, edu'),
	(27, 'SELECT region, count(*) FILTER (WHERE sick) FROM %I WHERE region BETWEEN 5 AND 5 GROUP BY region'),
	(28, 'SELECT edu, count(*) FILTER (WHERE sick) FROM %I WHERE edu BETWEEN 1 AND 3 GROUP BY edu'),
	(29, 'SELECT age / 10, count(*) FILTER (WHERE sick) FROM %I WHERE region BETWEEN 5 AND 5 GROUP BY age / 10'),
	(30, 'SELECT edu, count(*) FILTER (WHERE sick) FROM %I WHERE age BETWEEN 82 AND 82 GROUP BY edu'),
	(31, 'SELECT edu, count(*) FILTER (WHERE sick) FROM %I WHERE edu BETWEEN 0 AND 2 GROUP BY edu'),
	(32, 'SELECT region, count(*) FILTER (WHERE sick) FROM %I WHERE age BETWEEN 59 AND 87 GROUP BY region'),
	(33, 'SELECT sex, edu, count(*) FILTER (WHERE sick) FROM %I WHERE edu BETWEEN 0 AND 1 GROUP BY sex, edu'),
	(34, 'SELECT region, edu, count(*) FILTER (WHERE sick) FROM %I WHERE region BETWEEN 5 AND 6 GROUP BY region, edu'),
	(35, 'SELECT region, edu, count(*) FILTER (WHERE sick) FROM %I WHERE edu BETWEEN 1 AND 2 GROUP BY region, edu'),
	(36, 'SELECT sex, edu, count(*) FILTER (WHERE sick) FROM %I WHERE edu BETWEEN 0 AND 2 GROUP BY sex, edu'),
	(37, 'SELECT region, sex, count(*) FILTER (WHERE sick) FROM %I WHERE edu BETWEEN 3 AND 3 GROUP BY region, sex'),
	(38, 'SELECT sex, edu, count(*) FILTER (WHERE sick) FROM %I WHERE edu BETWEEN 2 AND 2 GROUP BY sex, edu'),
	(39, 'SELECT age / 10, count(*) FILTER (WHERE sick) FROM %I WHERE edu BETWEEN 0 AND 1 GROUP BY age / 10'),
	(40, 'SELECT sex, edu, count(*) FILTER (WHERE sick) FROM %I WHERE region BETWEEN 2 AND 3 GROUP BY sex, edu'),
	(41, 'SELECT edu, count(*) FILTER (WHERE sick) FROM %I WHERE region BETWEEN 7 AND 7 GROUP BY edu');
CREATE TABLE cross_outcomes (tbl text, q int, outcome text);
GRANT ALL ON cross_outcomes TO PUBLIC;
GRANT SELECT ON cross_stmts TO PUBLIC;
CREATE FUNCTION cross_run(tbl text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE st record;
BEGIN
	FOR st IN SELECT * FROM cross_stmts ORDER BY q LOOP
		BEGIN
			EXECUTE format(st.sql, tbl);
			INSERT INTO cross_outcomes VALUES (tbl, st.q, 'answered');
		EXCEPTION WHEN OTHERS THEN
			INSERT INTO cross_outcomes VALUES (tbl, st.q, SQLSTATE);
		END;
	END LOOP;
END $$;
RESET client_min_messages;
-- time enough for every check: the decision must not depend on the load
SET tapas.audit_budget_ms = 600000;
SET tapas.mode = deny;

-- 1. the cap of 256 positives: fails closed
SET tapas.audit_max_positives = 256;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT cross_run('cross_capped');
RESET SESSION AUTHORIZATION;
SELECT outcome, count(*) > 0 AS some FROM cross_outcomes WHERE tbl = 'cross_capped' GROUP BY 1 ORDER BY 1;
SELECT DISTINCT detail FROM tapas.alerts WHERE "table" = 'cross_capped'::regclass;

-- 2. no cap: every statement answered, no alert
RESET tapas.audit_max_positives;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT cross_run('cross_free');
RESET SESSION AUTHORIZATION;
SELECT outcome, count(*) FROM cross_outcomes WHERE tbl = 'cross_free' GROUP BY 1 ORDER BY 1;
SELECT count(*) AS alerts FROM tapas.alerts WHERE "table" = 'cross_free'::regclass;
-- the statements that failed closed under the cap are among those answered
SELECT count(*) AS capped_now_answered
  FROM cross_outcomes c JOIN cross_outcomes f USING (q)
 WHERE c.tbl = 'cross_capped' AND c.outcome = 'TP004' AND f.tbl = 'cross_free' AND f.outcome = 'answered';
RESET tapas.mode;
RESET tapas.audit_budget_ms;
\i sql/fixtures/release_ledger.sql
