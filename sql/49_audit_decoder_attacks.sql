-- The decoder attacks of issue 11 against the simulatable decisions
-- (src/audit/simulated.c) and the decoders for many positives
-- (recon/cs_bhtp.c): each is alerted in log mode, and refused in deny
-- mode no later than the query the attacker's own decoder needs.
--  1. tapas.audit_budget_ms = 0 and a BCH s = 2 attack whose record order
--	   is a permutation of the key (no design recognition): fails closed;
--  2. Bernoulli(1/2) with 64 positives among 2,000 records.
SET tapas.audit_scope = role;
-- the attacker's LP can take longer than 5 s on a loaded machine: no
-- progress NOTICE in the output
SET tapas.progress_interval = '1h';
SET client_min_messages = warning;
DO $$
BEGIN
	CREATE ROLE regress_tapas_analyst2 LOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
CREATE FUNCTION mk(tbl text, n int, positives int[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, pos boolean NOT NULL)', tbl);
	EXECUTE format('INSERT INTO %I SELECT g, g = ANY (%L) FROM generate_series(1, %s) g',
				   tbl, positives, n);
	PERFORM tapas.protect(tbl::regclass, 'id', ARRAY['pos'], n / 2 - 100);
	EXECUTE format('GRANT SELECT ON %I TO regress_tapas_analyst, regress_tapas_analyst2', tbl);
END $$;
CREATE TABLE att_answers (tbl text, mode text, q int, a numeric, outcome text);
GRANT ALL ON att_answers TO PUBLIC;
CREATE FUNCTION run_attack(tbl text, m int, member text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE a numeric;
BEGIN
	FOR q IN 1..m LOOP
		BEGIN
			EXECUTE format('SELECT count(*) FILTER (WHERE pos) FROM %I WHERE ' || member, tbl, q) INTO a;
			INSERT INTO att_answers VALUES (tbl, current_setting('tapas.mode'), q, a, 'answered');
		EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
			INSERT INTO att_answers VALUES (tbl, current_setting('tapas.mode'), q, NULL, SQLSTATE);
		END;
	END LOOP;
END $$;
-- the attacker's decoder (tapas.reconstruct_matrix) on the first t queries
-- of the design, with the true answers: does it return the positives?
CREATE FUNCTION decodes_at(tbl text, n int, s int, t int, member text, method text)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE got bigint[];
	truth bigint[];
	ans numeric[];
BEGIN
	EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %I WHERE pos', tbl) INTO truth;
	EXECUTE format('SELECT array_agg((SELECT count(*) FROM %I WHERE pos AND ' || member || ') ORDER BY q)
					  FROM generate_series(1, %s) q', tbl, 'q', t) INTO ans;
	SELECT array_agg(record ORDER BY record) INTO got
	  FROM tapas.reconstruct_matrix(
		format('SELECT q, id FROM generate_series(1, %s) q, %I WHERE '
			   || format(member, 'q'), t, tbl), ans, method, s);
	RETURN got IS NOT DISTINCT FROM truth;
EXCEPTION WHEN OTHERS THEN
	RETURN false;
END $$;
CREATE FUNCTION first_decoded(tbl text, n int, s int, m int, member text, method text)
RETURNS int LANGUAGE plpgsql AS $$
BEGIN
	FOR t IN 1..m LOOP
		IF decodes_at(tbl, n, s, t, member, method) THEN
			RETURN t;
		END IF;
	END LOOP;
	RETURN NULL;
END $$;
CREATE FUNCTION summary(tbl text) RETURNS TABLE (mode text, queries bigint, answered bigint,
	first_refused int, refusal text)
LANGUAGE sql AS $$
	SELECT mode, count(*), count(*) FILTER (WHERE outcome = 'answered'),
		   min(q) FILTER (WHERE outcome <> 'answered'),
		   min(outcome) FILTER (WHERE outcome <> 'answered')
	  FROM att_answers WHERE att_answers.tbl = summary.tbl GROUP BY mode ORDER BY mode $$;
-- per kind and method of alert: the logged query of the first one (none
-- for 'incomplete', which names no logged row) and how many
CREATE FUNCTION first_alerts(tbl regclass) RETURNS TABLE (kind text, method text, action text,
	at_query bigint, alerts bigint)
LANGUAGE sql AS $$
	SELECT a.kind, a.method, a.action,
		   min((SELECT count(*) FROM tapas.query_log q WHERE q.tbl = a."table"
				 AND q.role = a.role AND q.log_id <= a.log_ids[array_upper(a.log_ids, 1)]))
			 FILTER (WHERE cardinality(a.log_ids) > 0),
		   count(*)
	  FROM tapas.alerts a WHERE a."table" = tbl GROUP BY 1, 2, 3 ORDER BY 4, 2 $$;
-- pid: a permutation of the key, a quasi-identifier the attacker orders by
CREATE TABLE bchp (id int PRIMARY KEY, pid int NOT NULL, pos boolean NOT NULL);
INSERT INTO bchp SELECT g, (g * 1237) % 4096, g IN (17, 2500) FROM generate_series(1, 4095) g;
SELECT tapas.protect('bchp', 'id', ARRAY['pos'], 1947);
GRANT SELECT ON bchp TO regress_tapas_analyst, regress_tapas_analyst2;
RESET client_min_messages;

-- 1. BCH s = 2, records in the order pid = (1237 key) mod 4096 (a
-- permutation of 1..4095), with no time for the audit's decoders: from the query on
-- which a decoder could need to run, the statement is refused (TP004,
-- audit incomplete) or the record denied; in log mode an alert.
SET tapas.audit_budget_ms = 0;
SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT run_attack('bchp', 24, 'tapas.design_member(''bch'', 4095, 2, %s, pid, 2048)');
RESET SESSION AUTHORIZATION;
SELECT * FROM first_alerts('bchp');
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst2;
SELECT run_attack('bchp', 24, 'tapas.design_member(''bch'', 4095, 2, %s, pid, 2048)');
RESET SESSION AUTHORIZATION;
SELECT * FROM summary('bchp');
SELECT first_decoded('bchp', 4095, 2, 24, 'tapas.design_member(''bch'', 4095, 2, %s, pid, 2048)', 'sparse')
	   >= (SELECT first_refused FROM summary('bchp') WHERE mode = 'deny') AS refused_no_later_than_the_decoder;
-- from here on, time enough for every check: the decisions must not
-- depend on the machine's load
SET tapas.audit_budget_ms = 600000;

-- 2. Bernoulli(1/2) rows, 64 positives among 2,000 records (beyond the 32
-- that OMP covered): m = 2 s log2(n / s) = 636 queries.  Log mode: the
-- decoders on the true answers alert (binary hard-thresholding pursuit);
-- deny mode: refused from the query on which random supports of the
-- logged lower bound decode, no later than the attacker's decoder.
SET client_min_messages = warning;
SELECT mk('b64', 2000, (SELECT array_agg(g) FROM generate_series(17, 2000, 31) g));
RESET client_min_messages;
SELECT count(*) AS positives FROM b64 WHERE pos;
SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT run_attack('b64', 636, 'tapas.design_member(''bernoulli'', 2000, 10, %s, id, 0, 42)');
RESET SESSION AUTHORIZATION;
SELECT kind, method, action, at_query, alerts FROM first_alerts('b64');
-- the attacker's decoder (the LP) at the alert's query: it decodes
SELECT decodes_at('b64', 2000, 64, (SELECT at_query FROM first_alerts('b64') WHERE kind = 'reconstructed')::int,
				  'tapas.design_member(''bernoulli'', 2000, 10, %s, id, 0, 42)', 'lp') AS lp_decodes_at_alert;
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst2;
SELECT run_attack('b64', 636, 'tapas.design_member(''bernoulli'', 2000, 10, %s, id, 0, 42)');
RESET SESSION AUTHORIZATION;
SELECT * FROM summary('b64');
-- refused no later than the log-mode alert, and before it the attacker's
-- decoders fail on the design prefix
SELECT (SELECT first_refused FROM summary('b64') WHERE mode = 'deny') <=
	   (SELECT at_query FROM first_alerts('b64') WHERE kind = 'reconstructed' AND action = 'logged')
	   AS refused_no_later_than_the_alert;
SELECT decodes_at('b64', 2000, 64, (SELECT first_refused - 1 FROM summary('b64') WHERE mode = 'deny'),
				  'tapas.design_member(''bernoulli'', 2000, 10, %s, id, 0, 42)', m) AS decodes_before_refusal,
	   m AS method
  FROM unnest(ARRAY['omp', 'lp', 'bhtp']) m;
-- and on every answered query (the refused ones left out)
CREATE FUNCTION answered_decodes(tbl text, s int, member text, method text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE got bigint[];
	truth bigint[];
BEGIN
	EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %I WHERE pos', tbl) INTO truth;
	SELECT array_agg(record ORDER BY record) INTO got
	  FROM tapas.reconstruct_matrix(
		format('SELECT r, id FROM (SELECT q, row_number() OVER (ORDER BY q) AS r FROM att_answers
									WHERE tbl = %L AND mode = ''deny'' AND outcome = ''answered'') qq, %I
				 WHERE ' || format(member, 'qq.q'), tbl, tbl),
		(SELECT array_agg(a ORDER BY q) FROM att_answers b
		  WHERE b.tbl = answered_decodes.tbl AND mode = 'deny' AND outcome = 'answered'),
		method, s);
	RETURN got IS NOT DISTINCT FROM truth;
EXCEPTION WHEN OTHERS THEN
	RETURN false;
END $$;
SELECT m AS method, answered_decodes('b64', 64, 'tapas.design_member(''bernoulli'', 2000, 10, %s, id, 0, 42)', m)
	   AS decodes_from_answered
  FROM unnest(ARRAY['omp', 'lp', 'bhtp']) m;
RESET tapas.mode;

-- 3. No false refusal: a benign workload in deny mode (GROUP BY queries
-- over quasi-identifiers, every cell respecting k, as in
-- sql/45_audit_benign), with a common flag and a rare one: nothing is
-- refused but groups below k (TP002), nothing is incomplete.
SET client_min_messages = warning;
SELECT setseed(0.49);
CREATE TABLE folks (id int PRIMARY KEY, sex text NOT NULL, region int NOT NULL, edu int NOT NULL,
					band int NOT NULL, sick boolean NOT NULL, rare boolean NOT NULL);
INSERT INTO folks
SELECT g, CASE WHEN random() < 0.5 THEN 'F' ELSE 'M' END, 1 + floor(random() * 8)::int,
	   1 + floor(random() * 4)::int, floor(random() * 6)::int, random() < 0.1, random() < 0.005
  FROM generate_series(1, 1000) g;
SELECT tapas.protect('folks', 'id', ARRAY['sick', 'rare'], 10);
GRANT SELECT ON folks TO regress_tapas_analyst2;
CREATE TABLE folks_workload (n int PRIMARY KEY, sql text NOT NULL);
INSERT INTO folks_workload
SELECT n, format('SELECT %s, count(*) FILTER (WHERE sick), count(*) FILTER (WHERE rare) FROM folks WHERE band BETWEEN %s AND %s GROUP BY %s',
				 g, lo, lo + span, g)
  FROM (SELECT n, (ARRAY['sex', 'region', 'edu', 'band', 'sex, edu', 'region, sex', 'edu, band'])[1 + floor(random() * 7)::int] AS g,
			   floor(random() * 4)::int AS lo, 1 + floor(random() * 3)::int AS span
		  FROM generate_series(1, 200) n) w;
GRANT SELECT ON folks_workload TO regress_tapas_analyst2;
CREATE TABLE folks_done (n int, outcome text);
GRANT ALL ON folks_done TO regress_tapas_analyst2;
RESET client_min_messages;
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst2;
DO $$
DECLARE r record;
BEGIN
	FOR r IN SELECT * FROM folks_workload ORDER BY n LOOP
		BEGIN
			EXECUTE r.sql;
			INSERT INTO folks_done VALUES (r.n, 'answered');
		EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP002' OR SQLSTATE 'TP004' THEN
			INSERT INTO folks_done VALUES (r.n, SQLSTATE);
		END;
	END LOOP;
END $$;
RESET SESSION AUTHORIZATION;
SELECT outcome, count(*) >= 1 AS some FROM folks_done GROUP BY 1 ORDER BY 1;
SELECT count(*) AS answered_at_least_150 FROM folks_done WHERE outcome = 'answered' HAVING count(*) >= 150;
SELECT count(*) AS alerts FROM tapas.alerts WHERE "table" = 'folks'::regclass;
RESET tapas.mode;
RESET tapas.audit_budget_ms;
RESET tapas.progress_interval;
\i sql/fixtures/release_ledger.sql
