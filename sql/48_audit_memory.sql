-- tapas.audit_memory bounds one backend's audit state of one (table, audit
-- scope), counted on what it holds (src/audit/state_memory.c): a state
-- that reaches it fails closed (TP004 in deny mode, the reason in the
-- alert), a smaller table's state under the same bound is audited, and a
-- raised bound rebuilds the state from the ledger.
SET client_min_messages = warning;
CREATE TABLE mem_big (id int PRIMARY KEY, hiv boolean NOT NULL);
INSERT INTO mem_big SELECT g, g % 7 = 0 FROM generate_series(1, 30000) g;
CREATE TABLE mem_small (id int PRIMARY KEY, hiv boolean NOT NULL);
INSERT INTO mem_small SELECT g, g % 7 = 0 FROM generate_series(1, 300) g;
SELECT tapas.protect('mem_big', 'id', ARRAY['hiv'], 10) IS NULL AS protected;
SELECT tapas.protect('mem_small', 'id', ARRAY['hiv'], 10) IS NULL AS protected;
GRANT SELECT ON mem_big, mem_small TO regress_tapas_analyst;
RESET client_min_messages;
SHOW tapas.audit_memory;

-- the row space of 15,000 records alone holds more than 1 MB (about 80
-- bytes per record): refused; 150 records fit
SET tapas.mode = deny;
SET tapas.audit_memory = '1MB';
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE hiv) AS big FROM mem_big WHERE id <= 15000;
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FILTER (WHERE hiv) AS small FROM mem_small WHERE id <= 150;
-- an audited role cannot raise its own bound
SET tapas.audit_memory = '1GB';
\echo :LAST_ERROR_SQLSTATE
-- still closed: the state is not rebuilt under the same bound
SELECT count(*) FILTER (WHERE hiv) AS big FROM mem_big WHERE id <= 15000;
\echo :LAST_ERROR_SQLSTATE
RESET SESSION AUTHORIZATION;
SELECT kind, action, detail FROM tapas.alerts
 WHERE "table" = 'mem_big'::regclass ORDER BY alert_id;

-- raised: the state is rebuilt and the same query is answered, and the
-- audit goes on (the difference that isolates record 15000 is refused)
SET tapas.audit_memory = '64MB';
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE hiv) AS big FROM mem_big WHERE id <= 15000;
SELECT count(*) FILTER (WHERE hiv) AS big FROM mem_big WHERE id <= 14999;
\echo :LAST_ERROR_SQLSTATE
RESET SESSION AUTHORIZATION;
SELECT count(*) AS logged FROM tapas.query_log WHERE tbl = 'mem_big'::regclass;
RESET tapas.audit_memory;
RESET tapas.mode;
SELECT tapas.reset('mem_big') > 0 AS reset_big, tapas.reset('mem_small') > 0 AS reset_small;
SET client_min_messages = warning;
DROP TABLE mem_big, mem_small;
