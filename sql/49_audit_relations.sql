-- Linear relations between classes: cells of classes whose truth vectors
-- are linearly related combine, so the joint system audits them together
-- (src/audit/relations.c, joint.c).  Three relations, each with a variant
-- spelling, in deny mode (refused at the query that isolates the patient
-- aged 91) and in log mode (answered, alerted); benign queries over the
-- same classes are answered without an alert.
--   complementary filters: (rare AND income > 3000) + (rare AND NOT income > 3000) = rare
--   sums:                  income FILTER (rare) + income FILTER (NOT rare) = income
--   multiples:             rare::int * 2 = 2 rare
SET client_min_messages = warning;
CREATE TABLE rl (id int PRIMARY KEY, age int NOT NULL, ward int NOT NULL,
				 rare boolean NOT NULL, income numeric NOT NULL);
INSERT INTO rl SELECT g, 20 + g % 70, g % 7, g IN (777, 1500, 3001, 3500),
				 1000 + (g * 37) % 5000 FROM generate_series(1, 4095) g;
UPDATE rl SET age = 91 WHERE id = 777;
CREATE TABLE rl_answers (part text, q int, a numeric, refused text);
GRANT ALL ON rl_answers TO PUBLIC;
RESET client_min_messages;
SELECT count(*) AS aged_91, min(income) AS income_91 FROM rl WHERE age = 91;
SELECT id, income > 3000 AS over_3000 FROM rl WHERE rare ORDER BY id;

-- runs one query; records its answer, or the SQLSTATE of its refusal
CREATE FUNCTION rl_ask(part text, q int, sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE a numeric;
BEGIN
	EXECUTE sql INTO a;
	INSERT INTO rl_answers VALUES (part, q, a, NULL);
	RETURN 'answered';
EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
	INSERT INTO rl_answers VALUES (part, q, NULL, SQLSTATE);
	RETURN SQLSTATE;
END $$;

-- a fresh copy of rl per part, so that each starts from an empty ledger
CREATE FUNCTION rl_fresh(tbl text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I AS SELECT * FROM rl', tbl);
	EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (id)', tbl);
	PERFORM tapas.protect(tbl::regclass, 'id', ARRAY['rare', 'income'], 100);
	EXECUTE format('GRANT SELECT ON %I TO regress_tapas_analyst', tbl);
END $$;
SET client_min_messages = warning;
SELECT rl_fresh(t) FROM unnest(ARRAY['r_cplm', 'r_cplm2', 'r_sum', 'r_sum2', 'r_mul', 'r_mul2',
									 'r_benign', 'l_cplm', 'l_sum', 'l_mul',
									 'v_three', 'v_incl', 'v_nested', 'v_avg']) t;
RESET client_min_messages;

-- the queries of each attack: the last one isolates the patient aged 91
CREATE FUNCTION rl_attack(mode text, part text, tbl text, VARIADIC qs text[]) RETURNS SETOF text
LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..array_length(qs, 1) LOOP
		RETURN NEXT rl_ask(part, i, format(qs[i], tbl));
	END LOOP;
END $$;
GRANT EXECUTE ON FUNCTION rl_attack(text, text, text, text[]) TO PUBLIC;

SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
-- 1. complementary filters, then their sum over everyone but the patient
SELECT rl_attack('deny', 'cplm', 'r_cplm',
	'SELECT count(*) FILTER (WHERE rare AND income > 3000) FROM %I',
	'SELECT count(*) FILTER (WHERE rare AND NOT income > 3000) FROM %I',
	'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE age <> 91');
-- variant: the sum first, the two halves over everyone but the patient,
-- in other spellings (CASE, a cast, <=)
SELECT rl_attack('deny', 'cplm2', 'r_cplm2',
	'SELECT sum(rare::int) FROM %I',
	'SELECT sum(CASE WHEN rare AND income <= 3000 THEN 1 ELSE 0 END) FROM %I WHERE age <> 91',
	'SELECT count(*) FILTER (WHERE rare AND income > 3000) FROM %I WHERE age <> 91');
-- 2. income of the rare, of the others, then income over everyone but the patient
SELECT rl_attack('deny', 'sum', 'r_sum',
	'SELECT sum(income) FILTER (WHERE rare) FROM %I',
	'SELECT sum(income) FILTER (WHERE NOT rare) FROM %I',
	'SELECT sum(income) FROM %I WHERE age <> 91');
-- variant: the total first, then the two parts (CASE spellings) without the patient;
-- the first part is answered (the total's nonzero record, under the prior of one,
-- need not be a rare one: its answer 0 names no one), the second is refused
SELECT rl_attack('deny', 'sum2', 'r_sum2',
	'SELECT sum(income) FROM %I',
	'SELECT sum(CASE WHEN rare THEN income ELSE 0 END) FROM %I WHERE age <> 91',
	'SELECT sum(CASE WHEN NOT rare THEN income END) FROM %I WHERE age <> 91');
-- 3. twice the count, then the count without the patient.  (The normal
-- form already writes a constant multiple as the class times its factor;
-- the joint system would relate two classes that differ by a factor.)
SELECT rl_attack('deny', 'mul', 'r_mul',
	'SELECT sum(CASE WHEN rare THEN 2 ELSE 0 END) FROM %I',
	'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE age <> 91');
-- variant: three times, with a filter true for every rare patient, then a cast
SELECT rl_attack('deny', 'mul2', 'r_mul2',
	'SELECT sum(CASE WHEN rare AND income > 0 THEN 3 END) FROM %I',
	'SELECT sum(rare::int) FROM %I WHERE age <> 91');
-- benign: the same classes over groups that isolate nobody are answered
SELECT rl_attack('deny', 'benign', 'r_benign',
	'SELECT count(*) FILTER (WHERE rare AND income > 3000) FROM %I',
	'SELECT count(*) FILTER (WHERE rare AND NOT income > 3000) FROM %I',
	'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE ward = 3',
	'SELECT sum(income) FILTER (WHERE rare) FROM %I WHERE ward < 4',
	'SELECT sum(income) FILTER (WHERE NOT rare) FROM %I WHERE ward < 4',
	'SELECT sum(income) FROM %I WHERE ward >= 4',
	'SELECT sum(CASE WHEN rare THEN 2 ELSE 0 END) FROM %I WHERE age < 50',
	'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE age >= 50');
-- more relations: a split in three; inclusion-exclusion (A + B = C + D);
-- sums of incomes split twice; averages (a sum and a count each)
SELECT rl_attack('deny', 'three', 'v_three',
	'SELECT count(*) FILTER (WHERE rare AND income < 2000) FROM %I',
	'SELECT count(*) FILTER (WHERE rare AND income >= 2000 AND income <= 3000) FROM %I',
	'SELECT count(*) FILTER (WHERE rare AND income > 3000) FROM %I',
	'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE age <> 91');
SELECT rl_attack('deny', 'incl', 'v_incl',
	'SELECT count(*) FILTER (WHERE rare AND income > 2000) FROM %I',
	'SELECT count(*) FILTER (WHERE rare AND income <= 3000) FROM %I',
	'SELECT count(*) FILTER (WHERE rare AND income > 2000 AND income <= 3000) FROM %I',
	'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE age <> 91');
SELECT rl_attack('deny', 'nested', 'v_nested',
	'SELECT sum(income) FILTER (WHERE rare AND income > 3000) FROM %I',
	'SELECT sum(income) FILTER (WHERE rare AND NOT income > 3000) FROM %I',
	'SELECT sum(income) FILTER (WHERE NOT rare) FROM %I',
	'SELECT sum(income) FROM %I WHERE id <> 777');
SELECT rl_attack('deny', 'avg', 'v_avg',
	'SELECT avg(income) FILTER (WHERE rare) FROM %I',
	'SELECT avg(income) FILTER (WHERE NOT rare) FROM %I',
	'SELECT count(*) FROM %I',
	'SELECT avg(income) FROM %I WHERE age <> 91');

-- the spelling with an arithmetic operator is refused by the allow-list
-- before any audit (integer multiplication can raise an error per row)
SELECT sum(rare::int * 2) FROM r_mul;
RESET SESSION AUTHORIZATION;

-- log mode: the same attacks are answered and alerted
SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT rl_attack('log', 'l_cplm', 'l_cplm',
	'SELECT count(*) FILTER (WHERE rare AND income > 3000) FROM %I',
	'SELECT count(*) FILTER (WHERE rare AND NOT income > 3000) FROM %I',
	'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE age <> 91');
SELECT rl_attack('log', 'l_sum', 'l_sum',
	'SELECT sum(income) FILTER (WHERE rare) FROM %I',
	'SELECT sum(income) FILTER (WHERE NOT rare) FROM %I',
	'SELECT sum(income) FROM %I WHERE age <> 91');
SELECT rl_attack('log', 'l_mul', 'l_mul',
	'SELECT sum(CASE WHEN rare THEN 2 ELSE 0 END) FROM %I',
	'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE age <> 91');
RESET SESSION AUTHORIZATION;
RESET tapas.mode;

-- the refusals, with their SQLSTATE
SELECT part, q, refused FROM rl_answers WHERE refused IS NOT NULL ORDER BY part, q;
-- the alerts: each names the patient aged 91 (id 777), by the joint test or
-- by the candidates test
SELECT "table", record_key, kind, action, method FROM tapas.alerts
 WHERE "table"::text ~ '^[rlv]_' ORDER BY "table"::text, alert_id;
-- what the log-mode attacker derives: the patient's values
SELECT (SELECT a FROM rl_answers WHERE part = 'l_cplm' AND q = 1) +
	   (SELECT a FROM rl_answers WHERE part = 'l_cplm' AND q = 2) -
	   (SELECT a FROM rl_answers WHERE part = 'l_cplm' AND q = 3) AS rare_of_777,
	   (SELECT a FROM rl_answers WHERE part = 'l_sum' AND q = 1) +
	   (SELECT a FROM rl_answers WHERE part = 'l_sum' AND q = 2) -
	   (SELECT a FROM rl_answers WHERE part = 'l_sum' AND q = 3) AS income_of_777,
	   (SELECT a FROM rl_answers WHERE part = 'l_mul' AND q = 1) / 2 -
	   (SELECT a FROM rl_answers WHERE part = 'l_mul' AND q = 2) AS rare_of_777_again;
