-- Bernoulli + OMP end to end in SQL: a 5-sparse binary column of 10,000
-- rows recovered from 150 exact COUNT answers, and from 400 answers with
-- Laplace noise of scale 1 on every one.  The design is a seeded hash:
-- record r is in query q iff bit 0 of hashint8(q * 1000003 + r) is set.
\set VERBOSITY terse
CREATE TEMP TABLE patients AS
SELECT id, id IN (17, 2024, 4711, 8888, 9999) AS rare
  FROM generate_series(1, 10000) id;
CREATE FUNCTION pg_temp.member(q integer, r bigint) RETURNS boolean
	LANGUAGE sql IMMUTABLE AS $$ SELECT (hashint8(q::bigint * 1000003 + r) & 1) = 1 $$;

-- The attacker's queries: plain COUNTs over half the table each.
CREATE TEMP TABLE answers AS
SELECT q, (SELECT count(*) FROM patients WHERE rare AND pg_temp.member(q, id)) AS cnt,
	   (SELECT count(*) FROM patients WHERE pg_temp.member(q, id)) AS coverage
  FROM generate_series(1, 400) q;
SELECT min(coverage), max(coverage), round(avg(coverage)) AS mean FROM answers;

-- 150 exact answers.
SELECT record, value FROM tapas.reconstruct_matrix(
	'SELECT q, id FROM generate_series(1, 150) q, generate_series(1, 10000) id
	  WHERE pg_temp.member(q, id)',
	(SELECT array_agg(cnt ORDER BY q) FROM answers WHERE q <= 150), 'omp', 5)
 ORDER BY record;

-- 400 answers with Laplace noise of scale 1 (seeded).
SELECT setseed(0.25);
CREATE TEMP TABLE noisy AS
SELECT q, cnt + (CASE WHEN u < 0.5 THEN ln(2 * u) ELSE -ln(2 - 2 * u) END) AS noisy_cnt
  FROM (SELECT q, cnt, random() AS u FROM answers ORDER BY q) t;
SELECT count(*) FILTER (WHERE noisy_cnt <> cnt) AS perturbed, round(avg(abs(noisy_cnt - cnt))::numeric, 1) AS mean_abs_noise
  FROM noisy JOIN answers USING (q);
SELECT record, value FROM tapas.reconstruct_matrix(
	'SELECT q, id FROM generate_series(1, 400) q, generate_series(1, 10000) id
	  WHERE pg_temp.member(q, id)',
	(SELECT array_agg(noisy_cnt::numeric ORDER BY q) FROM noisy), 'omp', 5, 1.0)
 ORDER BY record;
-- Treating the noisy answers as exact is refused as inconsistent.
SELECT record, value FROM tapas.reconstruct_matrix(
	'SELECT q, id FROM generate_series(1, 400) q, generate_series(1, 10000) id
	  WHERE pg_temp.member(q, id)',
	(SELECT array_agg(noisy_cnt::numeric ORDER BY q) FROM noisy), 'omp', 5);
-- The LP decoder needs fewer exact answers: 80 suffice here.
SELECT record, value FROM tapas.reconstruct_matrix(
	'SELECT q, id FROM generate_series(1, 80) q, generate_series(1, 10000) id
	  WHERE pg_temp.member(q, id)',
	(SELECT array_agg(cnt ORDER BY q) FROM answers WHERE q <= 80), 'lp', 5)
 ORDER BY record;
-- The auditor's exhaustive test on the same 80 queries: weight <= 3 cannot
-- explain them (the true weight is 5), so it reports no solution.
SELECT * FROM tapas.reconstruct_matrix(
	'SELECT q, id FROM generate_series(1, 80) q, generate_series(1, 10000) id
	  WHERE pg_temp.member(q, id)',
	(SELECT array_agg(cnt ORDER BY q) FROM answers WHERE q <= 80), 'sparse', 3);
