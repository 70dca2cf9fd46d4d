-- tapas demo: the article's hospital, attacked in plain SQL; run by test/demo.
-- Usage: psql -v svg=/path/to/disclosure.svg -f test/demo.sql
\pset footer off
\if :{?svg}
\else
\set svg /tmp/tapas-disclosure.svg
\endif
SET client_min_messages = warning;
SET tapas.allow_drop_with_protections = on;	-- a rerun: the last run left tables protected
DROP EXTENSION IF EXISTS tapas CASCADE;
RESET tapas.allow_drop_with_protections;
CREATE EXTENSION tapas;
DO $$
BEGIN
	CREATE ROLE demo_analyst LOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
DO $$
BEGIN
	CREATE ROLE demo_analyst2 LOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
RESET client_min_messages;
\echo '== tapas is preloaded; the audit mode is locked for analysts'
SHOW shared_preload_libraries;
SHOW tapas.mode;

\echo
\echo '== The hospital: 100,000 patients, one with a rare disease; answers must cover k = 50,000'
-- the tables of README.md's examples, among them the hospital (test/data/hospital.sql)
\i test/fixtures/readme.sql
SELECT tapas.protect('patients', 'id', ARRAY['rare_disease'], 50000) \gset
GRANT SELECT ON patients TO demo_analyst, demo_analyst2;
SELECT count(*) AS patients, min(birth_year) AS born_from, max(birth_year) AS born_to,
	   count(DISTINCT zip) AS zips, count(DISTINCT ward) AS wards FROM patients;
SET client_min_messages = warning;
DROP TABLE IF EXISTS demo_answers;
RESET client_min_messages;
CREATE TABLE demo_answers (attacker text, q int, answer numeric, refused boolean DEFAULT false);
GRANT ALL ON demo_answers TO PUBLIC;

-- the attack, in plain SQL: one COUNT per BCH design query, the design in
-- the WHERE clause; a refused query is noted and the attack goes on
CREATE OR REPLACE PROCEDURE demo_bch_attack() LANGUAGE plpgsql AS $$
DECLARE a numeric;
BEGIN
	FOR q IN 1..tapas.design_size('bch', 100000, 1, 50000) LOOP
		BEGIN
			SELECT count(*) FILTER (WHERE rare_disease) INTO a FROM patients
			 WHERE tapas.design_member('bch', 100000, 1, q, id, 50000);
			INSERT INTO demo_answers VALUES (current_user, q, a);
		EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
			INSERT INTO demo_answers VALUES (current_user, q, NULL, true);
		END;
	END LOOP;
END $$;
-- alerts of a table with the number of the attacker's query that raised them
-- (one alert per statement; nrecords: how many records it isolates)
CREATE OR REPLACE FUNCTION demo_alerts(tbl regclass) RETURNS TABLE (role text, at_query bigint,
	record_key bigint, nrecords int, kind text, method text, action text)
LANGUAGE sql AS $$
	SELECT a.role, (SELECT count(*) FROM tapas.query_log l WHERE l.tbl = a."table" AND l.role = a.role
					  AND l.log_id <= a.log_ids[array_upper(a.log_ids, 1)])
					 + CASE WHEN a.action = 'denied' THEN 1 ELSE 0 END,
		   a.record_key, a.nrecords, a.kind, a.method, a.action
	  FROM tapas.alerts a WHERE a."table" = tbl ORDER BY a.alert_id $$;

\echo
\echo '== 1. The BCH attack, tapas.mode = log: 18 COUNT queries, each covering >= 50,000 patients'
SET tapas.mode = log;
SET SESSION AUTHORIZATION demo_analyst;
SELECT clock_timestamp() AS t0 \gset
CALL demo_bch_attack();
SELECT format('-- the 18 audited queries took %s s', round(extract(epoch FROM clock_timestamp() - :'t0')::numeric, 2)) AS took \gset
\echo :took
\echo '-- the attacker decodes the 18 answers:'
SELECT record AS recovered_patient FROM tapas.reconstruct('bch', 100000,
	(SELECT array_agg(answer ORDER BY q) FROM demo_answers WHERE attacker = 'demo_analyst'), 1, 50000);
RESET SESSION AUTHORIZATION;
\echo '-- after each answer: how many patients could still be the one (consistent with the answers so far)'
\echo '-- and what tapas did: it alerts as soon as fewer than tapas.min_candidates = 10 are left'
CREATE TEMP TABLE sig AS
SELECT id, string_agg(CASE WHEN tapas.design_member('bch', 100000, 1, q, id, 50000) THEN '1' ELSE '0' END, '' ORDER BY q) AS s
  FROM patients, generate_series(1, 18) q GROUP BY id;
WITH ans AS (SELECT string_agg(answer::text, '' ORDER BY q) AS s FROM demo_answers WHERE attacker = 'demo_analyst')
SELECT t AS query, substr(ans.s, t, 1) AS answer,
	   (SELECT count(*) FROM sig WHERE left(sig.s, t) = left(ans.s, t)) AS candidates_left,
	   coalesce((SELECT string_agg(kind || ' ' || record_key || ' (' || action || ')', ', ')
				   FROM demo_alerts('patients') d WHERE d.at_query = t AND d.role = 'demo_analyst'), '') AS tapas
  FROM generate_series(1, 18) t, ans ORDER BY t;
SELECT id AS the_patient FROM patients WHERE rare_disease;

\echo
\echo '== 2. The same attack by another analyst, tapas.mode = deny, audited on its own (tapas.audit_scope = role;'
\echo '   under the default scope all, the answers of section 1 count for every analyst and the patient is already disclosed)'
SET tapas.mode = deny;
SET tapas.audit_scope = role;
SET SESSION AUTHORIZATION demo_analyst2;
CALL demo_bch_attack();
\echo '-- refused queries (SQLSTATE TP001, no record or value named):'
SELECT array_agg(q ORDER BY q) AS refused FROM demo_answers WHERE attacker = 'demo_analyst2' AND refused;
\echo '-- the attacker decodes with a guess for each refused answer: two guesses, two different patients'
SELECT g AS guess,
	   (SELECT string_agg(record::text, ',') FROM tapas.reconstruct('bch', 100000,
			(SELECT array_agg(coalesce(answer, g) ORDER BY q) FROM demo_answers WHERE attacker = 'demo_analyst2'),
			1, 50000)) AS decoded
  FROM generate_series(0, 1) g;
RESET SESSION AUTHORIZATION;
\echo '-- on the answered queries alone, the sparse decoder finds no unique patient:'
DO $$
BEGIN
	PERFORM * FROM tapas.reconstruct_matrix(
		'SELECT r, id FROM (SELECT q, row_number() OVER (ORDER BY q) AS r FROM demo_answers
							 WHERE attacker = ''demo_analyst2'' AND NOT refused) qq, patients
		  WHERE tapas.design_member(''bch'', 100000, 1, qq.q, id, 50000)',
		(SELECT array_agg(answer ORDER BY q) FROM demo_answers WHERE attacker = 'demo_analyst2' AND NOT refused),
		'sparse', 1);
	RAISE NOTICE 'unique patient found (the attack succeeded)';
EXCEPTION WHEN OTHERS THEN
	RAISE NOTICE 'decoder: %', SQLERRM;
END $$;
\echo '-- the patients consistent with the answered queries when one patient is positive (at least tapas.min_candidates):'
SHOW tapas.min_candidates;
SELECT count(*) AS candidates_left FROM patients p
 WHERE NOT EXISTS (SELECT 1 FROM demo_answers d WHERE d.attacker = 'demo_analyst2' AND NOT d.refused
					 AND (d.answer = 1) <> tapas.design_member('bch', 100000, 1, d.q, p.id, 50000));
RESET tapas.audit_scope;

\echo
\echo '== 3. The Hadamard attack on a small table: 64 salaries, 64 queries of (H + J) / 2, k = 32'
SET client_min_messages = warning;
DROP TABLE IF EXISTS payroll;
CREATE TABLE payroll (id int PRIMARY KEY, dept text NOT NULL, salary int NOT NULL);
INSERT INTO payroll SELECT g, (ARRAY['ops', 'sales', 'research', 'legal'])[1 + g % 4], 3000 + (g * 7919) % 5000
  FROM generate_series(1, 64) g;
SELECT tapas.protect('payroll', 'id', ARRAY['salary'], 32) \gset
GRANT SELECT ON payroll TO demo_analyst, demo_analyst2;
RESET client_min_messages;
SET tapas.mode = log;
SET SESSION AUTHORIZATION demo_analyst;
DO $$
DECLARE a numeric;
BEGIN
	FOR q IN 1..64 LOOP
		SELECT sum(salary) INTO a FROM payroll WHERE tapas.design_member('hadamard', 64, 1, q, id, 32);
		INSERT INTO demo_answers VALUES ('hadamard', q, a);
	END LOOP;
END $$;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS salaries_the_attacker_recovers
  FROM tapas.reconstruct('hadamard', 64, (SELECT array_agg(answer ORDER BY q) FROM demo_answers WHERE attacker = 'hadamard'), 1, 32) r
  JOIN payroll p ON p.id = r.record AND p.salary = r.value;
SELECT at_query, sum(nrecords) AS records_isolated, min(kind) AS kind, min(method) AS method
  FROM demo_alerts('payroll') GROUP BY 1 ORDER BY 1;

\echo
\echo '== 4. A difference attack by the other analyst: two sums that differ in one employee, tapas.mode = deny,'
\echo '   audited on its own (under the default scope all, the Hadamard answers of section 3 have disclosed every salary)'
SET tapas.mode = deny;
SET tapas.audit_scope = role;
SET SESSION AUTHORIZATION demo_analyst2;
SELECT sum(salary) AS everyone_but_research FROM payroll WHERE dept <> 'research';
SELECT sum(salary) AS plus_employee_6 FROM payroll WHERE dept <> 'research' OR id = 6;
\echo '-- refused with SQLSTATE' :LAST_ERROR_SQLSTATE
RESET SESSION AUTHORIZATION;
RESET tapas.audit_scope;

\echo
\echo '== Report: what the DBA sees (tapas.alerts, admin only; LISTEN tapas_alert gets the ids)'
SELECT "table", role, kind, method, action, count(*) AS alerts, sum(nrecords) AS records_named
  FROM tapas.alerts WHERE "table" IN ('patients'::regclass, 'payroll'::regclass)
 GROUP BY 1, 2, 3, 4, 5 ORDER BY min(alert_id);

-- the picture: records isolated (cumulative) after each of the BCH attack's
-- 18 queries, in log mode (demo_analyst) and deny mode (demo_analyst2)
\pset format unaligned
\pset tuples_only on
\o :svg
SELECT tapas.step_svg(array_agg(name ORDER BY ord, t), array_agg(t::float8 ORDER BY ord, t),
					  array_agg(y::float8 ORDER BY ord, t), array_agg(refused ORDER BY ord, t),
					  'BCH attack on 100,000 patients (k = 50,000)', 'COUNT queries asked',
					  'patients isolated')
  FROM (SELECT r.ord, r.name, t,
			   (SELECT count(DISTINCT record_key) FROM demo_alerts('patients') d
				 WHERE d.role = r.role AND d.action <> 'denied' AND d.at_query <= t) AS y,
			   coalesce((SELECT a.refused FROM demo_answers a WHERE a.attacker = r.role AND a.q = t),
						false) AS refused
		  FROM (VALUES (1, 'demo_analyst', 'log mode'),
					   (2, 'demo_analyst2', 'deny mode')) r(ord, role, name),
			   generate_series(0, 18) t) p;
\o
\pset format aligned
\pset tuples_only off
\echo
\echo 'Picture of records isolated vs. queries answered written to' :svg
