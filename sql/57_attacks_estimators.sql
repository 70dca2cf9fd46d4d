-- Sums of distances and the joint histogram density estimator, in
-- tapas.mia_scores / aia_scores and tapas.evaluate, each against the same
-- quantity recomputed in plain SQL.
CREATE SCHEMA est;
SET search_path = est, public;
CREATE TABLE synth(a text, b int, z float8);
INSERT INTO synth VALUES
	('x', 1, 0.0), ('x', 2, 0.5), ('y', 2, 1.0), ('z', 1, 1.0), ('x', 1, 0.2);
CREATE TABLE targets(id int PRIMARY KEY, a text, b int, z float8);
INSERT INTO targets VALUES
	(1, 'y', 2, 1.0), (2, 'y', 1, 0.25), (3, 'x', 2, 0.0), (4, 'x', 1, 0.1);

-- Hamming on a + L1 on z scaled by 0.5 (z is scaled over [0, 1]): the
-- reference's Hamming(a) + 0.5 * L1(z)
SELECT target_key, round(score::numeric, 9) AS score
  FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets',
	'{"distance": [{"type": "hamming", "columns": ["a"]},
	               {"type": "lp", "p": 1, "columns": ["z"], "scale": 0.5}]}')
 ORDER BY target_key;
SELECT t.id, round(-min(((t.a <> s.a)::int + 0.5 * abs(t.z - s.z)))::numeric, 9) AS score
  FROM targets t, synth s GROUP BY t.id ORDER BY t.id;
-- names as terms, weights inside a term: hamming + l2 with b weighted 3
SELECT target_key, round(score::numeric, 9) AS score
  FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets',
	'{"distance": ["hamming", {"type": "l2", "weights": {"b": 3}}]}')
 ORDER BY target_key;
SELECT t.id, round(-min(((t.a <> s.a)::int + (t.b <> s.b)::int + (t.z <> s.z)::int)
	+ sqrt(2 * (t.a <> s.a)::int + 3 * 2 * (t.b <> s.b)::int + (t.z - s.z) ^ 2))::numeric, 9)
  FROM targets t, synth s GROUP BY t.id ORDER BY t.id;
-- a one-term sum is that term
SELECT count(*) FILTER (WHERE a.score = b.score) AS equal, count(*)
  FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets', '{"distance": ["l1"]}') a
  JOIN tapas.mia_scores('closest_distance_mia', 'synth', 'targets', '{"distance": "l1"}') b
 USING (target_key);
-- local neighbourhood with a sum: the ball is measured with the sum
SELECT target_key, score
  FROM tapas.mia_scores('local_neighbourhood_mia', 'synth', 'targets',
	'{"radius": 0.6, "distance": [{"type": "hamming", "columns": ["a"]},
	                              {"type": "l1", "columns": ["z"]}]}')
 ORDER BY target_key;
SELECT t.id, avg((((t.a <> s.a)::int + abs(t.z - s.z)) <= 0.6)::int)::float8 AS score
  FROM targets t, synth s GROUP BY t.id ORDER BY t.id;
-- attribute inference with a sum: the AIA ball drops the sensitive column
-- from every term (b here), so only a and z count (target 2's ball is
-- empty: 1/2 each)
SELECT target_key, value, score
  FROM tapas.aia_scores('local_neighbourhood_aia', 'synth', 'targets', 'b',
	'{"radius": 0.5, "distance": [{"type": "hamming", "columns": ["a", "b"]},
	                              {"type": "l1", "columns": ["z", "b"]}]}')
 ORDER BY target_key, value;
SELECT t.id, s.b, count(*)::float8 / sum(count(*)) OVER (PARTITION BY t.id) AS score
  FROM targets t, synth s WHERE (t.a <> s.a)::int + abs(t.z - s.z) <= 0.5
 GROUP BY t.id, s.b ORDER BY t.id, s.b;

-- the joint histogram: p(x) = (n_x + alpha) / (n + alpha K) / prod w_j,
-- n_x the synthetic rows in x's cell (a, b and one of 2 bins of z)
SELECT target_key, round(score::numeric, 9) AS score
  FROM tapas.mia_scores('probability_estimation_mia', 'synth', 'targets',
	'{"estimator": "histogram", "bins": 2, "alpha": 1}')
 ORDER BY target_key;
-- in SQL: the dictionaries span synth and targets (a: x, y, z; b: 1, 2),
-- so K = 3 * 2 * 2 = 12 and w_z = 0.5
SELECT t.id, round(ln(((SELECT count(*) FROM synth s
						 WHERE s.a = t.a AND s.b = t.b
						   AND least(floor(s.z / 0.5), 1) = least(floor(t.z / 0.5), 1)) + 1)
					  / (5.0 + 12) / 0.5)::numeric, 9) AS score
  FROM targets t ORDER BY t.id;
-- alpha 0: the empirical cell distribution; an empty cell has no density
SELECT target_key, score = '-Infinity' AS empty_cell, round(exp(score)::numeric, 9) AS p
  FROM tapas.mia_scores('probability_estimation_mia', 'synth', 'targets',
	'{"estimator": "histogram", "columns": ["a", "b"], "alpha": 0}')
 ORDER BY target_key;
-- unlike the independent model it sees the dependency between a and b:
-- (y, 1) never occurs although y and 1 both do
SELECT target_key, i.score > '-Infinity' AS independent_positive,
	   h.score > '-Infinity' AS histogram_positive
  FROM tapas.mia_scores('probability_estimation_mia', 'synth', 'targets',
	'{"estimator": "independent", "columns": ["a", "b"], "alpha": 0}') i
  JOIN tapas.mia_scores('probability_estimation_mia', 'synth', 'targets',
	'{"estimator": "histogram", "columns": ["a", "b"], "alpha": 0}') h USING (target_key)
 WHERE target_key = '2';

-- both through tapas.evaluate: a raw "generator" copies the target, so the
-- histogram (the target's cell holds it) and the sum of distances find it
CREATE TABLE aux AS
SELECT i AS id,
       (ARRAY['a','b','c'])[1 + abs(hashint4(i * 3 + 1)) % 3] AS c1,
       (ARRAY['x','y'])[1 + abs(hashint4(i * 5 + 2)) % 2] AS c2,
       (ARRAY['p','q','r','s'])[1 + abs(hashint4(i * 7 + 3)) % 4] AS c3,
       (abs(hashint4(i * 11 + 4)) % 100) / 10.0::float8 AS z
  FROM generate_series(1, 400) i;
ALTER TABLE aux ADD PRIMARY KEY (id);
-- record 31 is unique
SELECT count(*) FROM aux a, aux b WHERE a.id = 31 AND (a.c1, a.c2, a.c3, a.z) = (b.c1, b.c2, b.c3, b.z);
\set p '{"num_training_records": 50, "num_training_datasets": 100, "num_test_datasets": 100, "seed": 2}'
SELECT accuracy, auc
  FROM tapas.evaluate('targeted_mia', 'probability_estimation_mia', 'aux', '31',
       :'p'::jsonb || '{"estimator": "histogram", "bins": 20, "alpha": 0.01}');
SELECT accuracy, auc
  FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'aux', '31',
       :'p'::jsonb || '{"distance": [{"type": "hamming", "columns": ["c1", "c2", "c3"]},
                                     {"type": "l1", "columns": ["z"], "scale": 10}]}');
-- the marginals generator breaks the link between columns: the joint
-- histogram then scores the target no better than chance
SELECT auc < 0.75 AS weak
  FROM tapas.evaluate('targeted_mia', 'probability_estimation_mia', 'aux', '31',
       :'p'::jsonb || '{"estimator": "histogram", "bins": 20, "generator": "marginals"}');

-- errors
\set VERBOSITY terse
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets', '{"distance": []}');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets', '{"distance": [["l1"]]}');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets', '{"distance": ["l1", "cosine"]}');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets', '{"distance": [{"type": "l1", "columns": ["zz"]}]}');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets', '{"distance": [{"type": "l1", "weights": {"a": -1}}]}');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets', '{"distance": [{"type": "l1", "scale": 0}]}');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets', '{"distance": [{"kind": "l1"}]}');
SELECT * FROM tapas.mia_scores('probability_estimation_mia', 'synth', 'targets', '{"estimator": "histogram", "bins": 0}');
SELECT * FROM tapas.mia_scores('probability_estimation_mia', 'synth', 'targets', '{"estimator": "histogram", "alpha": -1}');
SELECT * FROM tapas.evaluate('targeted_mia', 'probability_estimation_mia', 'aux', '31',
       '{"estimator": "histograms"}');
SELECT * FROM tapas.release_risk('targets', 'synth', 'targets', '{"distance": ["l1", "hamming"]}');
SET client_min_messages = warning;
DROP SCHEMA est CASCADE;
RESET client_min_messages;
RESET search_path;
