-- Dictionaries of text and varchar columns under a deterministic collation
-- are gathered by one scan in C (src/api/dataset_labels.c); they must list
-- the labels the SQL DISTINCT ... ORDER BY gives, in its order, NULL last,
-- whatever the collation: the database's default, "C", varchar, case and
-- accents, digits, the empty string; other types keep the SQL query.
-- Only the comparisons are printed (the default collation's order depends
-- on the machine's locale).
CREATE SCHEMA dict;
SET search_path = dict, public;
CREATE TABLE words (
	id int PRIMARY KEY,
	t text,
	tc text COLLATE "C",
	vc varchar(8),
	n int
);
INSERT INTO words VALUES
	(1, 'b', 'b', 'b', 3), (2, 'B', 'B', 'B', 1), (3, 'a', 'a', 'a', 2),
	(4, 'A', 'A', 'A', 3), (5, '10', '10', '10', NULL), (6, '9', '9', '9', 2),
	(7, '', '', '', 1), (8, NULL, NULL, NULL, 1), (9, 'a b', 'a b', 'a b', 2),
	(10, 'ab', 'ab', 'ab', 3), (11, 'é', 'é', 'é', 1), (12, 'e', 'e', 'e', 2),
	(13, 'b', 'b', 'b', 1), (14, 'a', 'a', 'a', 2), (15, 'Éa', 'Éa', 'Éa', 4);
-- tl: a linguistic collation ('a' < 'B') when the machine has one, else "C"
DO $$
DECLARE
	c name;
	found name := 'C';
	ok bool;
BEGIN
	FOR c IN SELECT collname FROM pg_collation
			  WHERE collisdeterministic AND collprovider IN ('c', 'i')
				AND collencoding IN (-1, pg_char_to_encoding(current_setting('server_encoding')))
				AND collname NOT IN ('C', 'POSIX', 'ucs_basic')
			  ORDER BY collprovider, collname
	LOOP
		EXECUTE format('SELECT %L COLLATE %I < %L COLLATE %I', 'a', c, 'B', c) INTO ok;
		IF ok THEN
			found := c;
			EXIT;
		END IF;
	END LOOP;
	EXECUTE format('ALTER TABLE words ADD COLUMN tl text COLLATE %I', found);
END
$$;
UPDATE words SET tl = t;
CREATE VIEW sql_order AS
	SELECT 't' AS name, array_agg(t ORDER BY t NULLS LAST) AS labels
	  FROM (SELECT DISTINCT t FROM words) s
	UNION ALL
	SELECT 'tc', array_agg(tc::text ORDER BY tc NULLS LAST) FROM (SELECT DISTINCT tc FROM words) s
	UNION ALL
	SELECT 'vc', array_agg(vc::text ORDER BY vc NULLS LAST) FROM (SELECT DISTINCT vc FROM words) s
	UNION ALL
	SELECT 'tl', array_agg(tl ORDER BY tl NULLS LAST) FROM (SELECT DISTINCT tl FROM words) s
	UNION ALL
	SELECT 'n', array_agg(n::text ORDER BY n NULLS LAST) FROM (SELECT DISTINCT n FROM words) s;
SELECT d.column_name, cardinality(d.categories) AS labels,
	   d.categories IS NOT DISTINCT FROM o.labels AS same_as_sql
  FROM tapas.describe('words', '{"exclude": ["id"]}') d
  JOIN sql_order o ON o.name = d.column_name
 ORDER BY 1;
-- many labels: the C sets grow, and the labels outlive the scan
CREATE TABLE many AS SELECT 'w' || (i * 7919 % 3000) AS w FROM generate_series(1, 6000) i;
SELECT cardinality(categories) AS labels,
	   categories = (SELECT array_agg(w ORDER BY w) FROM (SELECT DISTINCT w FROM many) s) AS same_as_sql
  FROM tapas.describe('many');
-- over two tables the targets' values join the dictionaries: reading
-- 'zz', 'Ab' and 7 from the targets needs them there
CREATE TABLE more_words (id int PRIMARY KEY, t text, tc text COLLATE "C", vc varchar(8), n int);
INSERT INTO more_words VALUES (1, 'zz', 'zz', 'zz', 7), (2, 'Ab', 'Ab', 'Ab', 0), (3, 'b', 'b', 'b', 3);
SELECT target_key, round(score::numeric, 3) AS score
  FROM tapas.mia_scores('closest_distance_mia', 'words', 'more_words', '{"exclude": ["id", "tl"]}')
 ORDER BY target_key;
-- one-byte labels (looked up directly, dataset_labels.c) past the first
-- growth of the set, mixed with long labels that share their first 8 bytes
-- (compared by word, then by tail): the dictionary is still SQL's
CREATE TABLE bytes AS
SELECT CASE WHEN i % 3 = 0 THEN 'prefix01' || (i % 7)::text
			ELSE chr(33 + i % 94) END COLLATE "C" AS b
  FROM generate_series(1, 3000) i;
SELECT cardinality(categories) AS labels,
	   categories = (SELECT array_agg(b ORDER BY b) FROM (SELECT DISTINCT b FROM bytes) s) AS same_as_sql
  FROM tapas.describe('bytes');
-- keys read with the rows (tapas.evaluate reads every column of an
-- all-text table in the label scan): an integer key by its output
-- function, a char(n) key as its ::text cast gives it, trailing blanks
-- dropped (target '  7', not '  7  '), a bool key as ::text ('true'): the
-- same record, so the same scores by any of them
CREATE TABLE keyed AS
SELECT i AS id, lpad(i::text, 3)::char(5) AS ck, i = 7 AS bk,
	   (ARRAY['a', 'b', 'c'])[1 + i % 3] AS x, (ARRAY['p', 'q'])[1 + i / 3 % 2] AS y
  FROM generate_series(1, 40) i;
\set kp '{"num_training_records": 10, "num_training_datasets": 10, "num_test_datasets": 6, "seed": 1, "exclude": ["id", "ck", "bk"]}'
SELECT count(*) AS same_scores
  FROM tapas.evaluate_scores('targeted_mia', 'closest_distance_mia', 'keyed', '7',
	   :'kp'::jsonb || '{"key": "id"}') a
  JOIN tapas.evaluate_scores('targeted_mia', 'closest_distance_mia', 'keyed', '  7',
	   :'kp'::jsonb || '{"key": "ck"}') b USING (dataset_no, label, score)
  JOIN tapas.evaluate_scores('targeted_mia', 'closest_distance_mia', 'keyed', 'true',
	   :'kp'::jsonb || '{"key": "bk"}') c USING (dataset_no, label, score);
SELECT tapas.evaluate_scores('targeted_mia', 'closest_distance_mia', 'keyed', '  7  ',
	   :'kp'::jsonb || '{"key": "ck"}');
