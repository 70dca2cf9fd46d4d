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
DROP TABLE rd_staff;
