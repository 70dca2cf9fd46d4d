-- Bernoulli design + compressed sensing: a 5-sparse binary column of 10,000
-- rows from 110 random half-covering queries (seed 7).
\set VERBOSITY terse
CREATE TABLE rd_staff (id bigint PRIMARY KEY, flagged boolean NOT NULL);
INSERT INTO rd_staff SELECT g, g IN (17, 2024, 5003, 7777, 9999) FROM generate_series(1, 10000) g;

SELECT * FROM tapas.design_info('bernoulli', 10000, 5, 0, 7);

SELECT * FROM tapas.reconstruct('bernoulli', 10000,
  (SELECT array_agg(a ORDER BY q) FROM (
     SELECT q, count(*) FILTER (WHERE flagged) AS a
       FROM rd_staff, generate_series(1, tapas.design_size('bernoulli', 10000, 5)) q
      WHERE tapas.design_member('bernoulli', 10000, 5, q, id, 0, 7) GROUP BY q) t),
  5, 0, 7)
 ORDER BY record;

-- the wrong seed does not decode
SELECT * FROM tapas.reconstruct('bernoulli', 10000,
  (SELECT array_agg(a ORDER BY q) FROM (
     SELECT q, count(*) FILTER (WHERE flagged) AS a
       FROM rd_staff, generate_series(1, tapas.design_size('bernoulli', 10000, 5)) q
      WHERE tapas.design_member('bernoulli', 10000, 5, q, id, 0, 7) GROUP BY q) t),
  5, 0, 8);
\echo :LAST_ERROR_SQLSTATE

-- The design is endless: design_size is a recommendation and the attacker
-- chooses m.  150 exact answers at n = 10,000, s = 5 (recommended: 110).
SELECT tapas.design_size('bernoulli', 10000, 5) AS recommended,
	   tapas.design_member('bernoulli', 10000, 5, 150, 17, 0, 7) IS NOT NULL AS query_150,
	   tapas.design_member('bernoulli', 10000, 5, 1000000, 17, 0, 7) IS NOT NULL AS query_1000000;
SELECT array_agg(record ORDER BY record) AS recovered, count(*) FILTER (WHERE value <> 1) AS not_one
  FROM tapas.reconstruct('bernoulli', 10000,
  (SELECT array_agg(a ORDER BY q) FROM (
     SELECT q, count(*) FILTER (WHERE flagged) AS a
       FROM rd_staff, generate_series(1, 150) q
      WHERE tapas.design_member('bernoulli', 10000, 5, q, id, 0, 7) GROUP BY q) t),
  5, 0, 7);
-- 400 answers with Laplace(1) noise (u from a hash of q, so the run is
-- deterministic; noise = -sign(u - 1/2) ln(1 - 2 |u - 1/2|))
CREATE TEMP TABLE rd_noisy AS
SELECT q, a + CASE WHEN u < 0.5 THEN ln(1 - 2 * abs(u - 0.5)) ELSE -ln(1 - 2 * abs(u - 0.5)) END AS a
  FROM (SELECT q, count(*) FILTER (WHERE flagged) AS a,
			   ((hashint8(q * 7919) & 2147483647)::float8 + 0.5) / 2147483648 AS u
		  FROM rd_staff, generate_series(1, 400) q
		 WHERE tapas.design_member('bernoulli', 10000, 5, q, id, 0, 7) GROUP BY q) t;
SELECT count(*) AS answers, count(*) FILTER (WHERE a <> round(a)) AS noisy,
	   round(avg(abs(a - round(a)))::numeric, 1) > 0 AS some_noise FROM rd_noisy;
SELECT array_agg(record ORDER BY record) AS recovered
  FROM tapas.reconstruct('bernoulli', 10000,
	   (SELECT array_agg(a::numeric ORDER BY q) FROM rd_noisy), 5, 0, 7, 1.0);
-- the same noisy answers as exact ones are refused (not integers)
SELECT * FROM tapas.reconstruct('bernoulli', 10000,
	   (SELECT array_agg(a::numeric ORDER BY q) FROM rd_noisy), 5, 0, 7);
-- with k: queries beyond the recommendation are complemented like the others
SELECT bool_and(c >= 5000) AS every_query_covers_k
  FROM (SELECT q, count(*) AS c FROM rd_staff, generate_series(1, 300) q
		 WHERE tapas.design_member('bernoulli', 10000, 5, q, id, 5000, 7) GROUP BY q) t;
-- other designs are not endless; no answers at all is an error
SELECT tapas.design_member('hadamard', 64, 1, 65, 1);
SELECT * FROM tapas.reconstruct('bernoulli', 10000, ARRAY[]::numeric[], 5);
DROP TABLE rd_staff;
