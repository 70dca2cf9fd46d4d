-- tapas.evaluate and tapas.evaluate_scores: shadow modelling, Groundhog
-- and the score-based attacks under the targeted MIA/AIA threat models.
\set VERBOSITY terse

-- A deterministic 600-row auxiliary table of five categorical columns.
CREATE TABLE shadow_aux AS
SELECT i AS id,
       (ARRAY['a','b','c'])[1 + abs(hashint4(i * 3 + 1)) % 3] AS c1,
       (ARRAY['x','y'])[1 + abs(hashint4(i * 5 + 2)) % 2] AS c2,
       (ARRAY['p','q','r','s'])[1 + abs(hashint4(i * 7 + 3)) % 4] AS c3,
       abs(hashint4(i * 11 + 4)) % 3 = 0 AS c4,
       (ARRAY['u','v','w'])[1 + abs(hashint4(i * 13 + 5)) % 3] AS c5
  FROM generate_series(1, 600) i;
ALTER TABLE shadow_aux ADD PRIMARY KEY (id);

-- Record 31 is unique in the table; record 7 is not.
SELECT (SELECT count(*) FROM shadow_aux b WHERE (b.c1, b.c2, b.c3, b.c4, b.c5) =
        (a.c1, a.c2, a.c3, a.c4, a.c5)) AS copies
  FROM shadow_aux a WHERE id IN (7, 31) ORDER BY id;

\set p '{"num_training_records": 100, "num_training_datasets": 200, "num_test_datasets": 100, "seed": 1}'

-- Shadow modelling with random targeted queries finds the unique target
-- in raw synthetic data; so do the random forest and logistic regression.
SELECT accuracy, auc, n_train, n_test, n_pos, n_neg, n_features
  FROM tapas.evaluate('targeted_mia', 'shadow_modelling', 'shadow_aux', '31',
       :'p'::jsonb || '{"features": ["queries"], "order": [2, 3, 5], "number": [10, 10, 1]}');
SELECT accuracy, auc
  FROM tapas.evaluate('targeted_mia', 'shadow_modelling', 'shadow_aux', '31',
       :'p'::jsonb || '{"features": ["queries"], "order": [2, 3], "number": 10,
                        "classifier": "logistic_regression"}');

-- Groundhog (naive + hist + corr, random forest): weaker, above chance.
SELECT accuracy > 0.5 AS above_chance, round(auc::numeric, 2) > 0.6 AS auc_above_06,
       n_features
  FROM tapas.evaluate('targeted_mia', 'groundhog', 'shadow_aux', '31', :'p');

-- Deterministic: the same seed gives the same scores, another seed others.
SELECT count(*) AS same_rows
  FROM tapas.evaluate_scores('targeted_mia', 'groundhog', 'shadow_aux', '31', :'p') a
  JOIN tapas.evaluate_scores('targeted_mia', 'groundhog', 'shadow_aux', '31', :'p') b
 USING (dataset_no, label, score);
SELECT count(*) < 100 AS seed_matters
  FROM tapas.evaluate_scores('targeted_mia', 'groundhog', 'shadow_aux', '31', :'p') a
  JOIN tapas.evaluate_scores('targeted_mia', 'groundhog', 'shadow_aux', '31',
       :'p'::jsonb || '{"seed": 2}') b
 USING (dataset_no, label, score);

-- Per-dataset scores: balanced pairs, closest distance 0 iff the target is in.
SELECT dataset_no, label, score
  FROM tapas.evaluate_scores('targeted_mia', 'closest_distance_mia', 'shadow_aux', '31',
       '{"num_training_records": 100, "num_training_datasets": 4, "num_test_datasets": 6, "seed": 1}')
 ORDER BY dataset_no;

-- Score-based attacks on the same datasets: threshold trained on the
-- training datasets, metrics on the test ones.
SELECT accuracy, tpr, fpr, advantage, auc, tpr_at_fpr_01, threshold
  FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'shadow_aux', '31', :'p');
SELECT accuracy, threshold
  FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'shadow_aux', '31',
       :'p'::jsonb || '{"criterion": "threshold", "criterion_value": 0}');
SELECT round(accuracy::numeric, 2) AS accuracy, round(auc::numeric, 2) AS auc
  FROM tapas.evaluate('targeted_mia', 'local_neighbourhood_mia', 'shadow_aux', '31',
       :'p'::jsonb || '{"radius": 1}');
-- On three columns only, the target is no longer unique: near chance.
SELECT accuracy, auc
  FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'shadow_aux', '31',
       :'p'::jsonb || '{"distance": {"type": "lp", "p": 1, "columns": ["c1", "c2", "c3"]}}');
SELECT round(auc::numeric, 2) > 0.6 AS auc_above_06
  FROM tapas.evaluate('targeted_mia', 'probability_estimation_mia', 'shadow_aux', '31', :'p');

-- The marginals generator breaks the links between columns: the exact
-- record no longer leaks through closest distance.
SELECT round(accuracy::numeric, 2) AS accuracy, round(auc::numeric, 2) AS auc
  FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'shadow_aux', '31',
       :'p'::jsonb || '{"generator": "marginals"}');

-- Attribute inference (sensitive value randomised between two values).
SELECT accuracy, auc
  FROM tapas.evaluate('targeted_aia', 'closest_distance_aia', 'shadow_aux', '31',
       :'p'::jsonb || '{"sensitive": "c2"}');
SELECT n_pos + n_neg AS n, accuracy > 0.5 AS above_chance
  FROM tapas.evaluate('targeted_aia', 'shadow_modelling', 'shadow_aux', '31',
       :'p'::jsonb || '{"sensitive": "c3", "values": ["p", "s"], "features": ["queries"],
                        "order": [2, 3], "number": 10}');
SELECT round(auc::numeric, 2) > 0.5 AS auc_above_05
  FROM tapas.evaluate('targeted_aia', 'synthetic_predictor_aia', 'shadow_aux', '31',
       :'p'::jsonb || '{"sensitive": "c2"}');

-- A user generator: fn(training regclass, num_rows integer, seed bigint).
CREATE FUNCTION shadow_first_rows(t regclass, n integer, seed bigint)
RETURNS TABLE (c1 text, c2 text, c3 text, c4 boolean, c5 text)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format('SELECT c1, c2, c3, c4, c5 FROM %s LIMIT %s', t, n);
END
$$;
SELECT accuracy, auc
  FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'shadow_aux', '31',
       '{"num_training_records": 100, "num_training_datasets": 10, "num_test_datasets": 10,
         "seed": 1, "generator": "shadow_first_rows"}');
CREATE FUNCTION shadow_bad_values(t regclass, n integer, seed bigint)
RETURNS TABLE (c1 text, c2 text, c3 text, c4 boolean, c5 text)
LANGUAGE sql AS $$ SELECT 'zzz', 'x', 'p', true, 'u' FROM generate_series(1, n) $$;
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'shadow_aux', '31',
       '{"num_training_records": 100, "num_training_datasets": 2, "num_test_datasets": 2,
         "generator": "shadow_bad_values"}');
CREATE FUNCTION shadow_too_many(t regclass, n integer, seed bigint)
RETURNS TABLE (c1 text, c2 text, c3 text, c4 boolean, c5 text)
LANGUAGE sql AS $$ SELECT c1, c2, c3, c4, c5 FROM shadow_aux LIMIT n + 1 $$;
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'shadow_aux', '31',
       '{"num_training_records": 100, "num_training_datasets": 2, "num_test_datasets": 2,
         "generator": "shadow_too_many"}');
CREATE FUNCTION shadow_not_a_set(t regclass, n integer, seed bigint) RETURNS integer
LANGUAGE sql AS $$ SELECT 1 $$;
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'shadow_aux', '31',
       '{"num_training_records": 100, "generator": "shadow_not_a_set"}');

-- Cancellation: a long evaluation stops at the statement timeout, and the
-- session goes on.
SET statement_timeout = '100ms';
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'shadow_aux', '31',
       '{"num_training_records": 100, "num_training_datasets": 20000, "num_test_datasets": 20}');
\echo :LAST_ERROR_SQLSTATE
RESET statement_timeout;
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'shadow_aux', '31',
       '{"num_training_records": 100, "num_training_datasets": 4, "num_test_datasets": 4}');

-- Errors.
SELECT accuracy FROM tapas.evaluate('targeted_xia', 'groundhog', 'shadow_aux', '31');
\echo :LAST_ERROR_SQLSTATE
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'nosuch', 'shadow_aux', '31');
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'closest_distance_aia', 'shadow_aux', '31');
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'shadow_aux', '31', '{"n_trees": 3}');
\echo :LAST_ERROR_SQLSTATE
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'shadow_aux', '9999', :'p');
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'shadow_aux', '31');
\set VERBOSITY default
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'shadow_aux', '31',
       '{"num_training_records": 300}');
\set VERBOSITY terse
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'shadow_aux', '31',
       '{"num_training_records": 100, "num_synthetic_records": 101}');
SELECT accuracy FROM tapas.evaluate(NULL, 'groundhog', 'shadow_aux', '31');
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'shadow_aux', NULL);
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'shadow_aux', '31', NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'shadow_modelling', 'shadow_aux', '31',
       :'p'::jsonb || '{"features": ["median"]}');
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'shadow_modelling', 'shadow_aux', '31',
       :'p'::jsonb || '{"classifier": "svm"}');
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'shadow_aux', '31',
       :'p'::jsonb || '{"generator": "no_such_generator"}');
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'shadow_aux', '31',
       :'p'::jsonb || '{"auxiliary_split": 1.5}');
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'shadow_aux', '31',
       :'p'::jsonb || '{"num_training_datasets": 2.5}');
SELECT accuracy FROM tapas.evaluate('targeted_aia', 'groundhog', 'shadow_aux', '31', :'p');
SELECT accuracy FROM tapas.evaluate('targeted_aia', 'groundhog', 'shadow_aux', '31',
       :'p'::jsonb || '{"sensitive": "c3"}');
SELECT accuracy FROM tapas.evaluate('targeted_aia', 'groundhog', 'shadow_aux', '31',
       :'p'::jsonb || '{"sensitive": "nosuch"}');
SELECT accuracy FROM tapas.evaluate('targeted_aia', 'groundhog', 'shadow_aux', '31',
       :'p'::jsonb || '{"sensitive": "c3", "values": ["p", "zz"]}');
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'shadow_aux', '31',
       :'p'::jsonb || '{"criterion": "tpr"}');
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'shadow_aux', '31',
       :'p'::jsonb || '{"distance": "cosine"}');
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'shadow_aux', '31',
       :'p'::jsonb || '{"distance": {"type": "lp", "columns": ["nosuch"]}}');
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'groundhog', 'shadow_aux', '31',
       :'p'::jsonb || '{"sensitive": "c2"}');

DROP FUNCTION shadow_first_rows(regclass, integer, bigint);
DROP FUNCTION shadow_bad_values(regclass, integer, bigint);
DROP FUNCTION shadow_too_many(regclass, integer, bigint);
DROP FUNCTION shadow_not_a_set(regclass, integer, bigint);
DROP TABLE shadow_aux;
