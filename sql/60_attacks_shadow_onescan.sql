-- tapas.evaluate reads its auxiliary table once when every dataset column
-- is a text or varchar column under a deterministic collation: the label
-- scan that gathers the dictionaries keeps the rows and codes them
-- (src/api/dataset_columns.c, code_kept_rows).  Other tables take the
-- label scan and then a second scan of the rows.  The two readers must
-- give the same codes: one_t (all text) and two_t (column e an enum whose
-- declared order is the "C" order of one_t's e, so the same dictionary;
-- the enum keeps the SQL dictionary query and the second scan) give the
-- same scores, NULLs, a declared order and a text key included.
\set VERBOSITY terse
CREATE TYPE onescan_e AS ENUM ('E1', 'e2', 'e3');
CREATE TABLE one_t AS
SELECT i AS id, 'r' || i AS k,
       (ARRAY['a', 'b', 'c', NULL])[1 + abs(hashint4(i * 3 + 1)) % 4] AS a,
       (ARRAY['x', 'y', 'Z'])[1 + abs(hashint4(i * 5 + 2)) % 3] COLLATE "C" AS b,
       (ARRAY['p', 'q', 'r', 's'])[1 + abs(hashint4(i * 7 + 3)) % 4]::varchar(4) AS v,
       (ARRAY['lo', 'mid', 'hi'])[1 + abs(hashint4(i * 11 + 4)) % 3] AS o,
       (ARRAY['E1', 'e2', 'e3'])[1 + abs(hashint4(i * 13 + 5)) % 3] COLLATE "C" AS e
  FROM generate_series(1, 300) i;
ALTER TABLE one_t ADD PRIMARY KEY (id);
CREATE TABLE two_t AS SELECT id, k, a, b, v, o, e::onescan_e AS e FROM one_t;
ALTER TABLE two_t ADD PRIMARY KEY (id);
-- a duplicated and a NULL key in the key column k
INSERT INTO one_t VALUES (301, 'r17', 'a', 'x', 'p', 'lo', 'E1'), (302, NULL, 'b', 'y', 'q', 'mid', 'e2');
INSERT INTO two_t VALUES (301, 'r17', 'a', 'x', 'p', 'lo', 'E1'), (302, NULL, 'b', 'y', 'q', 'mid', 'e2');

\set p '{"num_training_records": 60, "num_training_datasets": 60, "num_test_datasets": 40, "seed": 3, "exclude": ["id", "k"], "schema": {"o": {"type": "ordinal", "order": ["lo", "mid", "hi"]}}}'

-- the dictionaries are the same (e: the enum's order is one_t's "C" order)
SELECT o.column_name, o.categories, o.categories = t.categories AS same
  FROM tapas.describe('one_t', :'p'::jsonb - 'num_training_records' - 'num_training_datasets'
                      - 'num_test_datasets' - 'seed') o
  JOIN tapas.describe('two_t', :'p'::jsonb - 'num_training_records' - 'num_training_datasets'
                      - 'num_test_datasets' - 'seed') t USING (column_name)
 ORDER BY 1;

-- the same scores, record by record, by the primary key and by the text key
SELECT count(*) AS same_scores
  FROM tapas.evaluate_scores('targeted_mia', 'groundhog', 'one_t', '31', :'p') a
  JOIN tapas.evaluate_scores('targeted_mia', 'groundhog', 'two_t', '31', :'p') b
 USING (dataset_no, label, score);
SELECT count(*) AS same_scores
  FROM tapas.evaluate_scores('targeted_mia', 'closest_distance_mia', 'one_t', 'r31',
       :'p'::jsonb || '{"key": "k"}') a
  JOIN tapas.evaluate_scores('targeted_mia', 'closest_distance_mia', 'two_t', 'r31',
       :'p'::jsonb || '{"key": "k"}') b
 USING (dataset_no, label, score);
SELECT round(accuracy::numeric, 3) AS accuracy, round(auc::numeric, 3) AS auc, n_features
  FROM tapas.evaluate('targeted_mia', 'groundhog', 'one_t', '31', :'p');
SELECT round(accuracy::numeric, 3) AS accuracy, round(auc::numeric, 3) AS auc
  FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'one_t', 'r31',
       :'p'::jsonb || '{"key": "k"}');
-- AIA on a text column with a NULL category: the sensitive value is read
SELECT round(accuracy::numeric, 3) AS accuracy
  FROM tapas.evaluate('targeted_aia', 'groundhog', 'one_t', '31',
       :'p'::jsonb || '{"sensitive": "b", "values": ["x", "y"]}');
SELECT round(accuracy::numeric, 3) AS accuracy
  FROM tapas.evaluate('targeted_aia', 'groundhog', 'two_t', '31',
       :'p'::jsonb || '{"sensitive": "b", "values": ["x", "y"]}');

-- the text key's errors, in both readers
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'one_t', 'r17',
       :'p'::jsonb || '{"key": "k"}');
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'two_t', 'r17',
       :'p'::jsonb || '{"key": "k"}');
SELECT accuracy FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'one_t', 'r999',
       :'p'::jsonb || '{"key": "k"}');
DROP TABLE one_t, two_t;
DROP TYPE onescan_e;
