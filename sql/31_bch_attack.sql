-- The article's scenario, end to end in plain SQL: 100,000 patients, one of
-- them HIV-positive, and a database that only answers COUNT queries covering
-- at least k = 50,000 patients.  18 BCH queries isolate the patient.
\set VERBOSITY terse
CREATE TABLE rd_patients (id bigint PRIMARY KEY, age integer, hiv boolean NOT NULL);
INSERT INTO rd_patients
SELECT g, 20 + g % 60, g = 73512 FROM generate_series(1, 100000) g;
ANALYZE rd_patients;

-- the design: 17 parity queries plus one total query, each >= 50,000 patients
SELECT * FROM tapas.design_info('bch', 100000, 1, 50000);

-- the attacker's queries and the answers they get (every query is k-anonymous)
CREATE TABLE rd_bch_answers AS
SELECT q, count(*) AS covered, count(*) FILTER (WHERE hiv) AS answer
  FROM rd_patients, generate_series(1, tapas.design_size('bch', 100000, 1, 50000)) q
 WHERE tapas.design_member('bch', 100000, 1, q, id, 50000)
 GROUP BY q;
SELECT count(*) AS queries, min(covered) >= 50000 AS all_k_anonymous,
       string_agg(answer::text, '' ORDER BY q) AS answers
  FROM rd_bch_answers;

-- decoding the 18 answers gives the patient's id
SELECT * FROM tapas.reconstruct('bch', 100000,
                                (SELECT array_agg(answer ORDER BY q) FROM rd_bch_answers),
                                1, 50000);

-- the same with one query per statement, as an analyst would type them
SELECT count(*) FILTER (WHERE hiv) AS q3
  FROM rd_patients WHERE tapas.design_member('bch', 100000, 1, 3, id, 50000);

-- nobody positive: nothing is returned
SELECT * FROM tapas.reconstruct('bch', 100000, array_fill(0::numeric, ARRAY[18]), 1, 50000);

-- two positives but s = 1: detected and reported, not a wrong patient
UPDATE rd_patients SET hiv = true WHERE id = 4242;
SELECT * FROM tapas.reconstruct('bch', 100000,
  (SELECT array_agg(a ORDER BY q) FROM (
     SELECT q, count(*) FILTER (WHERE hiv) AS a
       FROM rd_patients, generate_series(1, 18) q
      WHERE tapas.design_member('bch', 100000, 1, q, id, 50000) GROUP BY q) t),
  1, 50000);
\echo :LAST_ERROR_SQLSTATE

-- without k there is no total query: the parity decoder and the re-check of
-- every count against the decoded record catch it
SELECT * FROM tapas.reconstruct('bch', 100000,
  (SELECT array_agg(a ORDER BY q) FROM (
     SELECT q, count(*) FILTER (WHERE hiv) AS a
       FROM rd_patients, generate_series(1, 17) q
      WHERE tapas.design_member('bch', 100000, 1, q, id) GROUP BY q) t));
\echo :LAST_ERROR_SQLSTATE

-- ... and with s = 2 (35 queries) both are found
SELECT * FROM tapas.reconstruct('bch', 100000,
  (SELECT array_agg(a ORDER BY q) FROM (
     SELECT q, count(*) FILTER (WHERE hiv) AS a
       FROM rd_patients, generate_series(1, tapas.design_size('bch', 100000, 2, 50000)) q
      WHERE tapas.design_member('bch', 100000, 2, q, id, 50000) GROUP BY q) t),
  2, 50000);

DROP TABLE rd_bch_answers;
DROP TABLE rd_patients;
