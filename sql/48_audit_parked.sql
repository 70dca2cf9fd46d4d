-- A statement's row-space trial is kept (parked) after its audit and
-- committed at the next sync only if the ledger holds exactly what was
-- tried (src/audit/parked.c); otherwise it is rolled back and the sync adds
-- what the ledger holds.  Each case below goes wrong if the wrong path is
-- taken: a refused statement's rows kept would make its repetition look
-- dependent (answered); rows logged by others after a parked statement
-- must still be synced on top of it (and alerted).
SET client_min_messages = warning;
CREATE TABLE parked_t (id int PRIMARY KEY, grp int NOT NULL, hiv boolean NOT NULL);
INSERT INTO parked_t SELECT g, g % 10, g % 7 = 0 FROM generate_series(1, 400) g;
SELECT tapas.protect('parked_t', 'id', ARRAY['hiv'], 10) IS NULL AS protected;
GRANT SELECT ON parked_t TO regress_tapas_analyst;
RESET client_min_messages;
CREATE FUNCTION parked_alerts()
RETURNS TABLE (record_key bigint, kind text, method text, action text)
LANGUAGE sql AS $$
	SELECT a.record_key, a.kind, a.method, a.action
	  FROM tapas.alert_records a WHERE a."table" = 'parked_t'::regclass
	 ORDER BY a.alert_id, a.record_key $$;

-- 1. deny: a difference refused twice (the refused trial is rolled back,
--    not committed), while a GROUP BY in between is answered and kept
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE hiv) >= 0 AS q1 FROM parked_t WHERE id <= 150;
SELECT count(*) FILTER (WHERE hiv) >= 0 AS q2 FROM parked_t WHERE id <= 149;
SELECT count(*) FILTER (WHERE hiv) >= 0 AS q2_again FROM parked_t WHERE id <= 149;
SELECT grp, count(*) FILTER (WHERE hiv) >= 0 AS q3 FROM parked_t GROUP BY grp ORDER BY grp LIMIT 2;
SELECT count(*) FILTER (WHERE hiv) >= 0 AS q2_after_q3 FROM parked_t WHERE id <= 149;
-- the kept trials are the logged rows: the GROUP BY again is dependent
SELECT count(*) AS q3_again FROM (SELECT grp, count(*) FILTER (WHERE hiv) FROM parked_t GROUP BY grp) x;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS logged FROM tapas.query_log WHERE tbl = 'parked_t'::regclass;
SELECT record_key, kind, action FROM parked_alerts();

-- 2. rows logged by someone else after a parked statement: the analyst's
--    next statement takes them on top of its own (and alerts what they
--    determine together: record 300)
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE hiv) >= 0 AS q4 FROM parked_t WHERE id > 150 AND id <= 300;
RESET SESSION AUTHORIZATION;
SELECT tapas.ledger_record('parked_t', 'count(*) filter (where hiv)', 0,
						   ARRAY(SELECT generate_series(151, 299)::bigint)) > 0 AS recorded;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE hiv) >= 0 AS q5 FROM parked_t WHERE id > 300;
RESET SESSION AUTHORIZATION;
SELECT record_key, kind, method, action FROM parked_alerts() WHERE record_key = 300;
RESET tapas.mode;
