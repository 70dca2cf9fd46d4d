-- One key-collecting capture per covered set (issue 12, session 7): the
-- statistics of one query level whose captures have the same FILTER (the
-- same covered set in every group) share one capture aggregate, which
-- collects the group's keys once and the answer of each statistic beside
-- them.  What is logged must not change: this workload's ledger (every
-- cell's statistic, answer, covered count and keys), its alerts and its
-- refusals are those of the build before the change (this file's expected
-- output was made by it, commit a7b31e7; since 0.3's windows over the
-- groups of an aggregate query, case 12 is answered and logs its 40 cells,
-- so the digests below are those of a7b31e7's ledger plus those cells),
-- spelled to try the covers that
-- must stay apart: FILTERs that differ, count(x) over a column with NULLs
-- (its cover shrinks), sums over NULLs, DISTINCT, grouping sets, HAVING,
-- sub-queries, window functions, parameters, a sensitive grouping key,
-- split conditions and parallel plans.
SET client_min_messages = warning;
CREATE TABLE shr (id int PRIMARY KEY, g int NOT NULL, band int NOT NULL, nz int,
				  rare bool NOT NULL, income int, score float8);
INSERT INTO shr
SELECT i, i % 20, (i / 7) % 6, CASE WHEN i % 11 = 0 THEN NULL ELSE i % 5 END, i % 13 = 0,
	   CASE WHEN i % 9 = 0 THEN NULL ELSE (i * 7919) % 1000 END,
	   CASE WHEN i % 4 = 0 THEN NULL ELSE ((i * 31) % 200) / 8.0 END
  FROM generate_series(1, 2400) i;
ANALYZE shr;
SELECT tapas.protect('shr', 'id', ARRAY['rare', 'income', 'score'], 5);
GRANT SELECT ON shr TO regress_tapas_analyst;
RESET client_min_messages;
-- the ledger of shr: its cells in log order (statistic, answer, keys) as
-- one digest, the same without the order, and a summary per statistic
CREATE FUNCTION shr_ledger(OUT cells bigint, OUT ordered text, OUT unordered text)
LANGUAGE sql AS $$
	SELECT count(*),
		   md5(string_agg(format('%s|%s|%s', statistic, answer, keys), ';' ORDER BY log_id)),
		   md5(string_agg(format('%s|%s|%s', statistic, answer, keys), ';'
						  ORDER BY statistic, answer, keys::text))
	  FROM tapas.query_matrix('shr') $$;
CREATE FUNCTION shr_statistics()
RETURNS TABLE (statistic text, cells bigint, answers float8, covered bigint)
LANGUAGE sql AS $$
	SELECT statistic, count(*), sum(answer), sum(cardinality(keys))
	  FROM tapas.query_matrix('shr') GROUP BY statistic ORDER BY statistic $$;

SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
-- 1. the scale benchmark's g20: two statistics over each group's rows
SELECT g, count(*) FILTER (WHERE rare), sum(income) FROM shr GROUP BY g ORDER BY g LIMIT 3;
-- 2. one covered set, five statistics, avg and variance among them
SELECT count(*), count(income), sum(income), avg(income), count(*) FILTER (WHERE rare),
	   round(variance(score)::numeric, 6) AS var
  FROM shr WHERE band < 3;
-- 3. FILTERs that differ, and ones that repeat
SELECT g, count(*) FILTER (WHERE band = 1) AS b1, count(*) FILTER (WHERE band = 2) AS b2,
	   sum(income) FILTER (WHERE band = 1) AS s1, count(*) FILTER (WHERE rare AND band = 1) AS r1,
	   sum(income) FILTER (WHERE band = 2 AND rare) AS s2r
  FROM shr GROUP BY g ORDER BY g LIMIT 3;
-- 4. count(x) of a column with NULLs shrinks its cover; count(*) does not
SELECT g, count(nz), count(*), sum(income), sum(nz) FROM shr GROUP BY g ORDER BY g LIMIT 3;
-- 5. sums over NULLs
SELECT band, sum(score), count(score), round(stddev(income)::numeric, 6) AS sd,
	   sum(CASE WHEN nz = 1 THEN income END) AS nz1, sum(CASE WHEN rare THEN score ELSE 1 END) AS mix
  FROM shr GROUP BY band ORDER BY band;
-- 6. DISTINCT, min, max
SELECT g, count(DISTINCT band), min(band), max(band), count(*) FROM shr GROUP BY g ORDER BY g LIMIT 3;
-- 7. grouping sets
SELECT g, band, count(*) FILTER (WHERE rare), sum(income)
  FROM shr WHERE g < 3 GROUP BY GROUPING SETS ((g), (band), ()) ORDER BY g, band;
-- 8. a sensitive WHERE with GROUP BY (the hidden group-existence count)
SELECT g, count(*), sum(income) FROM shr WHERE rare GROUP BY g ORDER BY g LIMIT 3;
-- 9. HAVING, and the same count in SELECT and HAVING
SELECT g, sum(income) FROM shr GROUP BY g HAVING count(*) > 119 ORDER BY g;
SELECT g, count(*), count(*) + 1, sum(income) FROM shr GROUP BY g HAVING count(*) >= 5
 ORDER BY g LIMIT 2;
-- 10. split conditions (non-sensitive and sensitive atoms in one FILTER)
SELECT count(*) FILTER (WHERE rare OR band = 2) AS a, sum(income) FILTER (WHERE band > 2 OR income > 500) AS b,
	   count(*) FILTER (WHERE band = 99 OR rare) AS c, count(*)
  FROM shr;
-- 11. sub-queries
SELECT * FROM (SELECT g, count(*) AS c, sum(income) AS s FROM shr GROUP BY g) x
 WHERE c > 0 ORDER BY g LIMIT 2;
SELECT (SELECT count(*) FROM shr WHERE rare) AS r, (SELECT sum(income) FROM shr WHERE band = 1) AS s;
-- 12. a window function over the aggregates
SELECT g, count(*), sum(sum(income)) OVER () FROM shr GROUP BY g ORDER BY g LIMIT 2;
-- 13. parameters
PREPARE p(int) AS
SELECT g, count(*) FILTER (WHERE income > $1), sum(income) FROM shr WHERE band <> $1 % 6
 GROUP BY g ORDER BY g LIMIT 2;
EXECUTE p(300);
EXECUTE p(400);
DEALLOCATE p;
-- 14. a sensitive grouping key
SELECT g, rare, count(*), sum(income) FROM shr WHERE g < 2 GROUP BY g, rare ORDER BY g, rare;
-- 15. parallel plans
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT g, count(*) FILTER (WHERE rare), sum(income), avg(score) FROM shr GROUP BY g ORDER BY g LIMIT 2;
SELECT count(*) FILTER (WHERE band = 1), sum(income) FILTER (WHERE band = 1), sum(income) FROM shr;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
-- 16. a difference attack (alerts in log mode)
SELECT sum(income) FROM shr WHERE band < 5;
SELECT sum(income), count(*) FROM shr WHERE band < 5 AND id <> 8;
RESET SESSION AUTHORIZATION;
SELECT * FROM shr_ledger();
SELECT * FROM shr_statistics();
SELECT record_key, kind, method, action FROM tapas.alert_records
 WHERE "table" = 'shr'::regclass ORDER BY alert_id, record_key;

-- 17. deny mode: the same attack on another record is refused, and what
-- is answered is logged as before
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(income), count(*) FILTER (WHERE rare) FROM shr WHERE band > 0;
SELECT sum(income), count(*) FILTER (WHERE rare) FROM shr WHERE band > 0 AND id <> 10;
\echo :LAST_ERROR_SQLSTATE
SELECT g, count(*) FILTER (WHERE rare), sum(income) FROM shr WHERE id <> 10 GROUP BY g
 ORDER BY g LIMIT 1;
\echo :LAST_ERROR_SQLSTATE
-- ordered-set aggregates stay refused
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY income) FROM shr;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS cells FROM tapas.query_log WHERE tbl = 'shr'::regclass;
SELECT * FROM shr_ledger();
SELECT statistic, answer, cardinality(keys) AS covered FROM tapas.query_matrix('shr')
 WHERE log_id > (SELECT max(log_id) - 4 FROM tapas.query_log) ORDER BY log_id;
