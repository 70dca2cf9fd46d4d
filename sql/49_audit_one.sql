-- count(*) is public: the all-ones class ONE (src/recon/linrel_plan.c).
-- Over any covered set Q the attacker knows |Q| from the quasi-identifiers,
-- so the counts of every value of a sensitive column add up to a public
-- number, and a difference through ONE isolates a record although no two
-- logged classes are related among themselves.  Attacks on the patient
-- aged 91 (id 777), refused in deny mode at the query that isolates and
-- alerted in log mode; then the everyday cross-tabulations of two
-- sensitive columns, and counts of a column without NULLs (a multiple of
-- ONE: public), answered without an alert.
SET client_min_messages = warning;
CREATE TABLE one_base (id int PRIMARY KEY, age int NOT NULL, ward int NOT NULL,
					   grade text NOT NULL, blood text NOT NULL, score int NOT NULL);
-- grade: 3 values, blood: 4 values, score 1..3; none is NULL
INSERT INTO one_base SELECT g, 20 + g % 70, g % 7, chr(97 + (g * 7) % 3),
					   chr(119 + (g * 5) % 4), 1 + (g * 11) % 3
				  FROM generate_series(1, 2100) g;
UPDATE one_base SET age = 91, grade = 'c' WHERE id = 777;
CREATE TABLE one_answers (part text, q int, a numeric, refused text);
GRANT ALL ON one_answers TO PUBLIC;
RESET client_min_messages;
SELECT id, age, grade, blood, score FROM one_base WHERE age = 91;

CREATE FUNCTION one_ask(part text, q int, sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE a numeric;
BEGIN
	EXECUTE sql INTO a;
	INSERT INTO one_answers VALUES (part, q, a, NULL);
	RETURN 'answered';
EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
	INSERT INTO one_answers VALUES (part, q, NULL, SQLSTATE);
	RETURN SQLSTATE;
END $$;
-- a query with many output rows: answered, or the SQLSTATE of its refusal
CREATE FUNCTION one_run(part text, q int, sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE sql;
	INSERT INTO one_answers VALUES (part, q, NULL, NULL);
	RETURN 'answered';
EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
	INSERT INTO one_answers VALUES (part, q, NULL, SQLSTATE);
	RETURN SQLSTATE;
END $$;
CREATE FUNCTION one_fresh(tbl text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I AS SELECT * FROM one_base', tbl);
	EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (id)', tbl);
	PERFORM tapas.protect(tbl::regclass, 'id', ARRAY['grade', 'blood', 'score'], 10);
	EXECUTE format('GRANT SELECT ON %I TO regress_tapas_analyst', tbl);
END $$;
CREATE FUNCTION one_attack(part text, tbl text, VARIADIC qs text[]) RETURNS SETOF text
LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..array_length(qs, 1) LOOP
		RETURN NEXT CASE WHEN qs[i] ~ 'GROUP BY' THEN one_run(part, i, format(qs[i], tbl))
						 ELSE one_ask(part, i, format(qs[i], tbl)) END;
	END LOOP;
END $$;
GRANT EXECUTE ON FUNCTION one_attack(text, text, text[]) TO PUBLIC;
SET client_min_messages = warning;
SELECT one_fresh(t) FROM unnest(ARRAY['one_three', 'one_four', 'one_split', 'one_dense', 'one_benign',
									  'one_lthree', 'one_lfour', 'one_affine', 'one_affine2']) t;
RESET client_min_messages;

SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
-- 1. two of three values over everyone, the third over everyone but the
-- patient: |everyone| - a - b - c' is the patient's 1[grade = c].  No two
-- of these classes are related; only ONE (a + b + c = count(*)) joins them
SELECT one_attack('three', 'one_three',
	'SELECT count(*) FILTER (WHERE grade = ''a'') FROM %I',
	'SELECT sum(CASE WHEN grade = ''b'' THEN 1 ELSE 0 END) FROM %I',
	'SELECT count(*) FILTER (WHERE grade = ''c'') FROM %I WHERE age <> 91');
-- 2. four values: one over everyone, two merged and the third over
-- everyone but the patient: z' = |everyone but 777| - (w + x)' - y'
SELECT one_attack('four', 'one_four',
	'SELECT sum(CASE WHEN blood = ''z'' THEN 1 END) FROM %I',
	'SELECT count(*) FILTER (WHERE blood IN (''w'', ''x'')) FROM %I WHERE age <> 91',
	'SELECT count(*) FILTER (WHERE blood = ''y'') FROM %I WHERE age <> 91');
-- 3. a sum and counts (split coordinates): the two smaller scores over
-- everyone, a sum, then the largest score over everyone but the patient
SELECT one_attack('split', 'one_split',
	'SELECT count(*) FILTER (WHERE score = 1) FROM %I',
	'SELECT count(*) FILTER (WHERE score = 2) FROM %I',
	'SELECT sum(score) FROM %I WHERE ward < 3',
	'SELECT count(*) FILTER (WHERE score = 3) FROM %I WHERE age <> 91');
-- 4. a count of a column without NULLs is |Q|: public, never refused, and
-- no decoder reconstructs the patient's 1
SELECT one_attack('dense', 'one_dense',
	'SELECT count(grade) FROM %I',
	'SELECT count(grade) FROM %I WHERE age <> 91',
	'SELECT count(*) FILTER (WHERE grade IS NOT NULL) FROM %I WHERE id <> 777',
	'SELECT ward, count(blood), avg(score) FROM %I GROUP BY ward',
	'SELECT age, count(score) FROM %I WHERE age <> 91 GROUP BY age');
-- 5. the everyday cross-tabulations of two sensitive columns
SELECT one_attack('benign', 'one_benign',
	'SELECT grade, count(*) FROM %I GROUP BY grade',
	'SELECT blood, count(*) FROM %I GROUP BY blood',
	'SELECT ward, grade, count(*) FROM %I GROUP BY ward, grade',
	'SELECT ward, blood, count(*) FROM %I GROUP BY ward, blood',
	'SELECT ward, count(*) FILTER (WHERE grade = ''a'') FROM %I GROUP BY ward',
	'SELECT ward, avg(score), count(*) FROM %I GROUP BY ward',
	'SELECT count(*) FILTER (WHERE blood = ''w'') FROM %I WHERE ward < 4',
	'SELECT count(*) FILTER (WHERE blood = ''w'') FROM %I WHERE ward >= 4',
	'SELECT score, count(*) FROM %I GROUP BY score');
-- 6. a class plus a constant is the class: sum(score + 10) is sum(score)
-- plus 10 |Q|, and CASE WHEN grade = 'c' THEN 2 ELSE 1 END is the count of
-- grade c plus |Q| (one unknown, the answers mapped back): the
-- differences are refused like plain ones, and averages per ward of the
-- shifted value are answered
SELECT one_attack('affine', 'one_affine',
	'SELECT ward, avg(score::numeric + 10) FROM %I GROUP BY ward',
	'SELECT ward, sum(score) FROM %I GROUP BY ward',
	'SELECT sum(score::numeric + 10) FROM %I',
	'SELECT sum(score) FROM %I WHERE age <> 91');
SELECT one_attack('affine2', 'one_affine2',
	'SELECT sum(CASE WHEN grade = ''c'' THEN 2 ELSE 1 END) FROM %I',
	'SELECT count(*) FILTER (WHERE grade = ''c'') FROM %I WHERE age <> 91');
RESET SESSION AUTHORIZATION;

-- log mode: the first two attacks are answered and alerted
SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT one_attack('l_three', 'one_lthree',
	'SELECT count(*) FILTER (WHERE grade = ''a'') FROM %I',
	'SELECT sum(CASE WHEN grade = ''b'' THEN 1 ELSE 0 END) FROM %I',
	'SELECT count(*) FILTER (WHERE grade = ''c'') FROM %I WHERE age <> 91');
SELECT one_attack('l_four', 'one_lfour',
	'SELECT count(*) FILTER (WHERE blood = ''z'') FROM %I',
	'SELECT count(*) FILTER (WHERE blood IN (''w'', ''x'')) FROM %I WHERE age <> 91',
	'SELECT count(*) FILTER (WHERE blood = ''y'') FROM %I WHERE age <> 91');
RESET SESSION AUTHORIZATION;
RESET tapas.mode;

-- the refusals, with their SQLSTATE
SELECT part, q, refused FROM one_answers WHERE refused IS NOT NULL ORDER BY part, q;
-- the alerts: each names the patient aged 91 (id 777), by the joint test
SELECT "table", record_key, kind, action, method FROM tapas.alerts
 WHERE "table"::text ~ '^one_' ORDER BY "table"::text, alert_id;
-- what the log-mode attacker derives: 2100 - a - b - c' = 1, the patient's grade is c
SELECT 2100 - sum(a) AS c_of_777
  FROM one_answers WHERE part = 'l_three';
