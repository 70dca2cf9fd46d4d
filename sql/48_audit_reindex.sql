-- tapas.reset renumbers a table's dense index from 0.  An audit entry
-- keeps its copy of the index and takes it again from the ledger only
-- when the table's count or the ledger's reset generation changed
-- (src/ledger/snapshot.c); here the count at the entry's next sync after
-- the reset equals the count before (30 keys both times, numbered
-- differently: the keys after the reset come from a count(*), which does
-- not sync the hiv entry), so only the generation tells.  A stale copy would keep the rows of before the reset
-- and refuse the last query (records 11..29 would look like the first 19
-- of the stale row of 20); the renumbered state answers it.
SET client_min_messages = warning;
CREATE TABLE reidx (id int PRIMARY KEY, hiv boolean NOT NULL);
INSERT INTO reidx SELECT g, g % 7 = 0 FROM generate_series(1, 40) g;
SELECT tapas.protect('reidx', 'id', ARRAY['hiv'], 5) IS NULL AS protected;
GRANT SELECT ON reidx TO regress_tapas_analyst;
RESET client_min_messages;
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE hiv) AS q1 FROM reidx WHERE id <= 20;
SELECT count(*) FILTER (WHERE hiv) AS q2 FROM reidx WHERE id <= 30;
-- the reset comes from another backend (a reset in this one would drop
-- this backend's audit state of the table at once)
\setenv PGDATABASE :DBNAME
\! psql -X -qAt -c "SELECT 'removed ' || tapas.reset('reidx')"
-- the other backend's analyst logs 30 keys, numbered 0..29 from key 11
\! psql -X -qAt -c "SET tapas.mode = deny" -c "SET SESSION AUTHORIZATION regress_tapas_analyst" -c "SELECT 'q3 ' || count(*) FILTER (WHERE hiv) FROM reidx WHERE id > 10"
SELECT count(*) FILTER (WHERE hiv) AS q4 FROM reidx WHERE id BETWEEN 11 AND 29;
-- and the audit still works on the renumbered index: 29 is isolated
SELECT count(*) FILTER (WHERE hiv) AS q5 FROM reidx WHERE id BETWEEN 11 AND 28;
\echo :LAST_ERROR_SQLSTATE
RESET SESSION AUTHORIZATION;
SELECT count(*) AS logged FROM tapas.query_log WHERE tbl = 'reidx'::regclass;
RESET tapas.mode;
SELECT tapas.reset('reidx') AS removed;
SET client_min_messages = warning;
DROP TABLE reidx;
