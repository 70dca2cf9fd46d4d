-- A user generator over thousands of datasets in one call: the datasets
-- reuse one temporary training table and the generator's rows are read
-- straight from its call, so the locks a call holds until commit do not
-- grow with the number of datasets (a table per dataset filled the shared
-- lock table: "out of shared memory" after some hundreds of datasets).
\set VERBOSITY terse
-- (no progress notices: their timing varies)
SET client_min_messages = warning;
CREATE TABLE gen_aux AS
SELECT i AS id,
       (ARRAY['a','b','c'])[1 + abs(hashint4(i * 3 + 1)) % 3] AS c1,
       (ARRAY['x','y'])[1 + abs(hashint4(i * 5 + 2)) % 2] AS c2,
       abs(hashint4(i * 11 + 4)) % 3 = 0 AS c3,
       (ARRAY['p','q','r','s','t'])[1 + abs(hashint4(i * 7 + 3)) % 5] AS c4
  FROM generate_series(1, 40) i;
ALTER TABLE gen_aux ADD PRIMARY KEY (id);

-- SETOF a table type: the key column comes along and is ignored.
CREATE FUNCTION gen_copy(t regclass, n integer, seed bigint)
RETURNS SETOF gen_aux LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format('SELECT 0, c1, c2, c3, c4 FROM %s LIMIT %s', t, n);
END
$$;

-- Locks held in the transaction after a call of 4 datasets and after one
-- of 400: about the same (a table per dataset held at least 400 more; a
-- lock or two may differ with what the backend had loaded before).
CREATE TEMP TABLE gen_locks (datasets integer, locks bigint);
BEGIN;
SELECT n_train + n_test AS datasets
  FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'gen_aux', '7',
       '{"num_training_records": 8, "num_training_datasets": 2, "num_test_datasets": 2,
         "seed": 1, "generator": "gen_copy"}');
INSERT INTO gen_locks SELECT 4, count(*) FROM pg_locks WHERE pid = pg_backend_pid();
COMMIT;
BEGIN;
SELECT n_train + n_test AS datasets
  FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'gen_aux', '7',
       '{"num_training_records": 8, "num_training_datasets": 200, "num_test_datasets": 200,
         "seed": 1, "generator": "gen_copy"}');
INSERT INTO gen_locks SELECT 400, count(*) FROM pg_locks WHERE pid = pg_backend_pid();
COMMIT;
SELECT max(locks) - min(locks) < 10 AS no_growth, max(locks) < 40 AS few FROM gen_locks;

-- 2,200 datasets in one transaction, two calls: the raw generator copies
-- the training rows, so closest distance finds the unique target exactly.
SELECT (SELECT count(*) FROM gen_aux b WHERE (b.c1, b.c2, b.c3, b.c4) = (a.c1, a.c2, a.c3, a.c4)) AS copies
  FROM gen_aux a WHERE id = 7;
BEGIN;
SELECT accuracy, auc, n_train, n_test
  FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'gen_aux', '7',
       '{"num_training_records": 8, "num_training_datasets": 1000, "num_test_datasets": 1000,
         "seed": 1, "generator": "gen_copy"}');
SELECT n_train + n_test AS datasets
  FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'gen_aux', '7',
       '{"num_training_records": 8, "num_training_datasets": 100, "num_test_datasets": 100,
         "seed": 2, "generator": "gen_copy"}');
COMMIT;

-- A generator without a dataset column, or whose rows are no named row
-- type, is refused.
CREATE FUNCTION gen_missing(t regclass, n integer, seed bigint)
RETURNS TABLE (c1 text, c2 text, c4 text) LANGUAGE sql AS $$ SELECT c1, c2, c4 FROM gen_aux LIMIT n $$;
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'gen_aux', '7',
       '{"num_training_records": 8, "num_training_datasets": 2, "num_test_datasets": 2,
         "generator": "gen_missing"}');
CREATE FUNCTION gen_record(t regclass, n integer, seed bigint)
RETURNS SETOF record LANGUAGE sql AS $$ SELECT c1, c2, c3, c4 FROM gen_aux LIMIT n $$;
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'gen_aux', '7',
       '{"num_training_records": 8, "num_training_datasets": 2, "num_test_datasets": 2,
         "generator": "gen_record"}');
-- A generator returning nothing.
CREATE FUNCTION gen_empty(t regclass, n integer, seed bigint)
RETURNS SETOF gen_aux LANGUAGE sql AS $$ SELECT * FROM gen_aux WHERE false $$;
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'gen_aux', '7',
       '{"num_training_records": 8, "num_training_datasets": 2, "num_test_datasets": 2,
         "generator": "gen_empty"}');

DROP FUNCTION gen_copy, gen_missing, gen_record, gen_empty;
DROP TABLE gen_aux;
