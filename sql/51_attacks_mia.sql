-- Membership inference scores: closest distance (Hamming, L1, L2, Lp,
-- column subsets), local neighbourhood, probability estimation (KDE and
-- the independent model), each against scores recomputed in plain SQL.
SET search_path = att, public;
CREATE TABLE real_data(a text, b int, z float8);
INSERT INTO real_data VALUES
	('x', 1, 0.0), ('x', 2, 0.5), ('y', 2, 1.0), ('z', 1, 1.0), ('y', 1, 0.25);
-- the "raw" generator: the synthetic data is the real data
CREATE TABLE synth AS SELECT * FROM real_data WHERE z <> 0.25;
CREATE TABLE targets(id int PRIMARY KEY, a text, b int, z float8);
INSERT INTO targets VALUES
	(1, 'y', 2, 1.0),		-- in the synthetic data
	(2, 'y', 1, 0.25),		-- a member of real_data left out of synth
	(3, 'w', 3, 0.5),		-- a value never seen in synth
	(4, 'x', 2, 0.0);

-- Hamming: score = -min Hamming distance; a present target scores 0
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets') ORDER BY target_key;
-- the same in SQL
SELECT t.id, -min((t.a IS DISTINCT FROM s.a)::int + (t.b IS DISTINCT FROM s.b)::int
				  + (t.z IS DISTINCT FROM s.z)::int) AS score
  FROM targets t, synth s GROUP BY t.id ORDER BY t.id;
-- a raw copy of all the real data: every real record scores 0
SELECT count(*) FILTER (WHERE score = 0) AS zero, count(*)
  FROM tapas.mia_scores('closest_distance_mia', 'real_data',
						'targets', '{"distance": "hamming"}') s
 WHERE target_key IN ('1', '2');
-- Hamming over a column subset (the reference ignores it)
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets',
	'{"distance": {"type": "hamming", "columns": ["a"]}}') ORDER BY target_key;
-- L1 and L2 on the encoding: a and b one-hot (their dictionaries span the
-- union of synth and targets: a in {w, x, y, z}, b in {1, 2, 3}), z scaled
-- to [0, 1]; synth alone:
SELECT column_name, kind, cardinality, lower, upper
  FROM tapas.describe('synth');
SELECT target_key, round(score::numeric, 6) AS score
  FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets', '{"distance": "l1"}')
 ORDER BY target_key;
-- L1 in SQL: 2 per categorical mismatch, |dz| for z (bounds 0..1)
SELECT t.id, round(-min(2 * (t.a <> s.a)::int + 2 * (t.b <> s.b)::int
						+ abs(t.z - s.z))::numeric, 6) AS score
  FROM targets t, synth s GROUP BY t.id ORDER BY t.id;
SELECT target_key, round(score::numeric, 6) AS score
  FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets', '{"distance": "l2"}')
 ORDER BY target_key;
SELECT t.id, round(-min(sqrt(2 * (t.a <> s.a)::int + 2 * (t.b <> s.b)::int
							 + (t.z - s.z) ^ 2))::numeric, 6) AS score
  FROM targets t, synth s GROUP BY t.id ORDER BY t.id;
SELECT target_key, round(score::numeric, 6) AS score
  FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets',
						'{"distance": {"type": "lp", "p": 3}}')
 ORDER BY target_key;
-- continuous bounds come from the union: a target outside the synthetic
-- range widens them (z scaled over [0, 10] here)
CREATE TABLE far(id int PRIMARY KEY, a text, b int, z float8);
INSERT INTO far VALUES (1, 'x', 1, 10.0), (2, 'x', 1, 0.0);
SELECT target_key, score FROM tapas.mia_scores('closest_distance_mia', 'synth', 'far',
	'{"distance": "l1"}') ORDER BY target_key;

-- local neighbourhood: fraction of synthetic rows within the radius
SELECT * FROM tapas.mia_scores('local_neighbourhood_mia', 'synth', 'targets') ORDER BY target_key;
SELECT * FROM tapas.mia_scores('local_neighbourhood_mia', 'synth', 'targets',
	'{"radius": 2}') ORDER BY target_key;
SELECT t.id, avg((((t.a IS DISTINCT FROM s.a)::int + (t.b IS DISTINCT FROM s.b)::int
				  + (t.z IS DISTINCT FROM s.z)::int) <= 2)::int)::float8 AS score
  FROM targets t, synth s GROUP BY t.id ORDER BY t.id;
SELECT * FROM tapas.mia_scores('local_neighbourhood_mia', 'synth', 'targets',
	'{"radius": 0.5, "distance": "l2"}') ORDER BY target_key;

-- probability estimation, Gaussian KDE on z alone with bandwidth 0.5:
-- log( mean_i exp(-(x - y_i)^2 / (2 h^2)) / sqrt(2 pi h^2) )
SELECT target_key, round(score::numeric, 9) AS score
  FROM tapas.mia_scores('probability_estimation_mia', 'synth', 'targets',
						'{"columns": ["z"], "estimator": "kde", "bandwidth": 0.5}')
 ORDER BY target_key;
SELECT t.id, round(ln(avg(exp(-((t.z - s.z) ^ 2) / 0.5)) / sqrt(2 * pi() * 0.25))::numeric, 9)
  FROM targets t, synth s GROUP BY t.id ORDER BY t.id;
-- default bandwidth rule (Scott) and Silverman: a member scores above a stranger
SELECT target_key, score > -1e300 AS finite, rank() OVER (ORDER BY score DESC)
  FROM tapas.mia_scores('probability_estimation_mia', 'synth', 'targets') ORDER BY target_key;
SELECT target_key, rank() OVER (ORDER BY score DESC)
  FROM tapas.mia_scores('probability_estimation_mia', 'synth', 'targets',
						'{"bandwidth": "silverman"}') ORDER BY target_key;
-- independent model: sum of log smoothed frequencies, (count + 1) / (4 + card)
SELECT target_key, round(score::numeric, 9) AS score
  FROM tapas.mia_scores('probability_estimation_mia', 'synth', 'targets',
						'{"estimator": "independent", "columns": ["a", "b"]}')
 ORDER BY target_key;
SELECT t.id, round((ln(((SELECT count(*) FROM synth s WHERE s.a = t.a) + 1) / 8.0)
				   + ln(((SELECT count(*) FROM synth s WHERE s.b = t.b) + 1) / 7.0))::numeric, 9)
  FROM targets t ORDER BY t.id;
-- with a continuous column: a histogram over the bounds (2 bins of width 0.5)
SELECT target_key, round(score::numeric, 9) AS score
  FROM tapas.mia_scores('probability_estimation_mia', 'synth', 'targets',
						'{"estimator": "independent", "columns": ["z"], "bins": 2, "alpha": 0}')
 ORDER BY target_key;

-- many targets take the blocked BLAS path for L2 (on all columns); the
-- per-target scans (forced by naming the columns) give identical scores
CREATE TABLE many AS
SELECT i AS id, (ARRAY['x', 'y', 'z', 'w'])[1 + i % 4] AS a, 1 + (i * 7) % 3 AS b,
	   ((i * 13) % 11) / 10.0::float8 AS z
  FROM generate_series(1, 40) i;
ALTER TABLE many ADD PRIMARY KEY (id);
INSERT INTO many SELECT 100 + row_number() OVER (ORDER BY a, b, z), a, b, z FROM synth;
SELECT count(*) AS targets, count(*) FILTER (WHERE f.score = s.score) AS equal,
	   count(*) FILTER (WHERE f.score = 0) AS present
  FROM tapas.mia_scores('closest_distance_mia', 'synth', 'many', '{"distance": "l2"}') f
  JOIN tapas.mia_scores('closest_distance_mia', 'synth', 'many',
	'{"distance": {"type": "lp", "p": 2, "columns": ["a", "b", "z"]}}') s USING (target_key);
SELECT count(*) AS targets, count(*) FILTER (WHERE f.score = s.score) AS equal,
	   sum(f.score) AS total
  FROM tapas.mia_scores('local_neighbourhood_mia', 'synth', 'many', '{"distance": "l2", "radius": 1.5}') f
  JOIN tapas.mia_scores('local_neighbourhood_mia', 'synth', 'many',
	'{"distance": {"type": "lp", "p": 2, "columns": ["a", "b", "z"]}, "radius": 1.5}') s USING (target_key);

-- the key can be any column
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 'real_data',
	'{"key": "z"}') ORDER BY target_key;

-- errors
\set VERBOSITY default
SELECT * FROM tapas.mia_scores('closest_distance', 'synth', 'targets');
SELECT * FROM tapas.mia_scores('closest_distance_aia', 'synth', 'targets');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets', '{"radius": 1}');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets', '{"distance": "cosine"}');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets', '{"distance": {"type": "lp", "p": 0}}');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets', '{"distance": {"type": "lp", "q": 2}}');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets', '{"distance": {"columns": ["zz"]}}');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets', '{"distance": 7}');
SELECT * FROM tapas.mia_scores('local_neighbourhood_mia', 'synth', 'targets', '{"radius": -1}');
SELECT * FROM tapas.mia_scores('local_neighbourhood_mia', 'synth', 'targets', '{"radius": "far"}');
SELECT * FROM tapas.mia_scores('probability_estimation_mia', 'synth', 'targets', '{"estimator": "gmm"}');
SELECT * FROM tapas.mia_scores('probability_estimation_mia', 'synth', 'targets', '{"bandwidth": "wide"}');
SELECT * FROM tapas.mia_scores('probability_estimation_mia', 'synth', 'targets', '{"bandwidth": -1}');
SELECT * FROM tapas.mia_scores('probability_estimation_mia', 'synth', 'targets', '{"estimator": "independent", "bins": 0}');
SELECT * FROM tapas.mia_scores(NULL, 'synth', 'targets');
SELECT * FROM tapas.mia_scores('closest_distance_mia', NULL, 'targets');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', NULL);
-- targets must match the synthetic columns
CREATE TABLE t_extra(id int PRIMARY KEY, a text, b int, z float8, member boolean);
INSERT INTO t_extra VALUES (1, 'x', 1, 0, true);
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 't_extra');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 't_extra', '{"exclude": ["member"]}');
CREATE TABLE t_lacks(id int PRIMARY KEY, a text, b int);
INSERT INTO t_lacks VALUES (1, 'x', 1);
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 't_lacks');
CREATE TABLE t_type(id int PRIMARY KEY, a text, b int, z numeric);
INSERT INTO t_type VALUES (1, 'x', 1, 0);
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 't_type');
CREATE TABLE t_nokey(a text, b int, z float8);
INSERT INTO t_nokey VALUES ('x', 1, 0);
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 't_nokey');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 't_nokey', '{"key": "id"}');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 't_nokey', '{"key": "a"}');
-- empty tables
CREATE TABLE t_empty(id int PRIMARY KEY, a text, b int, z float8);
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 't_empty');
CREATE TABLE s_empty(a text, b int, z float8);
SELECT * FROM tapas.mia_scores('closest_distance_mia', 's_empty', 'targets');
-- NULL in a continuous column of the targets
INSERT INTO t_empty VALUES (1, 'x', 1, NULL);
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 't_empty');
-- NULL in a categorical column is a category of its own
UPDATE t_empty SET z = 0, a = NULL;
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 't_empty');
\set VERBOSITY terse

-- SQLSTATEs of the main refusals
SELECT * FROM tapas.mia_scores('nope', 'synth', 'targets');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 't_lacks');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 't_type');
\echo :LAST_ERROR_SQLSTATE
UPDATE t_empty SET z = NULL;
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 't_empty');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM tapas.mia_scores('closest_distance_mia', NULL, 'targets');
\echo :LAST_ERROR_SQLSTATE
-- a NULL params is an error like any NULL argument (not the defaults, '{}')
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'synth', 'targets', NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM tapas.aia_scores('closest_distance_aia', 'synth', 'targets', 'z', NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM tapas.describe('synth', NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM tapas.describe('synth', '{}');
-- an encoding above the size limit (6,000 rows of 6,000 one-hot cells)
CREATE TABLE wide AS SELECT 'v' || i AS name FROM generate_series(1, 6000) i;
CREATE TABLE wide_t(id int PRIMARY KEY, name text);
INSERT INTO wide_t VALUES (1, 'v1');
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'wide', 'wide_t', '{"distance": "l2"}');
\echo :LAST_ERROR_SQLSTATE
-- ... while Hamming needs no encoding
SELECT * FROM tapas.mia_scores('closest_distance_mia', 'wide', 'wide_t');

-- cancellation: a long L2 scoring run stops at the statement timeout
CREATE TABLE big_s AS SELECT (i % 97)::float8 AS u, (i % 89)::float8 AS v, (i % 83)::float8 AS w
  FROM generate_series(1, 20000) i;
CREATE TABLE big_t AS SELECT i AS id, ((i * 7) % 97)::float8 AS u, ((i * 3) % 89)::float8 AS v,
  ((i * 5) % 83)::float8 AS w FROM generate_series(1, 20000) i;
ALTER TABLE big_t ADD PRIMARY KEY (id);
SET statement_timeout = '150ms';
SELECT count(*) FROM tapas.mia_scores('local_neighbourhood_mia', 'big_s', 'big_t',
	'{"distance": "l2", "radius": 0.01}');
RESET statement_timeout;
