-- The dataset-only release audit on tables whose answer is known: a
-- release copying half the real rows (high residual risk), one drawn from
-- the population independently (residual interval reaching 0), one equal to
-- the holdout (residual 0); per-record results joined back; the errors.
CREATE SCHEMA rr;
SET search_path = rr, public;
-- 1200 people: five uniform columns with 6 values each, and a sensitive
-- column s equal to a half of the time (partly predictable from a)
CREATE TABLE pop AS
SELECT i AS id,
       (hashint4(i) & 65535) % 6 AS a,
       (hashint4(i + 100003) & 65535) % 6 AS b,
       (hashint4(i + 200003) & 65535) % 6 AS c,
       (hashint4(i + 300007) & 65535) % 6 AS d,
       (hashint4(i + 400009) & 65535) % 6 AS e,
       CASE WHEN (hashint4(i + 500009) & 1) = 0 THEN (hashint4(i) & 65535) % 6
            ELSE (hashint4(i + 600011) & 65535) % 6 END AS s
  FROM generate_series(1, 1200) i;
CREATE TABLE real_rows (id int PRIMARY KEY, a int, b int, c int, d int, e int, s int);
INSERT INTO real_rows SELECT * FROM pop WHERE id <= 400;
CREATE TABLE holdout_rows (LIKE real_rows INCLUDING ALL);
INSERT INTO holdout_rows SELECT * FROM pop WHERE id BETWEEN 401 AND 800;
-- the releases (no key column)
CREATE TABLE syn_half AS
SELECT a, b, c, d, e, s FROM real_rows WHERE id % 2 = 0
UNION ALL SELECT a, b, c, d, e, s FROM pop WHERE id BETWEEN 801 AND 1000;
CREATE TABLE syn_fresh AS SELECT a, b, c, d, e, s FROM pop WHERE id > 800;
CREATE TABLE syn_holdout AS SELECT a, b, c, d, e, s FROM holdout_rows;

-- integers with 6 values are categorical; s is the sensitive column
\set p '{"sensitive": "s", "link_columns": ["a", "b", "c"], "predicates": 400, "bootstrap": 100}'

-- half copied: every risk is attributable to the release
SELECT risk, n_real, n_holdout, round(success_real::numeric, 3) AS real_rate,
       round(success_holdout::numeric, 3) AS holdout,
       round(baseline::numeric, 3) AS baseline,
       round(residual::numeric, 3) AS residual,
       round(residual_low::numeric, 3) AS low, round(residual_high::numeric, 3) AS high
  FROM tapas.release_risk('real_rows', 'syn_half', 'holdout_rows', :'p');
SELECT risk, residual_low > 0.05 AS significant,
       real_low <= success_real AND success_real <= real_high AS real_in_ci,
       residual_low <= residual AND residual <= residual_high AS residual_in_ci
  FROM tapas.release_risk('real_rows', 'syn_half', 'holdout_rows', :'p');
-- exact copies: about half of the training rows, none of the holdout
SELECT success_real BETWEEN 0.4 AND 0.6 AS half, success_holdout < 0.05 AS none
  FROM tapas.release_risk('real_rows', 'syn_half', 'holdout_rows', :'p')
 WHERE risk = 'exact_copy';

-- drawn independently: nothing attributable (the interval reaches 0)
SELECT risk, residual_low = 0 AS covers_zero, residual < 0.12 AS small
  FROM tapas.release_risk('real_rows', 'syn_fresh', 'holdout_rows', :'p');
-- the population still lets one infer s from a, on both sides alike
SELECT success_real > 0.3 AND success_holdout > 0.3 AS inferable,
       baseline < success_holdout AS beats_mode
  FROM tapas.release_risk('real_rows', 'syn_fresh', 'holdout_rows', :'p')
 WHERE risk = 'attribute_inference';

-- the release is the holdout: the residual is 0 exactly
SELECT risk, residual = 0 AND residual_low = 0 AS zero
  FROM tapas.release_risk('real_rows', 'syn_holdout', 'holdout_rows', :'p');

-- per-record results join back to the source rows: the copied (even) real
-- rows are the exact copies, the holdout has none
SELECT r.source, count(*) AS targets, sum(r.value) AS copies,
       count(*) FILTER (WHERE r.value = 1 AND x.id % 2 = 0) AS copies_even
  FROM tapas.release_risk_records('real_rows', 'syn_half', 'holdout_rows', :'p') r
  LEFT JOIN real_rows x ON r.source = 'real' AND x.id = r.key::int
 WHERE r.risk = 'exact_copy'
 GROUP BY r.source ORDER BY r.source;
-- a copied row is at distance 0
SELECT bool_and(r.value = 0) AS copies_at_zero
  FROM tapas.release_risk_records('real_rows', 'syn_half', 'holdout_rows', :'p') r
  JOIN real_rows x ON x.id = r.key::int
 WHERE r.source = 'real' AND r.risk = 'dcr' AND x.id % 2 = 0;
-- the records agree with the summary (same seed)
SELECT avg(value) = (SELECT success_real FROM tapas.release_risk('real_rows',
           'syn_half', 'holdout_rows', :'p') WHERE risk = 'linkability') AS agrees
  FROM tapas.release_risk_records('real_rows', 'syn_half', 'holdout_rows', :'p')
 WHERE source = 'real' AND risk = 'linkability';

-- without a sensitive column the attribute inference row is NULL; L2
-- distances work too
SELECT risk, success_real IS NULL AS not_run
  FROM tapas.release_risk('real_rows', 'syn_half', 'holdout_rows',
                          '{"distance": "l2", "targets": 100, "predicates": 50}');

-- errors
SELECT * FROM tapas.release_risk('real_rows', 'syn_half', 'holdout_rows', '{"bogus": 1}');
SELECT * FROM tapas.release_risk('real_rows', 'syn_half', 'holdout_rows', '{"sensitive": "zz"}');
SELECT * FROM tapas.release_risk('real_rows', 'syn_half', 'holdout_rows', '{"link_columns": ["a", "b", "c", "d", "e", "s"]}');
SELECT * FROM tapas.release_risk('real_rows', 'syn_half', 'holdout_rows', '{"confidence": 1}');
SELECT * FROM tapas.release_risk('real_rows', 'syn_half', 'holdout_rows', '{"targets": 0}');
SELECT * FROM tapas.release_risk('real_rows', 'syn_half', NULL);
-- a NULL params is an error like any NULL argument (22004), not the defaults
SELECT * FROM tapas.release_risk('real_rows', 'syn_half', 'holdout_rows', NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM tapas.release_risk_records('real_rows', 'syn_half', 'holdout_rows', NULL);
\echo :LAST_ERROR_SQLSTATE
CREATE TABLE holdout_bad (id int PRIMARY KEY, a int, b int);
SELECT * FROM tapas.release_risk('real_rows', 'syn_half', 'holdout_bad');
CREATE TABLE holdout_nokey AS SELECT a, b, c, d, e, s FROM holdout_rows;
SELECT * FROM tapas.release_risk('real_rows', 'syn_half', 'holdout_nokey');
CREATE TABLE holdout_empty (LIKE real_rows);
SELECT * FROM tapas.release_risk('real_rows', 'syn_half', 'holdout_empty');
SELECT * FROM tapas.release_risk('real_rows', 'syn_half', 'holdout_rows',
                                 '{"sensitive": "s", "schema": {"s": "continuous"}}');
CREATE TABLE syn_cont AS SELECT a, b, c, d, e, s::float8 AS s FROM syn_half;
SELECT * FROM tapas.release_risk('real_rows', 'syn_cont', 'holdout_rows');

-- weighted and scaled distances (here, for the scores): a copied row with
-- column a changed is at Hamming distance 1, 0 when a weighs nothing, 2
-- when the distance is scaled by 2
CREATE TABLE tgt AS SELECT id, (a + 1) % 6 AS a, b, c, d, e, s FROM real_rows WHERE id = 2;
ALTER TABLE tgt ADD PRIMARY KEY (id);
SELECT score FROM tapas.mia_scores('closest_distance_mia', 'syn_half', 'tgt');
SELECT score FROM tapas.mia_scores('closest_distance_mia', 'syn_half', 'tgt',
                                   '{"distance": {"type": "hamming", "weights": {"a": 0}}}');
SELECT score FROM tapas.mia_scores('closest_distance_mia', 'syn_half', 'tgt',
                                   '{"distance": {"type": "hamming", "scale": 2}}');
-- L2: a one-hot mismatch adds 2 to the sum, weight 0.5 makes it 1
SELECT score FROM tapas.mia_scores('closest_distance_mia', 'syn_half', 'tgt',
                                   '{"distance": {"type": "lp", "p": 2, "weights": {"a": 0.5}}}');
-- the ball of radius 1 holds the copy unscaled, not when scaled by 2
SELECT score * 400 AS rows_in_ball FROM tapas.mia_scores('local_neighbourhood_mia', 'syn_half', 'tgt',
                                      '{"radius": 1}');
SELECT score * 400 AS rows_in_ball FROM tapas.mia_scores('local_neighbourhood_mia', 'syn_half', 'tgt',
                                      '{"distance": {"type": "hamming", "scale": 2}, "radius": 1}');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'syn_half', 'tgt',
                               '{"distance": {"type": "hamming", "weights": {"zz": 1}}}');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'syn_half', 'tgt',
                               '{"distance": {"type": "hamming", "weights": {"a": -1}}}');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'syn_half', 'tgt',
                               '{"distance": {"type": "hamming", "scale": 0}}');
SELECT * FROM tapas.release_risk('real_rows', 'syn_half', 'holdout_rows',
                                 '{"distance": {"type": "hamming", "weights": {"a": 2}}}');

-- the synthetic predictor with a random forest: on 60 holdout rows, s is
-- predicted from the others (s = a half of the time), each target's
-- probabilities sum to 1, and the forest is reproducible from its seed
CREATE TABLE tgt60 AS SELECT * FROM holdout_rows ORDER BY id LIMIT 60;
ALTER TABLE tgt60 ADD PRIMARY KEY (id);
CREATE TABLE rf AS
SELECT * FROM tapas.aia_scores('synthetic_predictor_aia', 'syn_fresh', 'tgt60', 's',
                               '{"estimator": "random_forest", "n_estimators": 50, "seed": 3}');
SELECT count(*) AS rows, count(DISTINCT target_key) AS targets,
       bool_and(abs(total - 1) < 1e-9) AS sums_to_one
  FROM (SELECT target_key, sum(score) AS total FROM rf GROUP BY target_key) t;
SELECT avg((g.value = t.s::text)::int) > 0.3 AS better_than_chance
  FROM (SELECT DISTINCT ON (target_key) target_key, value FROM rf
         ORDER BY target_key, score DESC, value) g
  JOIN tgt60 t ON t.id::text = g.target_key;
SELECT count(*) AS same_scores
  FROM rf JOIN tapas.aia_scores('synthetic_predictor_aia', 'syn_fresh', 'tgt60', 's',
                               '{"estimator": "random_forest", "n_estimators": 50, "seed": 3}') r2
       USING (target_key, value)
 WHERE rf.score = r2.score;
SELECT * FROM tapas.aia_scores('synthetic_predictor_aia', 'syn_fresh', 'tgt60', 's',
                               '{"estimator": "svm"}');
SELECT * FROM tapas.aia_scores('synthetic_predictor_aia', 'syn_fresh', 'tgt60', 's',
                               '{"estimator": "random_forest", "n_estimators": 0}');

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA rr CASCADE;
RESET client_min_messages;
