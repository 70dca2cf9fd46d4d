-- tapas.evaluate: bootstrap intervals of the metrics, and the threat-model
-- options (exact data knowledge, AIA over several values, the AIA value
-- distribution), each with an answer known in advance.
\set VERBOSITY terse
CREATE SCHEMA tmo;
SET search_path = tmo, public;
CREATE TABLE aux AS
SELECT i AS id,
       (ARRAY['a','b','c'])[1 + abs(hashint4(i * 3 + 1)) % 3] AS c1,
       (ARRAY['x','y'])[1 + abs(hashint4(i * 5 + 2)) % 2] AS c2,
       (ARRAY['p','q','r','s'])[1 + abs(hashint4(i * 7 + 3)) % 4] AS c3,
       (ARRAY['u','v','w'])[1 + abs(hashint4(i * 13 + 5)) % 3] AS c5,
       'k' || (abs(hashint4(i * 17 + 6)) % 50) AS c6
  FROM generate_series(1, 400) i;
ALTER TABLE aux ADD PRIMARY KEY (id);
-- record 31 is unique, even without c3
SELECT count(*) FILTER (WHERE (a.c1, a.c2, a.c3, a.c5, a.c6) = (t.c1, t.c2, t.c3, t.c5, t.c6)) AS copies,
       count(*) FILTER (WHERE (a.c1, a.c2, a.c5, a.c6) = (t.c1, t.c2, t.c5, t.c6)) AS without_c3
  FROM aux a, aux t WHERE t.id = 31;
\set p '{"num_training_records": 50, "num_training_datasets": 100, "num_test_datasets": 100, "seed": 4}'

-- Bootstrap intervals (1000 stratified resamples by default, at params
-- confidence): each covers its point estimate and lies in [0, 1]
SELECT accuracy_low <= accuracy AND accuracy <= accuracy_high AS acc_covered,
       auc_low <= auc AND auc <= auc_high AS auc_covered,
       tpr_at_fpr_01_low <= tpr_at_fpr_01 AND tpr_at_fpr_01 <= tpr_at_fpr_01_high AS tpr01_covered,
       tpr_at_fpr_001_low <= tpr_at_fpr_001 AND tpr_at_fpr_001 <= tpr_at_fpr_001_high AS tpr001_covered,
       accuracy_low >= 0 AND accuracy_high <= 1 AND auc_low >= 0 AND auc_high <= 1 AS in_range,
       auc_high - auc_low > 0 AS auc_uncertain
  FROM tapas.evaluate('targeted_mia', 'local_neighbourhood_mia', 'aux', '7',
       :'p'::jsonb || '{"generator": "marginals"}');
-- seeded: the same seed gives the same intervals; a wider level is wider
WITH a AS (SELECT * FROM tapas.evaluate('targeted_mia', 'local_neighbourhood_mia', 'aux', '7',
                :'p'::jsonb || '{"generator": "marginals"}')),
     b AS (SELECT * FROM tapas.evaluate('targeted_mia', 'local_neighbourhood_mia', 'aux', '7',
                :'p'::jsonb || '{"generator": "marginals"}')),
     c AS (SELECT * FROM tapas.evaluate('targeted_mia', 'local_neighbourhood_mia', 'aux', '7',
                :'p'::jsonb || '{"generator": "marginals", "confidence": 0.99}'))
SELECT (a.accuracy_low, a.accuracy_high, a.auc_low, a.auc_high) =
       (b.accuracy_low, b.accuracy_high, b.auc_low, b.auc_high) AS reproducible,
       c.auc_high - c.auc_low >= a.auc_high - a.auc_low AS wider_at_99
  FROM a, b, c;
-- degenerate: the raw generator copies the unique target, closest distance
-- separates every test dataset, so every resample does too: width 0
SELECT accuracy, accuracy_low, accuracy_high, auc, auc_low, auc_high,
       tpr_at_fpr_01_low, tpr_at_fpr_01_high
  FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'aux', '31', :'p');
-- no resamples: NULL bounds
SELECT accuracy_low IS NULL AND auc_high IS NULL AS no_intervals
  FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'aux', '31',
       :'p'::jsonb || '{"bootstrap": 0}');
SELECT * FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'aux', '31',
       :'p'::jsonb || '{"bootstrap": -1}');
SELECT * FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'aux', '31',
       :'p'::jsonb || '{"bootstrap": 2.5}');

-- The same intervals for any scores: tapas.metrics_intervals; the
-- estimates are tapas.attack_metrics' at the same threshold
CREATE TABLE sc AS
SELECT i, (i % 2 = 0) AS member, ((i * 37) % 101) / 100.0 + (i % 2 = 0)::int * 0.3 AS score
  FROM generate_series(1, 200) i;
WITH a AS (SELECT array_agg(score ORDER BY i) s, array_agg(member ORDER BY i) l FROM sc)
SELECT m.metric, round(m.estimate::numeric, 4) AS estimate,
       m.low <= m.estimate AND m.estimate <= m.high AS covered, m.high > m.low AS uncertain
  FROM a, tapas.metrics_intervals(a.s, a.l, 0.65) m;
WITH a AS (SELECT array_agg(score ORDER BY i) s, array_agg(member ORDER BY i) l FROM sc)
SELECT round(m.accuracy::numeric, 4) AS accuracy, round(m.auc::numeric, 4) AS auc
  FROM a, tapas.attack_metrics(a.s, a.l, 0.65) m;
-- seeded; another seed moves the bounds, not the estimate
WITH a AS (SELECT array_agg(score ORDER BY i) s, array_agg(member ORDER BY i) l FROM sc)
SELECT (SELECT array_agg(row(low, high)) FROM tapas.metrics_intervals(a.s, a.l, 0.65, 0.9, 500, 3)) =
       (SELECT array_agg(row(low, high)) FROM tapas.metrics_intervals(a.s, a.l, 0.65, 0.9, 500, 3)) AS reproducible,
       (SELECT array_agg(estimate) FROM tapas.metrics_intervals(a.s, a.l, 0.65, 0.9, 500, 3)) =
       (SELECT array_agg(estimate) FROM tapas.metrics_intervals(a.s, a.l, 0.65, 0.9, 500, 4)) AS same_estimates
  FROM a;
-- degenerate: separated classes (every resample separates), and no resamples
SELECT metric, estimate, low, high
  FROM tapas.metrics_intervals(ARRAY[0.9, 0.8, 0.2, 0.1], ARRAY[true, true, false, false]);
SELECT metric, estimate, low, high
  FROM tapas.metrics_intervals(ARRAY[0.9, 0.3, 0.2, 0.8], ARRAY[true, true, false, false], 0.5, 0.95, 0);
SELECT * FROM tapas.metrics_intervals(ARRAY[0.9, 0.3], ARRAY[true, false], 0.5, 0.95, -1);
SELECT * FROM tapas.metrics_intervals(ARRAY[0.9, 0.3], ARRAY[true, false], 0.5, 1.5);
SELECT * FROM tapas.metrics_intervals(ARRAY[0.9, 0.3], ARRAY[true]);

-- Exact data knowledge (the reference's ExactDataKnowledge): every dataset
-- is built from one base dataset D, by default the whole table without the
-- target (399 records here, more than half of it).  With the raw generator
-- (a permutation of its input) every dataset without the target is D
-- itself, so the closest-distance score of every negative is the same:
-- minus the target's distance to its nearest other record.
SELECT n_train, n_test, n_pos, n_neg, accuracy, auc
  FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'aux', '31',
       '{"knowledge": "exact", "num_training_datasets": 20, "num_test_datasets": 20, "seed": 4}');
SELECT count(DISTINCT score) FILTER (WHERE NOT label) AS negative_scores,
       count(DISTINCT score) FILTER (WHERE label) AS positive_scores,
       min(score) FILTER (WHERE label) AS positive_score,
       max(score) FILTER (WHERE NOT label) AS negative_score
  FROM tapas.evaluate_scores('targeted_mia', 'closest_distance_mia', 'aux', '31',
       '{"knowledge": "exact", "num_training_datasets": 20, "num_test_datasets": 20, "seed": 4}');
-- the same distance in SQL: the target's Hamming distance to the nearest other record
SELECT -min((a.c1 <> t.c1)::int + (a.c2 <> t.c2)::int + (a.c3 <> t.c3)::int + (a.c5 <> t.c5)::int
            + (a.c6 <> t.c6)::int) AS negative_score
  FROM aux a, aux t WHERE t.id = 31 AND a.id <> 31;
-- 300 records fit the exact knowledge of the table, not a half of it
SELECT n_test FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'aux', '31',
       '{"knowledge": "exact", "num_training_records": 300, "num_training_datasets": 4, "num_test_datasets": 4}');
SELECT n_test FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'aux', '31',
       '{"num_training_records": 300, "num_training_datasets": 4, "num_test_datasets": 4}');
SELECT n_test FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'aux', '31',
       '{"knowledge": "exact", "num_training_records": 400}');
SELECT n_test FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'aux', '31',
       '{"knowledge": "everything"}');

-- The AIA value distribution: the target's c2 is "y" with weight 3 in 4
SELECT count(*) AS datasets, count(*) FILTER (WHERE label) BETWEEN 60 AND 90 AS about_three_quarters
  FROM tapas.evaluate_scores('targeted_aia', 'closest_distance_aia', 'aux', '31',
       :'p'::jsonb || '{"sensitive": "c2", "values": ["x", "y"], "distribution": [1, 3]}');
SELECT count(*) FILTER (WHERE label) AS second_value
  FROM tapas.evaluate_scores('targeted_aia', 'closest_distance_aia', 'aux', '31',
       :'p'::jsonb || '{"sensitive": "c2", "values": ["x", "y"], "distribution": [0, 1],
                        "criterion": "threshold", "criterion_value": 0}');

-- AIA over more than two values: c6 (50 values) makes the target unique
-- on the other columns, so the nearest record to the target with
-- c3 := v is at distance 0 exactly for its true value: accuracy 1 over the
-- four values of c3 (every value of the column by default)
SELECT accuracy, accuracy_low, accuracy_high, advantage, auc IS NULL AS no_auc,
       n_pos IS NULL AS no_classes, n_train, n_test
  FROM tapas.evaluate('targeted_aia', 'closest_distance_aia', 'aux', '31',
       :'p'::jsonb || '{"sensitive": "c3"}');
-- an attack that sees only c3 itself cannot tell the values apart: every
-- candidate ties, the guess is uniform, accuracy about 1/4, and the
-- advantage is measured against the prior's most likely value
SELECT accuracy BETWEEN 0.1 AND 0.45 AS about_a_quarter,
       accuracy_low <= accuracy AND accuracy <= accuracy_high AS covered,
       round(advantage::numeric, 6) = round((accuracy - 0.25)::numeric, 6) AS against_uniform
  FROM tapas.evaluate('targeted_aia', 'closest_distance_aia', 'aux', '31',
       :'p'::jsonb || '{"sensitive": "c3", "distance": {"type": "hamming", "columns": ["c3"]}}');
SELECT round(advantage::numeric, 6) = round((accuracy - 5.0 / 8)::numeric, 6) AS against_prior
  FROM tapas.evaluate('targeted_aia', 'closest_distance_aia', 'aux', '31',
       :'p'::jsonb || '{"sensitive": "c3", "values": ["p", "q", "r", "s"], "distribution": [1, 1, 1, 5],
                        "distance": {"type": "hamming", "columns": ["c3"]}}');
-- three chosen values, local neighbourhood and the synthetic predictor
SELECT accuracy > 0.5 AS informed
  FROM tapas.evaluate('targeted_aia', 'local_neighbourhood_aia', 'aux', '31',
       :'p'::jsonb || '{"sensitive": "c3", "values": ["p", "q", "s"], "radius": 0}');
SELECT n_test, accuracy BETWEEN 0 AND 1 AS valid
  FROM tapas.evaluate('targeted_aia', 'synthetic_predictor_aia', 'aux', '31',
       :'p'::jsonb || '{"sensitive": "c3", "values": ["p", "q", "s"]}');
-- errors: shadow modelling classifies two values; evaluate_scores is binary;
-- weights and values must match
SELECT * FROM tapas.evaluate('targeted_aia', 'groundhog', 'aux', '31',
       :'p'::jsonb || '{"sensitive": "c3"}');
SELECT * FROM tapas.evaluate_scores('targeted_aia', 'closest_distance_aia', 'aux', '31',
       :'p'::jsonb || '{"sensitive": "c3"}');
SELECT * FROM tapas.evaluate('targeted_aia', 'closest_distance_aia', 'aux', '31',
       :'p'::jsonb || '{"sensitive": "c3", "distribution": [1, 2]}');
SELECT * FROM tapas.evaluate('targeted_aia', 'closest_distance_aia', 'aux', '31',
       :'p'::jsonb || '{"sensitive": "c2", "distribution": [1, -2]}');
SELECT * FROM tapas.evaluate('targeted_aia', 'closest_distance_aia', 'aux', '31',
       :'p'::jsonb || '{"sensitive": "c2", "distribution": [0, 0]}');
SELECT * FROM tapas.evaluate('targeted_aia', 'closest_distance_aia', 'aux', '31',
       :'p'::jsonb || '{"sensitive": "c2", "distribution": "uniform"}');
SELECT * FROM tapas.evaluate('targeted_aia', 'closest_distance_aia', 'aux', '31',
       :'p'::jsonb || '{"sensitive": "c3", "values": ["p", "p", "q"]}');
SELECT * FROM tapas.evaluate('targeted_aia', 'closest_distance_aia', 'aux', '31',
       :'p'::jsonb || '{"sensitive": "c3", "values": ["p"]}');
SELECT * FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'aux', '31',
       :'p'::jsonb || '{"distribution": [1, 1]}');

-- Several targets sharing one set of datasets (tapas.evaluate_targets):
-- one target gives exactly tapas.evaluate's row
SELECT (e.accuracy, e.auc, e.threshold, e.n_pos, e.accuracy_low, e.auc_high) =
       (t.accuracy, t.auc, t.threshold, t.n_pos, t.accuracy_low, t.auc_high) AS same, t.target_key
  FROM tapas.evaluate('targeted_mia', 'local_neighbourhood_mia', 'aux', '7',
                      :'p'::jsonb || '{"generator": "marginals"}') e,
       tapas.evaluate_targets('targeted_mia', 'local_neighbourhood_mia', 'aux', ARRAY['7'],
                      :'p'::jsonb || '{"generator": "marginals"}') t;
-- record 1000 is a twin of record 7: with exact knowledge the twin is in
-- every dataset, so closest distance scores 0 whether 7 is in or not (AUC
-- 1/2 exactly), while the unique record 31 is found every time; each
-- target has its own balanced labels over the same 40 test datasets
INSERT INTO aux SELECT 1000, c1, c2, c3, c5, c6 FROM aux WHERE id = 7;
SELECT target_key, accuracy, auc, n_pos, n_neg, n_test
  FROM tapas.evaluate_targets('targeted_mia', 'closest_distance_mia', 'aux', ARRAY['31', '7'],
       '{"knowledge": "exact", "num_training_datasets": 40, "num_test_datasets": 40, "seed": 5}');
-- with auxiliary knowledge, AIA over the four values of c3: every dataset
-- holds every target with its own value; 31 and 52 are unique without c3,
-- so closest distance finds their value every time
SELECT count(*) FILTER (WHERE (a.c1, a.c2, a.c5, a.c6) = (t.c1, t.c2, t.c5, t.c6)) AS without_c3
  FROM aux a, aux t WHERE t.id = 52;
SELECT target_key, accuracy, n_test
  FROM tapas.evaluate_targets('targeted_aia', 'closest_distance_aia', 'aux', ARRAY['52', '31'],
       :'p'::jsonb || '{"sensitive": "c3"}');
-- three targets, two values: one row each, in the keys' order
SELECT target_key, accuracy = 1 AS found, n_pos + n_neg AS n
  FROM tapas.evaluate_targets('targeted_aia', 'closest_distance_aia', 'aux', ARRAY['52', '31', '7'],
       :'p'::jsonb || '{"sensitive": "c2"}');
-- Groundhog and shadow modelling share the datasets and the target-free
-- features; each target gets its own classifier (same seed) on its own
-- labels and query features.  One target gives exactly tapas.evaluate's row
SELECT (e.accuracy, e.auc, e.n_features, e.n_pos, e.threshold, e.auc_low) =
       (t.accuracy, t.auc, t.n_features, t.n_pos, t.threshold, t.auc_low) AS same, t.target_key
  FROM tapas.evaluate('targeted_mia', 'groundhog', 'aux', '31', :'p') e,
       tapas.evaluate_targets('targeted_mia', 'groundhog', 'aux', ARRAY['31'], :'p') t;
SELECT (e.accuracy, e.auc, e.n_features, e.n_pos, e.auc_high) =
       (t.accuracy, t.auc, t.n_features, t.n_pos, t.auc_high) AS same, t.target_key
  FROM tapas.evaluate('targeted_aia', 'shadow_modelling', 'aux', '52',
                      :'p'::jsonb || '{"sensitive": "c2", "features": ["queries", "naive"],
                                       "order": [2, 3], "number": 10}') e,
       tapas.evaluate_targets('targeted_aia', 'shadow_modelling', 'aux', ARRAY['52'],
                      :'p'::jsonb || '{"sensitive": "c2", "features": ["queries", "naive"],
                                       "order": [2, 3], "number": 10}') t;
-- three targets: the unique 31 and 52 are found every time by the random
-- queries on raw data; 7's twin (record 1000) is in some of the datasets,
-- which then look as if 7 were in
SELECT target_key, accuracy, n_pos, n_neg, n_features
  FROM tapas.evaluate_targets('targeted_mia', 'shadow_modelling', 'aux', ARRAY['31', '7', '52'],
       :'p'::jsonb || '{"features": ["queries"], "order": [2, 3, 5], "number": [10, 10, 1]}');
SELECT target_key, accuracy > 0.5 AS above_chance, n_test, n_features
  FROM tapas.evaluate_targets('targeted_mia', 'groundhog', 'aux', ARRAY['31', '7'], :'p');
-- errors
SELECT * FROM tapas.evaluate_targets('targeted_aia', 'groundhog', 'aux', ARRAY['31', '7'],
       :'p'::jsonb || '{"sensitive": "c3"}');
SELECT * FROM tapas.evaluate_targets('targeted_mia', 'closest_distance_mia', 'aux', ARRAY['31', '31'], :'p');
SELECT * FROM tapas.evaluate_targets('targeted_mia', 'closest_distance_mia', 'aux', ARRAY['31', '9999'], :'p');
SELECT * FROM tapas.evaluate_targets('targeted_mia', 'closest_distance_mia', 'aux', ARRAY['31', NULL], :'p');
SELECT * FROM tapas.evaluate_targets('targeted_mia', 'closest_distance_mia', 'aux', ARRAY[]::text[], :'p');
SELECT * FROM tapas.evaluate_targets('targeted_mia', 'closest_distance_mia', 'aux', NULL, :'p');

SET client_min_messages = warning;
DROP SCHEMA tmo CASCADE;
RESET client_min_messages;
RESET search_path;
