-- tapas.rowspace_determined / tapas.rowspace_trace: the row-space test by
-- hand (Chin's criterion), on the classic attacks and on error cases.

-- Difference attack: S = records 1..5, then S plus record 6.
SELECT * FROM tapas.rowspace_trace(ARRAY[[1,1,1,1,1,0,0,0,0,0],
                                         [1,1,1,1,1,1,0,0,0,0]]);
SELECT * FROM tapas.rowspace_determined(ARRAY[[1,1,1,1,1,0,0,0,0,0],
                                              [1,1,1,1,1,1,0,0,0,0]]);
-- The first query alone determines nothing.
SELECT count(*) FROM tapas.rowspace_determined(ARRAY[[1,1,1,1,1,0,0,0,0,0]]);

-- Denning's general tracker over 20 records, T = 1..10, C = {target}:
-- queries T, not T, C or T, C or not T.  Target 5 (in T) falls at query 4;
-- target 15 (outside T) already at query 3, where C or T = T + {15}.
CREATE TEMP TABLE tracker AS
SELECT t.target, array_agg(r ORDER BY q) AS rows
  FROM (VALUES (5), (15)) t(target),
       LATERAL (SELECT q, array_agg(CASE q WHEN 1 THEN j <= 10
                                           WHEN 2 THEN j > 10
                                           WHEN 3 THEN j <= 10 OR j = t.target
                                           ELSE j > 10 OR j = t.target
                                    END::int::bigint ORDER BY j) AS r
                  FROM generate_series(1, 4) q, generate_series(1, 20) j
                 GROUP BY q) s
 GROUP BY t.target;
SELECT target, tr.* FROM tracker, LATERAL tapas.rowspace_trace(rows) tr ORDER BY target;

-- Complement of a small set: all records, then all but record 3.
SELECT * FROM tapas.rowspace_trace(ARRAY[[1,1,1,1,1,1],[1,1,0,1,1,1]]);

-- Hadamard rows (H + J) / 2 for n = 16 (Sylvester order): nothing before
-- the 16th query, every record at it.
SELECT query, count(*) AS records, min(record), max(record)
  FROM tapas.rowspace_trace((
        SELECT array_agg(r ORDER BY i)
          FROM (SELECT i, array_agg((length(replace((i & j)::bit(4)::text, '0', '')) % 2 = 0)::int::bigint
                                    ORDER BY j) AS r
                  FROM generate_series(0, 15) i, generate_series(0, 15) j
                 GROUP BY i) s))
 GROUP BY query;

-- 30 random half-size queries over 200 records determine nothing (the
-- row-space test is blind to underdetermined designs).
SELECT setseed(0.25);
SELECT count(*) FROM tapas.rowspace_determined((
        SELECT array_agg(r)
          FROM (SELECT q, array_agg((random() < 0.5)::int::bigint ORDER BY j) AS r
                  FROM generate_series(1, 30) q, generate_series(1, 200) j
                 GROUP BY q) s));

-- Errors.
\set VERBOSITY terse
SELECT * FROM tapas.rowspace_determined(ARRAY[1,0,1]::bigint[]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM tapas.rowspace_determined(ARRAY[[1,2],[0,1]]);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM tapas.rowspace_determined(ARRAY[[1,NULL],[0,1]]::bigint[]);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM tapas.rowspace_determined('{}'::bigint[]);
SELECT count(*) FROM tapas.rowspace_determined(NULL);
\set VERBOSITY default

-- Admin only: the auditor may run it, the analyst may not.
SET SESSION AUTHORIZATION regress_tapas_auditor;
SELECT * FROM tapas.rowspace_determined(ARRAY[[1,1],[0,1]]);
SET SESSION AUTHORIZATION regress_tapas_analyst;
\set VERBOSITY terse
SELECT * FROM tapas.rowspace_determined(ARRAY[[1,1],[0,1]]);
\echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
RESET SESSION AUTHORIZATION;
DROP TABLE tracker;
