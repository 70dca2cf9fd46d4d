-- The Hadamard attack: 1,024 SUM queries, each over half of a 1,024-row
-- table (the first over all of it), give back every single value.
\set VERBOSITY terse
CREATE TABLE rd_salaries (id bigint PRIMARY KEY, salary integer NOT NULL);
INSERT INTO rd_salaries SELECT g, 1000 + (g * 7919) % 4001 FROM generate_series(1, 1024) g;

SELECT * FROM tapas.design_info('hadamard', 1024);

CREATE TABLE rd_hadamard_answers AS
SELECT q, count(*) AS covered, sum(salary) AS answer
  FROM rd_salaries, generate_series(1, 1024) q
 WHERE tapas.design_member('hadamard', 1024, 1, q, id)
 GROUP BY q;
SELECT count(*) AS queries, min(covered), max(covered) FROM rd_hadamard_answers;

-- every record is recovered exactly
SELECT count(*) AS records,
       count(*) FILTER (WHERE r.value = s.salary) AS exact
  FROM tapas.reconstruct('hadamard', 1024,
                         (SELECT array_agg(answer ORDER BY q) FROM rd_hadamard_answers)) r
  JOIN rd_salaries s ON s.id = r.record;
SELECT * FROM tapas.reconstruct('hadamard', 1024,
                                (SELECT array_agg(answer ORDER BY q) FROM rd_hadamard_answers))
 ORDER BY record LIMIT 3;

-- a shortened design: 1,000 rows need 1,024 queries; with k = 500 some are complemented
CREATE TABLE rd_ages AS SELECT g::bigint AS id, 18 + (g * 31) % 70 AS age FROM generate_series(1, 1000) g;
SELECT * FROM tapas.design_info('hadamard', 1000, 1, 500);
SELECT count(*) FILTER (WHERE r.value = a.age) AS exact, count(*) AS records
  FROM tapas.reconstruct('hadamard', 1000,
         (SELECT array_agg(answer ORDER BY q) FROM (
            SELECT q, coalesce(sum(age), 0) AS answer
              FROM generate_series(1, 1024) q LEFT JOIN rd_ages
                ON tapas.design_member('hadamard', 1000, 1, q, id, 500)
             GROUP BY q) t),
         1, 500) r
  JOIN rd_ages a ON a.id = r.record;

-- noisy answers (a deterministic perturbation in -2..2): least-squares
-- estimates, within 0.5 of the truth for nearly every record
SELECT count(*) FILTER (WHERE abs(r.value - s.salary) < 0.5) AS within_half, count(*) AS records
  FROM tapas.reconstruct('hadamard', 1024,
         (SELECT array_agg(answer + (q * 37 % 5) - 2 ORDER BY q) FROM rd_hadamard_answers),
         noise => 2) r
  JOIN rd_salaries s ON s.id = r.record;

-- one answer off by one: no integer table explains the answers
SELECT * FROM tapas.reconstruct('hadamard', 1024,
         (SELECT array_agg(answer + CASE WHEN q = 700 THEN 1 ELSE 0 END ORDER BY q)
            FROM rd_hadamard_answers));
\echo :LAST_ERROR_SQLSTATE

DROP TABLE rd_hadamard_answers, rd_salaries, rd_ages;
