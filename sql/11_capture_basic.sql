-- Capture of count(*), count(x), sum(x), avg(x) with WHERE, FILTER and
-- GROUP BY: the exact covered keys and the answer of every cell.
SET client_min_messages = warning;
-- capture only: the auditor's refusals have their own suites (sql/4x_audit_*)
SET tapas.mode = off;
CREATE TABLE pat (id int PRIMARY KEY, zip int NOT NULL, age int, hiv bool, income numeric);
INSERT INTO pat
SELECT i, i % 3, 20 + i % 7, i % 4 = 0, CASE WHEN i % 5 = 0 THEN NULL ELSE i * 10 END
  FROM generate_series(1, 12) i;
GRANT SELECT ON pat TO regress_tapas_analyst;
SELECT tapas.protect('pat', 'id', ARRAY['hiv', 'income'], 2);
-- what the gate captured for the last analyst statement, in a stable order
CREATE VIEW cap AS
SELECT statistic, answer, covered, keys FROM tapas.last_capture() ORDER BY statistic, keys;
\set VERBOSITY terse
SELECT * FROM pat ORDER BY id;
SELECT tapas.reset('pat') >= 0 AS reset;

SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- count(x), sum(x), avg(x) (avg is logged as sum and count), one cell each
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(income), sum(income), avg(income), sum(hiv::int) FROM pat;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- a WHERE on quasi-identifiers narrows the covered set
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*), sum(income) FROM pat WHERE zip = 1 AND age >= 22;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- a WHERE on a sensitive column moves into the FILTER: the covered set is
-- every row passing the other conditions
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat WHERE hiv;
SELECT count(*) FROM pat WHERE zip = 0 AND hiv;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- a mixed disjunction is sensitive as a whole; conjuncts are sorted
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat WHERE (zip = 1 OR hiv) AND income > 50;
SELECT count(*) FROM pat WHERE income > 50 AND (zip = 1 OR hiv);
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- nested ANDs are split, constants on the left are commuted, "= true" is
-- folded away: it reads "(income > 50) AND hiv", over the rows of zip 1
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat WHERE 50 < income AND (hiv = true AND zip = 1);
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- the same statistic written with FILTER gives the same text
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE hiv), sum(income) FILTER (WHERE hiv) FROM pat WHERE zip = 0;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- a FILTER on a quasi-identifier narrows that cell's covered set only
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*), count(*) FILTER (WHERE zip = 2), sum(income) FILTER (WHERE zip = 2 AND hiv) FROM pat;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- GROUP BY: every group is a cell
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, count(*), avg(age) FROM pat GROUP BY zip ORDER BY zip;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- GROUP BY with a sensitive WHERE: the output is unchanged (zip 2 has no
-- HIV-positive row and stays absent), and the absent group is logged with
-- answer 0 through the hidden group-existence condition
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, count(*), sum(income) FROM pat WHERE hiv AND age > 21 GROUP BY zip ORDER BY zip;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- GROUP BY without aggregates still reveals that each group is non-empty
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip FROM pat GROUP BY zip ORDER BY zip;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- expressions over aggregates are computed after capture
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, sum(income) / count(*) AS mean, count(*) * 2 AS twice FROM pat GROUP BY zip ORDER BY zip;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;

-- admins are not audited: nothing is captured (cap still shows the last
-- analyst statement)
SELECT count(*) FROM pat WHERE id = 1;
SELECT * FROM cap;

-- every cell above reached the ledger, tagged with the analyst; a query
-- refused by k logs nothing, and a ROLLBACK does not undo a logged cell
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM pat WHERE id = 1;
BEGIN;
SELECT count(*) FROM pat WHERE zip = 2 AND age > 21;
ROLLBACK;
RESET SESSION AUTHORIZATION;
SELECT statistic, answer, keys FROM tapas.query_matrix('pat') ORDER BY log_id;
SELECT role, count(*) AS cells, count(DISTINCT query) AS statements
  FROM tapas.query_log WHERE tbl = 'pat'::regclass GROUP BY role;
SELECT query FROM tapas.query_log WHERE tbl = 'pat'::regclass ORDER BY log_id DESC LIMIT 1;

-- keys of every width: int2 and int4 keys use the int4 capture aggregate,
-- int8 keys the int8 one; keys outside [0, 2^32) take the capture's other
-- path (the bitmap holds only those inside)
CREATE TABLE widekeys (id bigint PRIMARY KEY, zip int NOT NULL, hiv bool);
INSERT INTO widekeys VALUES (-9000000000, 1, true), (-5, 1, false), (0, 1, true),
	(7, 2, false), (4294967295, 2, true), (4294967296, 2, false),
	(9223372036854775807, 1, false);
CREATE TABLE smallkeys (id smallint PRIMARY KEY, zip int NOT NULL, hiv bool);
INSERT INTO smallkeys SELECT i, i % 2, i % 3 = 0 FROM generate_series(-3, 3) i;
GRANT SELECT ON widekeys, smallkeys TO regress_tapas_analyst;
SELECT tapas.protect('widekeys', 'id', ARRAY['hiv'], 2);
SELECT tapas.protect('smallkeys', 'id', ARRAY['hiv'], 2);
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, count(*), sum(hiv::int) FROM widekeys GROUP BY zip ORDER BY zip;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, count(*) FILTER (WHERE hiv) FROM smallkeys GROUP BY zip ORDER BY zip;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SELECT statistic, answer, keys FROM tapas.query_matrix('widekeys') ORDER BY log_id;
SELECT tapas.unprotect('widekeys'), tapas.unprotect('smallkeys');
DROP TABLE widekeys, smallkeys;

-- cells of more than 256 rows: the capture moves keys into its bitmap in
-- blocks of 256 (a block that is a whole key range in one step); rows in
-- key order and in shuffled order must give exactly the covered keys
SELECT setseed(0.42);
CREATE TABLE bigpat (id int PRIMARY KEY, grp int NOT NULL, hiv bool);
INSERT INTO bigpat SELECT i, i % 3, i % 7 = 0 FROM generate_series(1, 2000) i ORDER BY random();
CREATE TABLE bigpat_sorted AS SELECT * FROM bigpat ORDER BY id;
ALTER TABLE bigpat_sorted ADD PRIMARY KEY (id);
GRANT SELECT ON bigpat, bigpat_sorted TO regress_tapas_analyst;
SELECT tapas.protect('bigpat', 'id', ARRAY['hiv'], 2);
SELECT tapas.protect('bigpat_sorted', 'id', ARRAY['hiv'], 2);
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*), sum(hiv::int) FROM bigpat_sorted WHERE id <= 1500;
RESET SESSION AUTHORIZATION;
SELECT statistic, answer, covered,
       keys = ARRAY(SELECT generate_series(1, 1500)::bigint) AS exact_keys
  FROM tapas.last_capture() ORDER BY statistic;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT grp, count(*) FROM bigpat GROUP BY grp ORDER BY grp;
RESET SESSION AUTHORIZATION;
SELECT b.grp, c.answer, c.covered,
       c.keys = ARRAY(SELECT id::bigint FROM bigpat WHERE grp = b.grp ORDER BY id) AS exact_keys
  FROM tapas.last_capture() c JOIN bigpat b ON b.id = c.keys[1] ORDER BY b.grp;
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT tapas.unprotect('bigpat'), tapas.unprotect('bigpat_sorted');
DROP TABLE bigpat, bigpat_sorted;

DROP VIEW cap;
DROP TABLE pat;
