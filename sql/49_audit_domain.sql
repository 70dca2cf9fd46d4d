-- Classes as functions (audit/truth_domain.c) and implications between
-- 0/1 classes (audit/implied.c), issue 11 items 1 and 5.  Two tables that
-- agree on every answered query but differ in a secret get the same
-- decision at the next query.  In dm1 the 91-year-old (id 77) is rare,
-- has hiv and an income of 2001; in dm2 he is rare, has flu and an income
-- of 4001, and id 78 has hiv.  Each case starts on an empty ledger.
SET client_min_messages = warning;
CREATE FUNCTION dm_mk(tbl text, hiv int, inc int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, age int NOT NULL, rare bool NOT NULL,
								 diagnosis text NOT NULL, income int NOT NULL)', tbl);
	EXECUTE format('INSERT INTO %I SELECT g, CASE WHEN g = 77 THEN 91 ELSE 20 + g %% 60 END, g = 77,
						   CASE WHEN g = %s THEN ''hiv'' ELSE (ARRAY[''flu'', ''cold''])[1 + g %% 2] END,
						   CASE WHEN g = 77 THEN %s ELSE 1000 + (g * 13) %% 5000 END
					  FROM generate_series(1, 400) g', tbl, hiv, inc);
	PERFORM tapas.protect(tbl::regclass, 'id', ARRAY['rare', 'diagnosis', 'income'], 10);
	EXECUTE format('GRANT SELECT ON %I TO regress_tapas_analyst', tbl);
END $$;
SELECT dm_mk('dm1', 77, 2001), dm_mk('dm2', 78, 4001);
-- the queries qs on tbl in deny mode, on an empty ledger: the last one's outcome
CREATE FUNCTION dm_try(tbl text, VARIADIC qs text[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
	q text;
BEGIN
	PERFORM tapas.reset(tbl::regclass);
	SET tapas.mode = deny;
	SET SESSION AUTHORIZATION regress_tapas_analyst;
	BEGIN
		FOREACH q IN ARRAY qs LOOP
			EXECUTE format(q, tbl) INTO r;
		END LOOP;
		r := 'answered';
	EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
		r := SQLSTATE;
	END;
	RESET SESSION AUTHORIZATION;
	RESET tapas.mode;
	RETURN r;
END $$;
RESET client_min_messages;
-- 1. rare's zeros over everyone but the 91-year-old, then a diagnosis over
-- everyone: in dm1 hiv and rare have equal truths, in dm2 they do not; the
-- decision is the same (a count over everyone isolates no one), and the
-- same for flu
SELECT t, dm_try(t, 'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE age <> 91',
				 'SELECT count(*) FILTER (WHERE diagnosis = ''hiv'') FROM %I') AS hiv,
	   dm_try(t, 'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE age <> 91',
				 'SELECT count(*) FILTER (WHERE diagnosis = ''flu'') FROM %I') AS flu
  FROM unnest(ARRAY['dm1', 'dm2']) t;
-- 2. then a sub-class of rare over everyone: rare AND income > 3000
-- implies rare, whose zeros leave the 91-year-old; refused in both tables
-- (his income is 2001 in dm1, 4001 in dm2), whatever the threshold, and
-- in a CASE spelling
SELECT t, dm_try(t, 'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE age <> 91',
				 'SELECT count(*) FILTER (WHERE rare AND income > 3000) FROM %I') AS above_3000,
	   dm_try(t, 'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE age <> 91',
				 'SELECT sum(CASE WHEN income <= 3000 AND rare THEN 1 ELSE 0 END) FROM %I') AS case_at_most_3000,
	   dm_try(t, 'SELECT count(*) FILTER (WHERE rare) FROM %I WHERE age <> 91',
				 'SELECT count(*) FILTER (WHERE rare AND diagnosis <> ''cold'') FROM %I') AS not_cold
  FROM unnest(ARRAY['dm1', 'dm2']) t;
-- controls: the sub-class alone, after rare's total, and the superclass
-- after the sub-class's zeros are answered
SELECT dm_try('dm1', 'SELECT 1', 'SELECT count(*) FILTER (WHERE rare AND income > 3000) FROM %I') AS alone,
	   dm_try('dm1', 'SELECT count(*) FILTER (WHERE rare) FROM %I',
			  'SELECT count(*) FILTER (WHERE rare AND income > 3000) FROM %I') AS after_total,
	   dm_try('dm1', 'SELECT count(*) FILTER (WHERE rare AND income > 3000) FROM %I WHERE age <> 91',
			  'SELECT count(*) FILTER (WHERE rare) FROM %I') AS superclass;
-- 3. one function, two texts: income >= 3001 and income > 3000 on an
-- integer column are one class, so their difference is refused; so is
-- NOT income <= 3000, and the complement income <= 3000 (|Q| is public)
SELECT dm_try('dm1', 'SELECT count(*) FILTER (WHERE income >= 3001) FROM %I',
			  'SELECT count(*) FILTER (WHERE income > 3000) FROM %I WHERE age <> 91') AS threshold_spelling,
	   dm_try('dm1', 'SELECT count(*) FILTER (WHERE NOT income <= 3000) FROM %I',
			  'SELECT count(*) FILTER (WHERE income > 3000) FROM %I WHERE age <> 91') AS negated,
	   dm_try('dm1', 'SELECT count(*) FILTER (WHERE income <= 3000) FROM %I',
			  'SELECT count(*) FILTER (WHERE income > 3000) FROM %I WHERE age <> 91') AS complement;
-- 4. complementary filters combine (income is never NULL here): rare over
-- everyone, then its two halves over everyone but the 91-year-old
SELECT t, dm_try(t, 'SELECT count(*) FILTER (WHERE rare) FROM %I',
				 'SELECT count(*) FILTER (WHERE rare AND income > 3000) FROM %I WHERE age <> 91',
				 'SELECT count(*) FILTER (WHERE rare AND NOT income > 3000) FROM %I WHERE age <> 91') AS halves
  FROM unnest(ARRAY['dm1', 'dm2']) t;
-- 5. past 256 classes on a table, a new statistic is refused (TP003): the
-- kernel could not tell whether its class combines with the others.
-- The thresholds are incomes of the table, so that no two of them are
-- one function (two thresholds with no income between them would be)
SET client_min_messages = warning;
CREATE TABLE dm_thr AS SELECT DISTINCT income AS t FROM dm1 ORDER BY 1 LIMIT 260;
GRANT SELECT ON dm_thr TO regress_tapas_analyst;
SELECT tapas.reset('dm1') IS NOT NULL AS reset;
SET tapas.mode = deny;
-- one role's flood, without the per-role quota (section 6)
SET tapas.audit_classes_per_role = 0;
SET SESSION AUTHORIZATION regress_tapas_analyst;
CREATE FUNCTION pg_temp.dm_flood(n int) RETURNS TABLE (outcome text, statements bigint) LANGUAGE plpgsql AS $$
DECLARE a bigint;
	i int;
	o text[] := '{}';
BEGIN
	FOR i IN SELECT t FROM dm_thr ORDER BY t LIMIT n LOOP
		BEGIN
			EXECUTE format('SELECT count(*) FILTER (WHERE income > %s) FROM dm1', i) INTO a;
			o := o || 'answered'::text;
		EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP003' OR SQLSTATE 'TP004' THEN
			o := o || SQLSTATE::text;
		END;
	END LOOP;
	RETURN QUERY SELECT x, count(*) FROM unnest(o) x GROUP BY x ORDER BY x;
END $$;
SELECT * FROM pg_temp.dm_flood(260);
SELECT count(*) FILTER (WHERE rare) FROM dm1;
RESET SESSION AUTHORIZATION;
RESET tapas.mode;
RESET tapas.audit_classes_per_role;
SELECT tapas.reset('dm1') IS NOT NULL AS reset;
-- 6. the per-role quota of classes (tapas.audit_classes_per_role): a role
-- past it is refused new statistics (TP003) while its classes logged so
-- far stay audited and another role still adds classes; counted over the
-- ledger, so a new session does not start a new count
CREATE ROLE regress_tapas_quota2 LOGIN;
GRANT SELECT ON dm1, dm_thr TO regress_tapas_quota2;
CREATE FUNCTION dm_quota(who text, quota int, VARIADIC qs text[]) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE a bigint;
	q text;
	o text[] := '{}';
BEGIN
	SET tapas.mode = deny;
	EXECUTE format('SET tapas.audit_classes_per_role = %s', quota);
	EXECUTE format('SET SESSION AUTHORIZATION %I', who);
	FOREACH q IN ARRAY qs LOOP
		BEGIN
			EXECUTE q INTO a;
			o := o || 'answered'::text;
		EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP003' OR SQLSTATE 'TP004' THEN
			o := o || SQLSTATE::text;
		END;
	END LOOP;
	RESET SESSION AUTHORIZATION;
	RESET tapas.mode;
	RESET tapas.audit_classes_per_role;
	RETURN o;
END $$;
-- three classes answered, the fourth refused; the first again answered
SELECT dm_quota('regress_tapas_analyst', 3,
				'SELECT count(*) FILTER (WHERE income > 1500) FROM dm1',
				'SELECT count(*) FILTER (WHERE income > 2500) FROM dm1',
				'SELECT count(*) FILTER (WHERE income > 3500) FROM dm1',
				'SELECT count(*) FILTER (WHERE income > 4500) FROM dm1',
				'SELECT count(*) FILTER (WHERE income > 1500) FROM dm1 WHERE age < 60') AS first_role;
\set VERBOSITY terse
SET tapas.mode = deny;
SET tapas.audit_classes_per_role = 3;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE income > 4500) FROM dm1;
-- another spelling of a logged class is no new class
SELECT sum(CASE WHEN income > 2500 THEN 1 ELSE 0 END) FROM dm1 WHERE age < 50;
RESET SESSION AUTHORIZATION;
\set VERBOSITY default
-- the logged classes stay audited: a difference on one is refused
SELECT dm_quota('regress_tapas_analyst', 3,
				'SELECT count(*) FILTER (WHERE income > 3500) FROM dm1 WHERE age <> 91') AS difference;
-- another role: room of its own, and the first role's classes are no new
-- classes for it
SELECT dm_quota('regress_tapas_quota2', 3,
				'SELECT count(*) FILTER (WHERE income > 4500) FROM dm1',
				'SELECT count(*) FILTER (WHERE income > 1500) FROM dm1 WHERE age < 30') AS second_role;
-- a new session of the first role: still past its quota, but the class
-- the second role logged is no new class for it
\c
SELECT dm_quota('regress_tapas_analyst', 3,
				'SELECT count(*) FILTER (WHERE income > 4000) FROM dm1',
				'SELECT count(*) FILTER (WHERE income > 4500) FROM dm1 WHERE age < 40') AS new_session;
-- the refused statements are no logged classes: a quota raised to 4
-- admits one more
SELECT dm_quota('regress_tapas_analyst', 4,
				'SELECT count(*) FILTER (WHERE income > 4000) FROM dm1',
				'SELECT count(*) FILTER (WHERE income > 3000) FROM dm1') AS raised;
-- which only a superuser can do
SET SESSION AUTHORIZATION regress_tapas_analyst;
SET tapas.audit_classes_per_role = 100;
RESET SESSION AUTHORIZATION;
SELECT tapas.reset('dm1') IS NOT NULL AS reset;
-- 7. rows answered 1 of related classes narrow a class's candidates
-- (implied.c): rare's total, then rare AND income > t_k over random
-- halves holding the 91-year-old, a new threshold (a new class) each
-- time; the half that would leave fewer than 10 candidates is refused, in
-- both tables; without rare's total too (the prior of one positive, as
-- for two rows of one class answered 1), and when the last half asks
-- rare itself, the class they all imply.  agg is the halves' statistic,
-- a format taking k.
-- the queries qs (formats taking the table) on tbl in deny mode, on an empty ledger: each answer or SQLSTATE
CREATE FUNCTION dm_run(tbl text, qs text[]) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE a numeric;
	q text;
	o text[] := '{}';
BEGIN
	PERFORM tapas.reset(tbl::regclass);
	SET tapas.mode = deny;
	SET SESSION AUTHORIZATION regress_tapas_analyst;
	FOREACH q IN ARRAY qs LOOP
		BEGIN
			EXECUTE format(q, tbl) INTO a;
			o := o || a::text;
		EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP003' OR SQLSTATE 'TP004' THEN
			o := o || SQLSTATE::text;
		END;
	END LOOP;
	RESET SESSION AUTHORIZATION;
	RESET tapas.mode;
	RETURN o;
END $$;
CREATE FUNCTION dm_halves(tbl text, total boolean, last text,
						  agg text DEFAULT 'count(*) FILTER (WHERE rare AND income > 1500 - 50 * %1$s)')
	RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE qs text[] := '{}';
BEGIN
	IF total THEN
		qs := qs || 'SELECT count(*) FILTER (WHERE rare) FROM %I'::text;
	END IF;
	FOR k IN 1..7 LOOP
		qs := qs || format('SELECT %s FROM %%I
							 WHERE tapas.design_member(''bernoulli'', 400, 200, %s, id - 1, 0, 42) OR id = 77',
						   CASE WHEN k = 7 AND last IS NOT NULL THEN last ELSE format(agg, k) END, k);
	END LOOP;
	RETURN dm_run(tbl, qs);
END $$;
-- the 400 records' share of the halves' intersections, for the reader
SELECT k, count(*) FILTER (WHERE (SELECT bool_and(tapas.design_member('bernoulli', 400, 200, j, id - 1, 0, 42) OR id = 77)
								FROM generate_series(1, k) j)) AS left_after_k
  FROM dm1, generate_series(1, 7) k GROUP BY k ORDER BY k;
SELECT t, dm_halves(t, true, NULL) AS with_total, dm_halves(t, false, NULL) AS without_total,
	   dm_halves(t, false, 'count(*) FILTER (WHERE rare)') AS then_rare
  FROM unnest(ARRAY['dm1', 'dm2']) t;
-- 8. classes that overlap, none implying another, and no query on rare
-- itself: income windows rising at both ends (1550..4550, 1600..4600,
-- ...) that hold both tables' patient; an attacker who assumes one rare
-- patient intersects the halves all the same (implied.c: the supports
-- meet on the grid, so their rows answered 1 narrow each other's
-- candidates).  Likewise spelled as sums of CASE over BETWEEN, and with
-- AND diagnosis <> 'flu' on every other half of falling thresholds
-- (neither of two successive classes implies the other).
SELECT t, dm_halves(t, false, NULL,
					'count(*) FILTER (WHERE rare AND income > 1500 + 50 * %1$s AND income < 4500 + 50 * %1$s)') AS windows,
	   dm_halves(t, false, NULL,
				 'sum(CASE WHEN rare AND income BETWEEN 1500 + 50 * %1$s AND 4500 + 50 * %1$s THEN 1 ELSE 0 END)') AS sum_windows,
	   dm_halves(t, false, NULL,
				 'count(*) FILTER (WHERE rare AND income > 1500 - 50 * %1$s AND (mod(%1$s, 2) = 1 OR diagnosis <> ''flu''))') AS mixed
  FROM unnest(ARRAY['dm1', 'dm2']) t;
-- 9. a class not 0/1 has the prior of one nonzero record (candidates.c):
-- the rare patient's income over random halves holding him answers his
-- income (2001 in dm1, 4001 in dm2) every time, and the attacker who
-- assumes one rare patient intersects the halves as for a count; refused
-- at the same half in both tables, also with the total first and spelled
-- as a sum of CASE.  An analyst's drill-down over sums of incomes
-- answers different values, which refute the prior: all answered.
SELECT t, dm_halves(t, false, NULL, 'sum(income) FILTER (WHERE rare)') AS income_halves,
	   dm_halves(t, true, NULL, 'sum(CASE WHEN rare THEN income ELSE 0 END)') AS with_count_total
  FROM unnest(ARRAY['dm1', 'dm2']) t;
-- and over classes by their supports (implied.c): the income of rare
-- AND income > t_k, a new threshold each half, with and without rare's
-- count first; and income windows whose supports meet.
SELECT t, dm_halves(t, false, NULL, 'sum(income) FILTER (WHERE rare AND income > 1500 - 50 * %1$s)') AS thresholds,
	   dm_halves(t, true, NULL, 'sum(income) FILTER (WHERE rare AND income > 1500 - 50 * %1$s)') AS thresholds_total,
	   dm_halves(t, false, NULL,
				 'sum(income) FILTER (WHERE rare AND income BETWEEN 1500 + 50 * %1$s AND 4500 + 50 * %1$s)') AS windows
  FROM unnest(ARRAY['dm1', 'dm2']) t;
SELECT t, dm_run(t, ARRAY(SELECT format('SELECT sum(income) FROM %%I WHERE age < %s', 80 - 5 * k)
							FROM generate_series(0, 6) k)) AS drill_down
  FROM unnest(ARRAY['dm1', 'dm2']) t;
-- 10. ten IN lists, the incomes with bit b set, b = 0 .. 9 (cells of
-- 1,024 signatures): they made the classes fall back to their truth over
-- the table, whose supports linked the threshold halves; income may now
-- have 16,384 representatives, and the halves are linked on the grid
-- (truth_identity.c): either way they still narrow each other.  Two rare patients, the
-- second (income 1300) kept out of every half; thresholds alternate below
-- and above 1300, so the classes have two truths, one inside the other.
SET client_min_messages = warning;
CREATE TABLE dm3 (id int PRIMARY KEY, rare bool NOT NULL, income int NOT NULL);
INSERT INTO dm3 SELECT g, g IN (77, 78), CASE WHEN g = 77 THEN 2001 WHEN g = 78 THEN 1300
											 WHEN g <= 400 THEN 1000 + (g * 13) % 5000 ELSE 1000 + g END
  FROM generate_series(1, 3000) g;
SELECT tapas.protect('dm3'::regclass, 'id', ARRAY['rare', 'income'], 10) IS NOT NULL AS protected;
GRANT SELECT ON dm3 TO regress_tapas_analyst;
RESET client_min_messages;
SELECT pollute, dm_run('dm3', CASE WHEN pollute
		THEN ARRAY['SELECT count(*) FILTER (WHERE ' ||
				   (SELECT string_agg(format('income = ANY(%L::int[])',
											 (SELECT array_agg(g)::text FROM generate_series(1000, 4000) g
											   WHERE (g >> b) & 1 = 1)), ' OR ')
					  FROM generate_series(0, 9) b) || ') FROM %I']
		ELSE '{}'::text[] END ||
	ARRAY(SELECT format('SELECT count(*) FILTER (WHERE rare AND income > %s) FROM %%I
						  WHERE (tapas.design_member(''bernoulli'', 400, 200, %s, id - 1, 0, 42) OR id = 77) AND id <> 78',
						CASE WHEN k % 2 = 1 THEN 1290 - k ELSE 1310 + k END, k)
			FROM generate_series(1, 10) k)) AS halves
  FROM unnest(ARRAY[false, true]) pollute;
SELECT tapas.reset('dm3') IS NOT NULL AS reset;
DROP TABLE dm3;
-- 11. one component of the grid falls back, the others keep it
-- (truth_domain_star.c): an IN list of 1,501 incomes turned income's
-- classes to their truth (now it costs two representatives, below), but
-- rare and diagnosis are still functions, so dm4's
-- coincidence (its hiv patient is the rare one, dm5's is not) is not one
-- unknown, and section 1's difference gets one decision in both tables, as
-- without the IN list; the difference over income (its component by
-- value) is still refused, and so is a part of rare on diagnosis
SET client_min_messages = warning;
CREATE FUNCTION dm_mk3k(tbl text, hiv int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, age int NOT NULL, rare bool NOT NULL,
								 diagnosis text NOT NULL, income int NOT NULL)', tbl);
	EXECUTE format('INSERT INTO %I SELECT g, CASE WHEN g = 77 THEN 91 ELSE 20 + g %% 60 END, g = 77,
						   CASE WHEN g = %s THEN ''hiv'' ELSE (ARRAY[''flu'', ''cold''])[1 + g %% 2] END,
						   1000 + g
					  FROM generate_series(1, 3000) g', tbl, hiv);
	PERFORM tapas.protect(tbl::regclass, 'id', ARRAY['rare', 'diagnosis', 'income'], 10);
	EXECUTE format('GRANT SELECT ON %I TO regress_tapas_analyst', tbl);
END $$;
SELECT count(dm_mk3k(t, h)::text) AS made FROM (VALUES ('dm4', 77), ('dm5', 78)) v(t, h);
RESET client_min_messages;
-- the IN list of 1,501 incomes (when pollute), and section 1's difference
-- over the grid's three columns
CREATE FUNCTION dm_in_list(pollute boolean) RETURNS text[] LANGUAGE sql AS $$
	SELECT CASE WHEN pollute
		THEN ARRAY['SELECT count(*) FILTER (WHERE income = ANY(''' ||
				   (SELECT array_agg(g)::text FROM generate_series(1000, 4000, 2) g) || '''::int[])) FROM %I']
		ELSE '{}'::text[] END
$$;
CREATE FUNCTION dm_section1() RETURNS text[] LANGUAGE sql AS $$
	SELECT ARRAY['SELECT count(*) FILTER (WHERE rare) FROM %I WHERE age <> 91',
		  'SELECT count(*) FILTER (WHERE diagnosis = ''hiv'') FROM %I',
		  'SELECT count(*) FILTER (WHERE rare AND income > 1500) FROM %I WHERE age <> 91',
		  'SELECT count(*) FILTER (WHERE rare AND income <= 1500) FROM %I']
$$;
SELECT t, pollute, dm_run(t, dm_in_list(pollute) || dm_section1()) AS outcomes,
	dm_run(t, dm_in_list(pollute) ||
	ARRAY['SELECT count(*) FILTER (WHERE rare) FROM %I',
		  'SELECT count(*) FILTER (WHERE rare AND diagnosis = ''flu'') FROM %I WHERE age <> 91',
		  'SELECT count(*) FILTER (WHERE rare AND diagnosis <> ''flu'') FROM %I WHERE age <> 91']) AS relation
  FROM unnest(ARRAY['dm4', 'dm5']) t, unnest(ARRAY[false, true]) pollute;
-- a class that reads every sensitive column joins them into one
-- component, and the IN list would then turn it all to its truth again;
-- but the IN list's incomes are one representative, in the list or not
-- (truth_domain_reps.c: cells that every atom on income treats alike),
-- also where a sum reads income (its least and greatest of each group):
-- the same decisions as without the IN list, in both tables
SELECT t, summed, pollute, dm_run(t, ARRAY['SELECT count(*) FILTER (WHERE rare AND diagnosis = ''flu'' AND income > 5) FROM %I'] ||
		CASE WHEN summed THEN ARRAY['SELECT sum(income) FROM %I WHERE age > 30'] ELSE '{}'::text[] END ||
		dm_in_list(pollute) || dm_section1()) AS outcomes
  FROM unnest(ARRAY['dm4', 'dm5']) t, unnest(ARRAY[false, true]) summed, unnest(ARRAY[false, true]) pollute
 ORDER BY summed, pollute, t;
-- ten IN lists of bits on income (1,024 groups of incomes) with that
-- class: their component (rare, diagnosis, income) is above the grid's
-- points, and it fell back to its truth, where hiv is rare in dm4 (so dm4
-- refused the count of hiv, dm5 answered it); now it is laid out in slices
-- (truth_domain_slices.c), and both tables get the same decisions
SELECT t, dm_run(t, ARRAY['SELECT count(*) FILTER (WHERE rare AND diagnosis = ''flu'' AND income > 5) FROM %I',
		'SELECT count(*) FILTER (WHERE ' ||
		(SELECT string_agg(format('income = ANY(%L::int[])',
								  (SELECT array_agg(g)::text FROM generate_series(1000, 4000) g
									WHERE (g >> b) & 1 = 1)), ' OR ')
		   FROM generate_series(0, 9) b) || ') FROM %I'] || dm_section1()) AS outcomes
  FROM unnest(ARRAY['dm4', 'dm5']) t;
-- and in that sliced component, rare's total then rare AND income > t_k
-- over random halves holding the 91-year-old (section 7): the halves imply
-- rare on the pair's own grid (truth_domain_pairs.c), so they narrow its
-- candidates, and the same half is refused as without the IN lists
SELECT t, bits, dm_run(t, ARRAY['SELECT count(*) FILTER (WHERE rare AND diagnosis = ''flu'' AND income > 5) FROM %I'] ||
		CASE WHEN bits THEN ARRAY['SELECT count(*) FILTER (WHERE ' ||
		(SELECT string_agg(format('income = ANY(%L::int[])',
								  (SELECT array_agg(g)::text FROM generate_series(1000, 4000) g
									WHERE (g >> b) & 1 = 1)), ' OR ')
		   FROM generate_series(0, 9) b) || ') FROM %I'] ELSE '{}'::text[] END ||
		ARRAY['SELECT count(*) FILTER (WHERE rare) FROM %I'] ||
		ARRAY(SELECT format('SELECT count(*) FILTER (WHERE rare AND income > %s) FROM %%I
							  WHERE tapas.design_member(''bernoulli'', 3000, 1500, %s, id - 1, 0, 42) OR id = 77',
							1000 + k, k)
				FROM generate_series(1, 10) k)) AS halves
  FROM unnest(ARRAY['dm4', 'dm5']) t, unnest(ARRAY[false, true]) bits;
-- rare's zeros over everyone but the 91-year-old, then a row answered 1
-- of a class the halves' class implies or meets (another component, a
-- value of income, the complement's part, a class rare implies), then a
-- half holding him: the related row says nothing of whether the half's
-- class has a positive, so the zeros it inherits from rare leave him
-- alone, and the half is refused (implied.c: before, that row counted as
-- the positive known, and the narrowing as told already: all answered)
SELECT t, m, dm_run(t, ARRAY['SELECT sum(CASE WHEN rare THEN 1 ELSE 0 END) FROM %I WHERE age < 90', m,
	'SELECT sum(rare::int) FILTER (WHERE income BETWEEN 1051 AND 5000) FROM %I
	  WHERE tapas.design_member(''bernoulli'', 3000, 1500, 1, id - 1, 0, 45) OR id = 77']) AS outcomes
  FROM unnest(ARRAY['dm4', 'dm5']) t,
	   unnest(ARRAY['SELECT count(*) FILTER (WHERE diagnosis IN (''hiv'')) FROM %I',
					'SELECT count(*) FILTER (WHERE income = 2500) FROM %I',
					'SELECT count(*) FROM %I WHERE income = 2500 AND NOT rare',
					'SELECT count(*) FILTER (WHERE rare OR income = 2500) FROM %I WHERE age < 90']) m;
SELECT tapas.reset(t::regclass) IS NOT NULL AS reset FROM unnest(ARRAY['dm4', 'dm5']) t;
DROP TABLE dm4, dm5;
DROP FUNCTION dm_mk3k(text, int), dm_in_list(boolean), dm_section1();
-- 12. a column with more distinct values than the grid keeps (65,536,
-- truth_domain_values.c) still has its grid: its cells are read by a scan.
-- The richest of 70,000 is the one rare record: rare and income > 69999
-- agree on the table, but are two functions, so after rare's zeros over
-- everyone but him, income > 69999 over everyone is answered (as rare and
-- diagnosis = 'hiv' in section 1); income >= 70000 is income > 69999 on an
-- integer column, and their difference is refused
SET client_min_messages = warning;
CREATE TABLE dm6 (id int PRIMARY KEY, rare bool NOT NULL, income int NOT NULL);
INSERT INTO dm6 SELECT g, g = 70000, g FROM generate_series(1, 70000) g;
SELECT tapas.protect('dm6'::regclass, 'id', ARRAY['rare', 'income'], 10) IS NOT NULL AS protected;
GRANT SELECT ON dm6 TO regress_tapas_analyst;
RESET client_min_messages;
SELECT dm_run('dm6', ARRAY['SELECT count(*) FILTER (WHERE rare) FROM %I WHERE id <> 70000',
						   'SELECT count(*) FILTER (WHERE income > 69999) FROM %I']) AS two_functions,
	   dm_run('dm6', ARRAY['SELECT count(*) FILTER (WHERE income > 69999) FROM %I',
						   'SELECT count(*) FILTER (WHERE income >= 70000) FROM %I WHERE id <> 70000']) AS one_function;
SELECT tapas.reset('dm6') IS NOT NULL AS reset;
DROP TABLE dm6;
-- 13. off the grid (truth_domain_star.c): a class reading 13 sensitive
-- columns (rare and twelve flags) puts them in one component of 2^13
-- points, above the grid's 4,096, and with more dimensions than a sliced
-- component lays out for one class (12), so the component has no grid
-- (the DEBUG line says so) and its classes' identities and relations
-- would come from the records' values.  Its statement fails closed
-- (TP004, truth.c tapas_audit_statistic_no_grid), and, refused, its
-- class does not join the table's: the threshold halves of section 10
-- after it get the same decisions as without it.
SET client_min_messages = warning;
CREATE TABLE dm7 (id int PRIMARY KEY, rare bool NOT NULL, income int NOT NULL,
				  b1 bool NOT NULL, b2 bool NOT NULL, b3 bool NOT NULL, b4 bool NOT NULL,
				  b5 bool NOT NULL, b6 bool NOT NULL, b7 bool NOT NULL, b8 bool NOT NULL,
				  b9 bool NOT NULL, b10 bool NOT NULL, b11 bool NOT NULL, b12 bool NOT NULL);
INSERT INTO dm7 SELECT g, g IN (77, 78), CASE WHEN g = 77 THEN 2001 WHEN g = 78 THEN 1300
											 WHEN g <= 400 THEN 1000 + (g * 13) % 5000 ELSE 1000 + g END,
					   g % 3 = 0, g % 5 = 0, g % 2 = 0, g % 3 = 1, g % 4 = 0, g % 5 = 1,
					   g % 2 = 1, g % 3 = 2, g % 7 = 0, g % 11 = 0, g % 13 = 0, g % 5 = 2
  FROM generate_series(1, 3000) g;
SELECT tapas.protect('dm7'::regclass, 'id', ARRAY['rare', 'income', 'b1', 'b2', 'b3', 'b4', 'b5', 'b6',
												 'b7', 'b8', 'b9', 'b10', 'b11', 'b12'], 10) IS NOT NULL AS protected;
GRANT SELECT ON dm7 TO regress_tapas_analyst;
RESET client_min_messages;
CREATE FUNCTION dm_wide() RETURNS text LANGUAGE sql AS $$
	SELECT 'SELECT count(*) FILTER (WHERE rare AND ' ||
		   (SELECT string_agg(format('b%s', b), ' AND ') FROM generate_series(1, 12) b) || ') FROM %I'
$$;
SET client_min_messages = debug1;
SELECT dm_run('dm7', ARRAY[dm_wide()]) AS wide_class;
RESET client_min_messages;
SELECT wide, dm_run('dm7', CASE WHEN wide THEN ARRAY[dm_wide()] ELSE '{}'::text[] END ||
	ARRAY(SELECT format('SELECT count(*) FILTER (WHERE rare AND income > %s) FROM %%I
						  WHERE (tapas.design_member(''bernoulli'', 400, 200, %s, id - 1, 0, 42) OR id = 77) AND id <> 78',
						CASE WHEN k % 2 = 1 THEN 1290 - k ELSE 1310 + k END, k)
			FROM generate_series(1, 10) k)) AS halves
  FROM unnest(ARRAY[false, true]) wide;
SELECT tapas.reset('dm7') IS NOT NULL AS reset;
DROP TABLE dm7;
DROP FUNCTION dm_wide();
-- 14. the links of two classes of a sliced component on their own grid
-- (truth_domain_pairs.c), however many values they share: section 1's
-- difference on rare AND six flags AND income > 1050 (its zeros over
-- everyone but the 91-year-old), then diagnosis = 'hiv' AND (income >
-- 1001 OR income > 1002 OR ... OR income > 1560), 560 cuts of income.
-- In dp4 the hiv patient is the rare one (both classes are his alone), in
-- dp5 he is not.  The pair's grid, 561 incomes by 2 + 128 values of the
-- others, was above 65,536 evaluations and the links came from the
-- records, where dp4's two classes are one: dp4 refused the hiv count,
-- dp5 answered it.  Now each class is read on its own grid (1,122 and 256
-- points) and both tables answer; the difference itself is refused.  So
-- too where the zeros are of sum(income), whose values the pair's grid
-- reads at up to four incomes of each group its atoms tell apart.
SET client_min_messages = warning;
CREATE FUNCTION dp_mk(tbl text, hiv int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, age int NOT NULL, rare bool NOT NULL,
								 diagnosis text NOT NULL, income int NOT NULL, b1 bool NOT NULL,
								 b2 bool NOT NULL, b3 bool NOT NULL, b4 bool NOT NULL, b5 bool NOT NULL,
								 b6 bool NOT NULL)', tbl);
	EXECUTE format('INSERT INTO %I SELECT g, CASE WHEN g = 77 THEN 91 ELSE 20 + g %% 60 END, g = 77,
						   CASE WHEN g = %s THEN ''hiv'' ELSE (ARRAY[''flu'', ''cold''])[1 + g %% 2] END,
						   1000 + g, g %% 2 = 1, g %% 3 = 2, g %% 4 = 1, g %% 5 = 2, g %% 6 = 5, g %% 7 = 0
					  FROM generate_series(1, 3000) g', tbl, hiv);
	PERFORM tapas.protect(tbl::regclass, 'id',
						  ARRAY['rare', 'diagnosis', 'income', 'b1', 'b2', 'b3', 'b4', 'b5', 'b6'], 10);
	EXECUTE format('GRANT SELECT ON %I TO regress_tapas_analyst', tbl);
END $$;
SELECT count(dp_mk(t, h)::text) AS made FROM (VALUES ('dp4', 77), ('dp5', 78)) v(t, h);
RESET client_min_messages;
-- the zeros of agg over everyone but him, then hiv's count or the difference
CREATE FUNCTION dp_queries(diff boolean, agg text) RETURNS text[] LANGUAGE sql AS $$
	SELECT ARRAY['SELECT ' || agg || ' FILTER (WHERE rare AND b1 AND b2 AND b3 AND b4 AND b5 AND b6 AND income > 1050)
				   FROM %I WHERE age <> 91',
				 CASE WHEN diff
				 THEN 'SELECT ' || agg || ' FILTER (WHERE rare AND b1 AND b2 AND b3 AND b4 AND b5 AND b6 AND income > 1050) FROM %I'
				 ELSE 'SELECT count(*) FILTER (WHERE diagnosis = ''hiv'' AND (' ||
					  (SELECT string_agg(format('income > %s', c), ' OR ') FROM generate_series(1001, 1560) c) ||
					  ')) FROM %I' END]
$$;
SELECT bool_and(g = 77 OR NOT (rare AND b1 AND b2 AND b3 AND b4 AND b5 AND b6)) AND
	   bool_and(rare AND b1 AND b2 AND b3 AND b4 AND b5 AND b6) FILTER (WHERE g = 77) AS only_77
  FROM dp4, LATERAL (SELECT id) v(g);
SET client_min_messages = debug1;
SELECT dm_run('dp4', dp_queries(false, 'count(*)')) AS grid_links;
RESET client_min_messages;
SELECT agg, t, dm_run(t, dp_queries(false, agg)) AS hiv, dm_run(t, dp_queries(true, agg)) AS difference
  FROM unnest(ARRAY['count(*)', 'sum(income)']) agg, unnest(ARRAY['dp4', 'dp5']) t;
SELECT tapas.reset(t::regclass) IS NOT NULL AS reset FROM unnest(ARRAY['dp4', 'dp5']) t;
DROP TABLE dp4, dp5;
DROP FUNCTION dp_mk(text, int), dp_queries(boolean, text);
-- 15. forcing a component off the grid: rare AND diagnosis = 'flu' AND
-- income > 5 joins the three columns, then counts of income > c OR ...
-- for 600 constants c at a time cut income into more groups than a slice
-- may hold (4,096) at the seventh.  Were it answered, the component would
-- fall back to the records' values, where dp6's hiv patient is its rare
-- one, and the hiv count after rare's zeros over everyone but him would
-- be refused in dp6 only (it was).  The seventh is refused in both tables
-- (TP004, whatever the records hold), its class does not join, and the
-- rest is section 1: the hiv count answered, the difference refused.
SET client_min_messages = warning;
CREATE FUNCTION dp_mk6k(tbl text, hiv int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, age int NOT NULL, rare bool NOT NULL,
								 diagnosis text NOT NULL, income int NOT NULL)', tbl);
	EXECUTE format('INSERT INTO %I SELECT g, CASE WHEN g = 77 THEN 91 ELSE 20 + g %% 60 END, g = 77,
						   CASE WHEN g = %s THEN ''hiv'' ELSE (ARRAY[''flu'', ''cold''])[1 + g %% 2] END,
						   1000 + g
					  FROM generate_series(1, 6000) g', tbl, hiv);
	PERFORM tapas.protect(tbl::regclass, 'id', ARRAY['rare', 'diagnosis', 'income'], 10);
	EXECUTE format('GRANT SELECT ON %I TO regress_tapas_analyst', tbl);
END $$;
SELECT count(dp_mk6k(t, h)::text) AS made FROM (VALUES ('dp6', 77), ('dp7', 78)) v(t, h);
RESET client_min_messages;
SELECT t, dm_run(t, ARRAY['SELECT count(*) FILTER (WHERE rare AND diagnosis = ''flu'' AND income > 5) FROM %I'] ||
		ARRAY(SELECT 'SELECT count(*) FILTER (WHERE ' ||
					 (SELECT string_agg(format('income > %s', c), ' OR ')
						FROM generate_series(1001 + 600 * k, 1600 + 600 * k) c) || ') FROM %I'
				FROM generate_series(0, 6) k) ||
		ARRAY['SELECT count(*) FILTER (WHERE rare) FROM %I WHERE age <> 91',
			  'SELECT count(*) FILTER (WHERE diagnosis = ''hiv'') FROM %I',
			  'SELECT count(*) FILTER (WHERE rare) FROM %I']) AS outcomes
  FROM unnest(ARRAY['dp6', 'dp7']) t;
SELECT tapas.reset(t::regclass) IS NOT NULL AS reset FROM unnest(ARRAY['dp6', 'dp7']) t;
DROP TABLE dp6, dp7;
DROP FUNCTION dp_mk6k(text, int);
SELECT tapas.reset(t::regclass) IS NOT NULL AS reset FROM unnest(ARRAY['dm1', 'dm2']) t;
DROP FUNCTION dm_halves(text, boolean, text, text), dm_run(text, text[]);
DROP FUNCTION dm_quota(text, int, text[]);
REVOKE ALL ON dm1, dm_thr FROM regress_tapas_quota2;
DROP ROLE regress_tapas_quota2;
DROP TABLE dm1, dm2, dm_thr;
DROP FUNCTION dm_mk(text, int, int), dm_try(text, text[]);
RESET client_min_messages;
