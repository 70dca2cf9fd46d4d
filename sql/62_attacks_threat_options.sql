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
       (ARRAY['u','v','w'])[1 + abs(hashint4(i * 13 + 5)) % 3] AS c5
  FROM generate_series(1, 400) i;
ALTER TABLE aux ADD PRIMARY KEY (id);
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

SET client_min_messages = warning;
DROP SCHEMA tmo CASCADE;
RESET client_min_messages;
RESET search_path;
