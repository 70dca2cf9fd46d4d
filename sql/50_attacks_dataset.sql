-- Attack datasets from tables: column kinds, dictionaries, bounds, the NULL
-- policy, schema overrides, and every error of tapas.describe.
CREATE SCHEMA att;
SET search_path = att, public;
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE people (
	id int PRIMARY KEY,
	city text,
	smoker boolean,
	feel mood,
	kids int,			-- 3 distinct values: categorical by default
	income numeric,		-- continuous
	born date,			-- continuous, days since 2000-01-01
	code varchar(3)		-- with a NULL: NULL is a category
);
INSERT INTO people VALUES
	(1, 'Leeds', true, 'ok', 0, 1000, '2000-01-11', 'A'),
	(2, 'York', false, 'sad', 2, 2500.5, '1999-12-22', NULL),
	(3, 'Leeds', false, 'happy', 1, 4000, '2000-01-01', 'B'),
	(4, 'Hull', true, 'ok', 0, 1000, '2000-02-01', 'A');

-- kinds from types; categories in the column's own order, NULL last
SELECT * FROM tapas.describe('people');
-- the key is left out when named; max_categories turns kids continuous
SELECT column_name, kind, source, cardinality, lower, upper, encoded_offset
  FROM tapas.describe('people', '{"key": "id", "max_categories": 2}');
-- column choice and exclusion
SELECT column_name FROM tapas.describe('people', '{"columns": ["kids", "city"]}');
SELECT column_name FROM tapas.describe('people', '{"exclude": ["id", "born", "code"]}');
-- overrides: declared bounds, ordinal with a declared order, integer as continuous
SELECT column_name, kind, source, cardinality, lower, upper, encoded_width, categories
  FROM tapas.describe('people', '{"exclude": ["id"], "schema": {
	"income": {"type": "continuous", "min": 0, "max": 10000},
	"city": {"type": "ordinal", "order": ["York", "Leeds", "Hull", "Bath"]},
	"kids": "continuous",
	"smoker": "ordinal"}}');

-- a view works like a table
CREATE VIEW people_v AS SELECT city, kids FROM people WHERE id < 4;
SELECT column_name, cardinality, categories FROM tapas.describe('people_v');

-- errors
\set VERBOSITY default
SELECT * FROM tapas.describe(NULL);
SELECT * FROM tapas.describe('people', '[1, 2]');
SELECT * FROM tapas.describe('people', '{"radius": 1}');
SELECT * FROM tapas.describe('people', '{"columns": ["nope"]}');
SELECT * FROM tapas.describe('people', '{"columns": "city"}');
SELECT * FROM tapas.describe('people', '{"exclude": ["nope"]}');
SELECT * FROM tapas.describe('people', '{"schema": {"city": "fuzzy"}}');
SELECT * FROM tapas.describe('people', '{"schema": {"city": {"kind": "ordinal"}}}');
SELECT * FROM tapas.describe('people', '{"schema": {"city": {"type": "ordinal", "order": ["Leeds"]}}}');
SELECT * FROM tapas.describe('people', '{"schema": {"nope": "categorical"}}');
SELECT * FROM tapas.describe('people', '{"schema": {"income": {"type": "continuous", "min": 5000, "max": 0}}}');
SELECT * FROM tapas.describe('people', '{"schema": {"income": {"type": "continuous", "min": "low"}}}');
SELECT * FROM tapas.describe('people', '{"schema": 3}');
SELECT * FROM tapas.describe('people', '{"max_categories": -1}');
-- NULL policy: a NULL in a continuous column is an error
UPDATE people SET income = NULL WHERE id = 2;
SELECT * FROM tapas.describe('people');
-- ... unless it is declared categorical (NULL is then a category)
SELECT column_name, kind, categories FROM tapas.describe('people', '{"columns": ["income"], "schema": {"income": "categorical"}}');
-- NaN is refused too
UPDATE people SET income = 'NaN' WHERE id = 2;
SELECT * FROM tapas.describe('people', '{"columns": ["income"]}');
-- an unsupported type
CREATE TABLE shapes(p point, k int);
INSERT INTO shapes VALUES (point(1, 2), 1);
SELECT * FROM tapas.describe('shapes');
SELECT column_name, kind FROM tapas.describe('shapes', '{"exclude": ["p"]}');
-- an empty table, an index
CREATE TABLE nothing(a int);
SELECT * FROM tapas.describe('nothing');
SELECT * FROM tapas.describe('people_pkey');
\set VERBOSITY terse
