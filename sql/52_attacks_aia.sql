-- Attribute inference scores: closest distance (normalised per value, as
-- in the seed), local neighbourhood, synthetic predictor (logistic
-- regression), with hand-checked values; the target's own sensitive value
-- is never read.
SET search_path = att, public;
CREATE TABLE aia_syn(a text, s text, z float8);
INSERT INTO aia_syn VALUES ('x', 'no', 0.0), ('x', 'yes', 0.5), ('y', 'yes', 1.0), ('z', 'no', 1.0);
CREATE TABLE aia_tgt(id int PRIMARY KEY, a text, s text, z float8);
INSERT INTO aia_tgt VALUES
	(1, 'z', 'yes', 1.0),		-- x|no is row 4 (d 0), x|yes is 1 away: (0, -1)
	(2, 'x', 'maybe', 0.25),	-- x|no 1 away, x|yes 1 away: (-0.5, -0.5)
	(3, 'y', NULL, 1.0);		-- x|yes is row 3: yes wins
-- closest distance (Hamming): score_v = -d_v / sum_u d_u; "maybe" and NULL
-- of the targets are not candidate values (never read)
SELECT * FROM tapas.aia_scores('closest_distance_aia', 'aia_syn', 'aia_tgt', 's')
 ORDER BY target_key, value;
-- the same distances by SQL
SELECT t.id, v.s AS value,
	   min((t.a IS DISTINCT FROM y.a)::int + (v.s IS DISTINCT FROM y.s)::int
		   + (t.z IS DISTINCT FROM y.z)::int) AS d
  FROM aia_tgt t, (SELECT DISTINCT s FROM aia_syn) v, aia_syn y
 GROUP BY t.id, v.s ORDER BY 1, 2;
-- L2: categorical s costs sqrt(2) per mismatch
SELECT target_key, value, round(score::numeric, 6) AS score
  FROM tapas.aia_scores('closest_distance_aia', 'aia_syn', 'aia_tgt', 's', '{"distance": "l2"}')
 ORDER BY target_key, value;
-- the targets table may lack the sensitive column altogether
CREATE TABLE aia_tgt2(id int PRIMARY KEY, a text, z float8);
INSERT INTO aia_tgt2 VALUES (1, 'z', 1.0);
SELECT * FROM tapas.aia_scores('closest_distance_aia', 'aia_syn', 'aia_tgt2', 's') ORDER BY value;

-- local neighbourhood: the ball is measured without s; fraction per value
SELECT * FROM tapas.aia_scores('local_neighbourhood_aia', 'aia_syn', 'aia_tgt', 's')
 ORDER BY target_key, value;
SELECT t.id, y.s AS value, count(*)::float8 / sum(count(*)) OVER (PARTITION BY t.id) AS score
  FROM aia_tgt t, aia_syn y
 WHERE (t.a IS DISTINCT FROM y.a)::int + (t.z IS DISTINCT FROM y.z)::int <= 1
 GROUP BY t.id, y.s ORDER BY 1, 2;
-- an empty ball gives 1/k
SELECT * FROM tapas.aia_scores('local_neighbourhood_aia', 'aia_syn', 'aia_tgt', 's',
	'{"radius": 0}') ORDER BY target_key, value;

-- synthetic predictor: s is a function of a; logistic regression learns it
CREATE TABLE sp_syn AS
SELECT (ARRAY['x', 'y', 'z'])[1 + i % 3] AS a,
	   CASE WHEN i % 3 = 1 THEN 'yes' ELSE 'no' END AS s,
	   (i % 10) / 10.0 AS z
  FROM generate_series(1, 60) i;
CREATE TABLE sp_tgt(id int PRIMARY KEY, a text, z numeric);
INSERT INTO sp_tgt VALUES (1, 'x', 0.3), (2, 'y', 0.3), (3, 'z', 0.9);
SELECT target_key, value, score > 0.8 AS likely, round(sum(score) OVER (PARTITION BY target_key)::numeric, 9) AS total
  FROM tapas.aia_scores('synthetic_predictor_aia', 'sp_syn', 'sp_tgt', 's', '{"C": 10}')
 ORDER BY target_key, value;
-- more than two values: a three-class model, one probability per value
CREATE TABLE sp3 AS
SELECT (ARRAY['x', 'y', 'z'])[1 + i % 3] AS a, (ARRAY['p', 'q', 'r'])[1 + i % 3] AS b
  FROM generate_series(1, 60) i;
CREATE TABLE sp3_tgt(id int PRIMARY KEY, b text);
INSERT INTO sp3_tgt VALUES (1, 'p'), (2, 'q'), (3, 'r');
SELECT target_key, (array_agg(value ORDER BY score DESC))[1] AS best,
	   round(sum(score)::numeric, 9) AS total
  FROM tapas.aia_scores('synthetic_predictor_aia', 'sp3', 'sp3_tgt', 'a',
						'{"estimator": "logistic_regression"}')
 GROUP BY target_key ORDER BY target_key;

-- errors
\set VERBOSITY default
SELECT * FROM tapas.aia_scores('closest_distance_mia', 'aia_syn', 'aia_tgt', 's');
SELECT * FROM tapas.aia_scores('nearest', 'aia_syn', 'aia_tgt', 's');
SELECT * FROM tapas.aia_scores('closest_distance_aia', 'aia_syn', 'aia_tgt', 'z');
SELECT * FROM tapas.aia_scores('closest_distance_aia', 'aia_syn', 'aia_tgt', 'nope');
SELECT * FROM tapas.aia_scores('closest_distance_aia', 'aia_syn', 'aia_tgt', 's', '{"exclude": ["s"]}');
SELECT * FROM tapas.aia_scores('closest_distance_aia', 'aia_syn', 'aia_tgt', NULL);
SELECT * FROM tapas.aia_scores('synthetic_predictor_aia', 'aia_syn', 'aia_tgt', 's', '{"estimator": "forest"}');
SELECT * FROM tapas.aia_scores('synthetic_predictor_aia', 'aia_syn', 'aia_tgt', 's', '{"C": 0}');
SELECT * FROM tapas.aia_scores('synthetic_predictor_aia', 'aia_syn', 'aia_tgt', 's', '{"radius": 1}');
-- declaring z categorical makes it a valid sensitive column
SELECT target_key, value, score FROM tapas.aia_scores('closest_distance_aia', 'aia_syn', 'aia_tgt', 'z',
	'{"schema": {"z": "categorical"}}') WHERE target_key = '1' ORDER BY value;
\set VERBOSITY terse
