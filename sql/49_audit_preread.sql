-- The truths of a statement's new statistics in one scan (audit/truth_preread.c):
-- in a new backend, a statement whose statistics are all new reads their
-- truths together, and each is classed as a scan of its own would class it.
-- income > 1049 and income >= 1050 are one function of an integer column
-- (one unknown, found on the domain grid: audit/truth_domain.c); rare and
-- rare2 are equal on every row of this table but are two columns (two
-- unknowns: a coincidence of the data is never used, issue 11 item 5);
-- rare3 differs.  Each case runs in a new connection on an empty ledger.
SET client_min_messages = warning;
CREATE TABLE prr (id int PRIMARY KEY, rare bool NOT NULL, rare2 bool NOT NULL,
				  rare3 bool NOT NULL, income int NOT NULL);
INSERT INTO prr SELECT g, g = 50, g = 50, g = 51, 1000 + g FROM generate_series(1, 200) g;
SELECT tapas.protect('prr', 'id', ARRAY['rare', 'rare2', 'rare3', 'income'], 10) IS NULL AS protected;
GRANT SELECT ON prr TO regress_tapas_analyst;
CREATE FUNCTION prr_try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	PERFORM tapas.reset('prr');
	SET tapas.mode = deny;
	SET SESSION AUTHORIZATION regress_tapas_analyst;
	BEGIN
		EXECUTE q INTO r;
		r := 'answered';
	EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
		r := SQLSTATE;
	END;
	RESET SESSION AUTHORIZATION;
	RESET tapas.mode;
	RETURN r;
END $$;
RESET client_min_messages;
-- income > 1049 over 1..50 and income >= 1050 over 1..49 in one
-- statement: one class, the difference is record 50 (with sum(income)
-- between them, so that a tree given to the wrong statistic would part them)
\c
SELECT prr_try('SELECT count(*) FILTER (WHERE income > 1049 AND id <= 50), sum(income),
				count(*) FILTER (WHERE income >= 1050 AND id <= 49) FROM prr') AS equal_functions;
-- rare over 1..50 and rare2 over 1..49: equal truths, two unknowns, answered
\c
SELECT prr_try('SELECT count(*) FILTER (WHERE rare AND id <= 50), sum(income),
				count(*) FILTER (WHERE rare2 AND id <= 49) FROM prr') AS equal_truths;
-- the same with rare3: two classes, nothing isolated
\c
SELECT prr_try('SELECT count(*) FILTER (WHERE rare AND id <= 50), sum(income),
				count(*) FILTER (WHERE rare3 AND id <= 49) FROM prr') AS other_truths;
-- income > 1049 over 1..50 and 2 (income >= 1050) + 1 over 1..49: affine, one class
\c
SELECT prr_try('SELECT count(*) FILTER (WHERE income > 1049 AND id <= 50), sum(income),
				sum(CASE WHEN income >= 1050 THEN 3 ELSE 1 END) FILTER (WHERE id <= 49) FROM prr') AS affine_functions;
-- a statistic the backend knows and two new ones: the known one is not read again
\c
SELECT prr_try('SELECT count(*) FILTER (WHERE rare3) FROM prr') AS first;
SET client_min_messages = warning;
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE rare3 AND id <= 60) AS a, sum(income) AS b,
	   count(*) FILTER (WHERE income >= 1041 AND id <= 40) AS c FROM prr;
SELECT count(*) FILTER (WHERE income > 1040 AND id <= 41) FROM prr;
RESET SESSION AUTHORIZATION;
RESET tapas.mode;
RESET client_min_messages;
SELECT tapas.reset('prr') IS NULL AS reset;
DROP TABLE prr;
DROP FUNCTION prr_try(text);
