-- No false alerts: a benign workload of GROUP BY queries over
-- quasi-identifiers, every cell respecting k, on a 1,000-row table.  The
-- auditor may alert only on records the logged rows truly determine: the
-- oracle is tapas.reconstruct_matrix(..., 'exact') on the whole logged
-- matrix of each statistic (mod-p rref with rational reconstruction,
-- independent of the incremental row-space kernel).  The sensitive flag is
-- common (about 10%), so no decoder of rare values applies.
SET client_min_messages = warning;
SELECT setseed(0.45);
CREATE TABLE people (id int PRIMARY KEY, age int NOT NULL, sex text NOT NULL,
					 region int NOT NULL, edu int NOT NULL, band int, income int NOT NULL,
					 sick boolean NOT NULL);
INSERT INTO people
SELECT g, 18 + floor(random() * 62)::int, CASE WHEN random() < 0.5 THEN 'F' ELSE 'M' END,
	   1 + floor(random() * 8)::int, 1 + floor(random() * 4)::int, NULL,
	   20000 + floor(random() * 80000)::int, random() < 0.1
  FROM generate_series(1, 1000) g;
UPDATE people SET band = age / 10;
SELECT tapas.protect('people', 'id', ARRAY['income', 'sick'], 10);
GRANT SELECT ON people TO regress_tapas_analyst;
CREATE TABLE workload (n int PRIMARY KEY, sql text NOT NULL);
INSERT INTO workload
SELECT n, format('SELECT %s, sum(income), count(*) FILTER (WHERE sick) FROM people WHERE band BETWEEN %s AND %s GROUP BY %s',
				 g, lo, lo + span, g)
  FROM (SELECT n, (ARRAY['sex', 'region', 'edu', 'band', 'sex, edu', 'region, sex', 'edu, band'])[1 + floor(random() * 7)::int] AS g,
			   1 + floor(random() * 4)::int AS lo, 1 + floor(random() * 4)::int AS span
		  FROM generate_series(1, 560) n) w;
GRANT SELECT ON workload TO regress_tapas_analyst;
CREATE TABLE workload_done (n int, ok boolean);
GRANT ALL ON workload_done TO regress_tapas_analyst;
RESET client_min_messages;

SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
DO $$
DECLARE r record;
BEGIN
	FOR r IN SELECT * FROM workload ORDER BY n LOOP
		BEGIN
			EXECUTE r.sql;
			INSERT INTO workload_done VALUES (r.n, true);
		EXCEPTION WHEN SQLSTATE 'TP002' THEN	-- a group below k: refused, not logged
			INSERT INTO workload_done VALUES (r.n, false);
		END;
	END LOOP;
END $$;
RESET SESSION AUTHORIZATION;
SELECT count(*) FILTER (WHERE ok) >= 500 AS at_least_500_answered FROM workload_done;
SELECT count(*) >= 1000 AS cells_logged FROM tapas.query_log WHERE tbl = 'people'::regclass;

-- the truth: records determined by the logged matrix of each statistic
CREATE FUNCTION determined_truth(stat text) RETURNS SETOF bigint LANGUAGE sql AS $$
	SELECT record FROM tapas.reconstruct_matrix(
		format('SELECT dense_rank() OVER (ORDER BY log_id), unnest(keys)
				  FROM tapas.query_matrix(''people'', %L)', stat),
		(SELECT array_agg(answer::numeric ORDER BY log_id) FROM tapas.query_matrix('people', stat)),
		'exact') $$;
CREATE TABLE truth AS
SELECT s.statistic, d AS record_key
  FROM (SELECT DISTINCT statistic FROM tapas.query_log WHERE tbl = 'people'::regclass) s,
	   determined_truth(s.statistic) d;
CREATE TABLE alerted AS
SELECT s.statistic, a.record_key
  FROM tapas.alert_records a, unnest(string_to_array(a.statistic, ', ')) AS s(statistic)
 WHERE a."table" = 'people'::regclass;
SELECT statistic,
	   (SELECT count(*) FROM truth t WHERE t.statistic = s.statistic) AS truly_determined,
	   (SELECT count(*) FROM alerted a WHERE a.statistic = s.statistic) AS alerts,
	   (SELECT count(*) FROM (SELECT * FROM alerted a WHERE a.statistic = s.statistic
							  EXCEPT SELECT * FROM truth) x) AS false_alerts,
	   (SELECT count(*) FROM (SELECT * FROM truth t WHERE t.statistic = s.statistic
							  EXCEPT SELECT * FROM alerted) x) AS missed
  FROM (SELECT DISTINCT statistic FROM tapas.query_log WHERE tbl = 'people'::regclass) s
 ORDER BY 1;
SELECT count(*) AS reconstructed_alerts FROM tapas.alerts
 WHERE "table" = 'people'::regclass AND kind = 'reconstructed';
RESET tapas.mode;
\i sql/fixtures/release_ledger.sql
