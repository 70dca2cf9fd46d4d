-- The auditor on the classic exact attacks: a difference attack, the
-- complement of a small set and Denning's general tracker.  Each is caught
-- at the query that determines a record (log mode) and refused there (deny
-- mode); the refused answer is neither sent nor logged.
SET client_min_messages = warning;
CREATE TABLE staff (id int PRIMARY KEY, dept int NOT NULL, salary int NOT NULL, hiv boolean NOT NULL);
INSERT INTO staff SELECT g, g % 10, 3000 + (g * 7919) % 4000, g % 97 = 0
  FROM generate_series(1, 1000) g;
SELECT tapas.protect('staff', 'id', ARRAY['salary', 'hiv'], 100);
GRANT SELECT ON staff TO regress_tapas_analyst;
RESET client_min_messages;
-- the alerts on a table, with the number of the analyst's query (one cell
-- each) that raised them: the newest log_id of the alert among the table's
-- logged cells (for a refused query: the last logged one before it)
CREATE FUNCTION alerts_on(tbl regclass)
RETURNS TABLE (at_query bigint, record_key bigint, kind text, method text, action text)
LANGUAGE sql AS $$
	SELECT (SELECT count(*) FROM tapas.query_log q
			 WHERE q.tbl = a."table" AND q.log_id <= a.log_ids[array_upper(a.log_ids, 1)]),
		   a.record_key, a.kind, a.method, a.action
	  FROM tapas.alert_records a WHERE a."table" = tbl ORDER BY a.alert_id, a.record_key $$;

-- 1. Difference attack, log mode: two sums differing in record 501.
SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(salary) > 0 AS q1 FROM staff WHERE id <= 500;
SELECT count(*) AS no_alert_yet FROM (SELECT 1) x;
SELECT sum(salary) > 0 AS q2 FROM staff WHERE id <= 501;
RESET SESSION AUTHORIZATION;
SELECT * FROM alerts_on('staff');
-- the alert survives the analyst's ROLLBACK: the ledger and alerts are
-- outside the transaction
SET SESSION AUTHORIZATION regress_tapas_analyst;
BEGIN;
SELECT sum(salary) > 0 AS q3 FROM staff WHERE id <= 700;
SELECT sum(salary) > 0 AS q4 FROM staff WHERE id <= 700 AND id <> 650;
ROLLBACK;
RESET SESSION AUTHORIZATION;
SELECT * FROM alerts_on('staff');

-- 2. Deny mode: the same attack on another record is refused at its second
-- query, with TP001 and no record or value named; nothing is logged.
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(salary) > 0 AS q5 FROM staff WHERE id > 800;
SELECT sum(salary) FROM staff WHERE id > 799;
\echo :LAST_ERROR_SQLSTATE
-- a query that isolates nothing is still answered
SELECT sum(salary) > 0 AS q6 FROM staff WHERE id > 600;
RESET SESSION AUTHORIZATION;
SELECT * FROM alerts_on('staff');
SELECT count(*) AS logged_cells FROM tapas.query_log WHERE tbl = 'staff'::regclass;

-- 3. Complement of a small set: the total, then everyone but one record.
CREATE TABLE staff2 AS SELECT * FROM staff;
ALTER TABLE staff2 ADD PRIMARY KEY (id);
SELECT tapas.protect('staff2', 'id', ARRAY['salary', 'hiv'], 100);
GRANT SELECT ON staff2 TO regress_tapas_analyst;
SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE hiv) AS q1 FROM staff2;
SELECT count(*) FILTER (WHERE hiv) AS q2 FROM staff2 WHERE id <> 194;
RESET SESSION AUTHORIZATION;
SELECT * FROM alerts_on('staff2');

-- 4. Denning's general tracker: T = dept < 5, C = (dept = 2 AND id < 3)
-- inside T: queries T, not T, C or T (= T), C or not T.  Only the fourth
-- determines the record of C (id 2); a reconnect in between changes
-- nothing, the audit is per role across sessions.
CREATE TABLE staff3 AS SELECT * FROM staff;
ALTER TABLE staff3 ADD PRIMARY KEY (id);
SELECT tapas.protect('staff3', 'id', ARRAY['salary', 'hiv'], 100);
GRANT SELECT ON staff3 TO regress_tapas_analyst;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(salary) > 0 AS t FROM staff3 WHERE dept < 5;
SELECT sum(salary) > 0 AS not_t FROM staff3 WHERE NOT dept < 5;
SELECT sum(salary) > 0 AS c_or_t FROM staff3 WHERE (dept = 2 AND id < 3) OR dept < 5;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS alerts_after_3 FROM alerts_on('staff3');
\c
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(salary) FROM staff3 WHERE (dept = 2 AND id < 3) OR NOT dept < 5;
\echo :LAST_ERROR_SQLSTATE
RESET SESSION AUTHORIZATION;
SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(salary) > 0 AS c_or_not_t FROM staff3 WHERE (dept = 2 AND id < 3) OR NOT dept < 5;
RESET SESSION AUTHORIZATION;
SELECT * FROM alerts_on('staff3');

-- 5. Statistics of quasi-identifiers are not audited: count(*) and sum(dept)
-- differences reveal nothing sensitive.
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*), sum(dept) FROM staff3 WHERE id <= 300;
SELECT count(*), sum(dept) FROM staff3 WHERE id <= 301;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS alerts_on_qi FROM tapas.alerts WHERE "table" = 'staff3'::regclass
   AND statistic NOT LIKE '%salary%';

-- 6. The on-demand audit finds the same records from the ledger.
SELECT role, statistic, record_key, kind, method FROM tapas.audit('staff') ORDER BY 2, 3;
SELECT role, statistic, record_key, kind, method FROM tapas.audit('staff3') ORDER BY 2, 3;
-- and the one-positive candidates test (log mode alerts it at the query
-- that leaves 7 candidates, fewer than tapas.min_candidates = 10; no row
-- determines a record and no decoder singles it out)
SET client_min_messages = warning;
CREATE TABLE cand1 (id int PRIMARY KEY, rare boolean NOT NULL);
INSERT INTO cand1 SELECT g, g = 123 FROM generate_series(1, 400) g;
SELECT tapas.protect('cand1', 'id', ARRAY['rare'], 5);
GRANT SELECT ON cand1 TO regress_tapas_analyst;
RESET client_min_messages;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE rare) AS half FROM cand1 WHERE id <= 200;
SELECT count(*) FILTER (WHERE rare) AS seven FROM cand1 WHERE id BETWEEN 120 AND 126;
RESET SESSION AUTHORIZATION;
SELECT * FROM alerts_on('cand1');
SELECT role, statistic, record_key, kind, method, detail FROM tapas.audit('cand1') ORDER BY 2, 3;

-- 7. Audited roles cannot read alerts or run the audit.
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM tapas.alerts;
SELECT * FROM tapas.alerts_raw();
SELECT * FROM tapas.audit('staff');
RESET SESSION AUTHORIZATION;
-- an admin (not superuser) may
SET SESSION AUTHORIZATION regress_tapas_auditor;
SELECT count(*) > 0 AS admin_reads FROM tapas.alerts WHERE "table" = 'staff'::regclass;
RESET SESSION AUTHORIZATION;
SELECT tapas.audit(NULL);

-- 8. warn mode: the answer is sent, with a WARNING naming only the table
CREATE TABLE staff4 AS SELECT * FROM staff;
ALTER TABLE staff4 ADD PRIMARY KEY (id);
SELECT tapas.protect('staff4', 'id', ARRAY['salary', 'hiv'], 100);
GRANT SELECT ON staff4 TO regress_tapas_analyst;
SET tapas.mode = warn;
\set VERBOSITY terse
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(salary) > 0 AS q1 FROM staff4 WHERE id <= 300;
SELECT sum(salary) > 0 AS q2 FROM staff4 WHERE id <= 301;
RESET SESSION AUTHORIZATION;
\set VERBOSITY default
SELECT * FROM alerts_on('staff4');

-- 9. after tapas.reset the same session starts from an empty ledger: the
-- first sum alone isolates nothing, the second does again
SELECT tapas.reset('staff4') > 0 AS reset;
SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(salary) > 0 AS q1_again FROM staff4 WHERE id <= 300;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS alerts_after_q1 FROM tapas.alerts WHERE "table" = 'staff4'::regclass;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(salary) > 0 AS q2_again FROM staff4 WHERE id <= 301;
RESET SESSION AUTHORIZATION;
SELECT record_key, kind, action FROM tapas.alert_records WHERE "table" = 'staff4'::regclass ORDER BY alert_id, record_key;
RESET tapas.mode;
