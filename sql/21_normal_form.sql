-- The normal form of a cell (DESIGN.md section 2, issue 10 classes 3 and
-- 4): covered sets defined by columns that are not sensitive, canonical
-- basis values of the sensitive ones, k on every covered set of a split
-- condition, no analyst text parsed back (crash input, forgeries, fuzz).
SET client_min_messages = warning;
SET tapas.mode = off;
CREATE TABLE nf (id int PRIMARY KEY, zip int NOT NULL, age int NOT NULL,
                 rare bool, flag bool NOT NULL, diagnosis text, income numeric);
INSERT INTO nf
SELECT i, i % 3, CASE WHEN i = 7 THEN 91 ELSE 20 + i % 30 END,
       CASE WHEN i % 10 = 0 THEN NULL ELSE i % 4 = 0 END, i % 5 = 0,
       (ARRAY['flu', 'cold', 'rare_x'])[1 + i % 3], i * 10
  FROM generate_series(1, 40) i;
GRANT SELECT ON nf TO regress_tapas_analyst;
CREATE SEQUENCE nf_seq;
GRANT USAGE ON SEQUENCE nf_seq TO regress_tapas_analyst;
SELECT tapas.protect('nf', 'id', ARRAY['rare', 'flag', 'diagnosis', 'income'], 3);
-- the normal form of the last analyst statement: one row per capture
CREATE VIEW nfcap AS
SELECT statistic, answer, covered, CASE WHEN covered <= 3 THEN keys END AS small_keys
  FROM tapas.last_capture() ORDER BY statistic, covered;
\set VERBOSITY terse

-- 1. k on every covered set: a condition on a quasi-identifier or the key
-- inside the aggregate narrows a term's covered set, refused at k = 3
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(CASE WHEN age = 91 THEN income ELSE 0 END) FROM nf;
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FILTER (WHERE (rare AND age = 91) OR false) FROM nf;
SELECT sum(CASE WHEN id = 12 THEN income END) FROM nf;
SELECT sum(income * (age = 91)::int) FROM nf;
SELECT sum(income) FILTER (WHERE (age = 91) IS NOT FALSE) FROM nf;
SELECT sum(CASE age WHEN 91 THEN income ELSE 0 END) FROM nf;
SELECT count(*) FILTER (WHERE coalesce(age = 91, false) AND rare) FROM nf;
SELECT sum(CASE WHEN NOT (age <> 91) THEN income END) FROM nf;
SELECT count(*) FILTER (WHERE rare AND id IN (12, 13)) FROM nf;
SELECT count(*) FROM nf WHERE income > 0 AND (age = 91 OR id = 12);
-- a term over a large set passes: the complement of one row
SELECT count(nullif(age, 91)) FROM nf;
SELECT count(nullif(age, 91)) FILTER (WHERE rare) FROM nf;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;

-- an atom reading both kinds of columns, and too many atoms, are refused
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE income > age * 1000) FROM nf;
SELECT count(*) FILTER (WHERE income > age) FROM nf;
SELECT sum(CASE WHEN rare THEN age END) FROM nf;
SELECT count(*) FILTER (WHERE (rare OR zip = 1) AND (rare OR age = 22) AND (rare OR age = 23)
                          AND (rare OR age = 24) AND (rare OR age = 25)) FROM nf;
-- one atom may be any boolean expression of quasi-identifiers
SELECT count(*) FILTER (WHERE rare AND (zip = 1 OR age = 22 OR age = 23 OR age = 24 OR age = 25)) FROM nf;
RESET SESSION AUTHORIZATION;

-- 2. the normal form of representative aggregates
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FROM nf;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE rare), sum(income) FILTER (WHERE rare) FROM nf WHERE zip = 1;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(income), avg(income), sum(income::numeric) FROM nf;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
-- a mixed condition is split by its quasi-identifier atom: two terms
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(CASE WHEN age > 30 THEN income ELSE 0 END) FROM nf;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE rare OR zip = 1) FROM nf;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(CASE WHEN zip = 0 THEN 1 WHEN rare THEN 1 ELSE 0 END) FROM nf;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE income BETWEEN 100 AND 200), count(*) FILTER (WHERE 100 <= income AND income <= 200) FROM nf;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE diagnosis = 'flu' OR diagnosis = 'cold'), count(*) FILTER (WHERE diagnosis IN ('flu', 'cold')) FROM nf;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE income IS NULL OR rare IS NULL) FROM nf;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, sum(CASE WHEN rare THEN income ELSE 0 END) FILTER (WHERE age > 25) FROM nf GROUP BY zip ORDER BY zip;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;

-- 3. equal functions spelled differently: one basis value each
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE rare), count(*) FILTER (WHERE rare = true),
       count(*) FILTER (WHERE rare IS TRUE), count(*) FILTER (WHERE rare::int = 1),
       sum(CASE WHEN rare THEN 1 ELSE 0 END), count(rare) FILTER (WHERE rare),
       sum(rare::int), sum(CASE WHEN NOT rare THEN 0 ELSE 1 END)
  FROM nf;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
-- one basis, one identifier
SELECT count(DISTINCT basis_id) AS ids, count(DISTINCT statistic) AS texts FROM tapas.last_capture();
-- IS NOT FALSE equals them only on a NOT NULL column
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE flag), count(*) FILTER (WHERE flag IS NOT FALSE),
       sum(CASE WHEN NOT flag THEN 0 ELSE 1 END), count(*) FILTER (WHERE rare IS NOT FALSE)
  FROM nf;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE 50 < income AND rare), count(*) FILTER (WHERE rare AND income > 50),
       sum(CASE WHEN income > 50 THEN CASE WHEN rare THEN 2 ELSE 0 END ELSE 0 END)
  FROM nf;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;

-- 4. a cell of two sensitive bases fails closed: TP004 in deny mode,
-- an "incomplete" alert in log mode (each term logged as its own cell)
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(CASE WHEN age > 30 THEN income ELSE rare::int END) FROM nf;
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) FILTER (WHERE (zip = 1 AND rare) OR (zip <> 1 AND flag)) FROM nf;
\echo :LAST_ERROR_SQLSTATE
-- one sensitive basis plus public terms is audited as that basis
SELECT sum(CASE WHEN age > 30 THEN income ELSE 1 END) FROM nf;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(CASE WHEN age > 30 THEN income ELSE rare::int END) FROM nf;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
SELECT kind, statistic, method FROM tapas.alerts WHERE kind = 'incomplete' ORDER BY alert_id DESC LIMIT 1;
SET tapas.mode = off;

-- 5. no analyst text is parsed back: the crash input, forgeries of the
-- old in-band separator, a statistic longer than the ledger's limit
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE diagnosis = E'\x1f()') FROM nf;
SELECT count(*) FILTER (WHERE diagnosis = E'flu\x1f({INTEGER :ival 1} <> <> <>)') FROM nf;
SELECT count(*) FILTER (WHERE diagnosis <> E'\x1f') FROM nf;
SELECT count(*) FILTER (WHERE diagnosis = repeat('x', 5000)) FROM nf;
RESET SESSION AUTHORIZATION;
SELECT CASE WHEN length(statistic) > 100 THEN left(statistic, 40) || '...' || right(statistic, 20)
            ELSE replace(statistic, E'\x1f', '<US>') END AS statistic,
       length(statistic) AS len, answer, covered FROM nfcap;
-- two long statistics with one prefix stay distinct (the hash)
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE diagnosis = repeat('x', 5000) || 'y') FROM nf;
RESET SESSION AUTHORIZATION;
SELECT count(DISTINCT statistic) AS distinct_long FROM tapas.query_log
 WHERE tbl = 'nf'::regclass AND length(statistic) > 1000;

-- fuzz: 10,000 statements with random bytes in literals of FILTER and
-- CASE conditions, each in a sub-transaction; the backend survives
SET SESSION AUTHORIZATION regress_tapas_analyst;
DO $$
DECLARE
	lit text;
	ok int := 0;
	err int := 0;
	states text[] := '{}';
	forms text[] := ARRAY[
		'SELECT count(*) FILTER (WHERE diagnosis = %L) FROM nf',
		'SELECT sum(CASE WHEN diagnosis > %L THEN income END) FROM nf',
		'SELECT count(*) FILTER (WHERE rare AND diagnosis <> %L) FROM nf WHERE zip = 1',
		'SELECT sum(CASE WHEN diagnosis = %L THEN 1 ELSE 0 END) FROM nf GROUP BY zip',
		'SELECT count(*) FILTER (WHERE (diagnosis || %L) = ''flu'') FROM nf'];
BEGIN
	PERFORM setseed(0.42);
	FOR i IN 1..10000 LOOP
		SELECT string_agg(chr(1 + (random() * 254)::int), '')
		  INTO lit FROM generate_series(1, 1 + (random() * 40)::int);
		BEGIN
			EXECUTE format(forms[1 + i % 5], lit);
			ok := ok + 1;
		EXCEPTION WHEN OTHERS THEN
			err := err + 1;
			IF NOT SQLSTATE = ANY (states) THEN
				states := states || SQLSTATE;
			END IF;
		END;
	END LOOP;
	RAISE WARNING 'fuzz: % answered, % refused with %', ok, err, states;
END
$$;
SELECT 1 AS backend_alive;
RESET SESSION AUTHORIZATION;

-- 6. the truth is evaluated by tapas from the canonical tree: an analyst
-- expression that would read the table when re-run is refused, never run
SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT set_config('tapas_test.leak', '', false) IS NOT NULL AS cleared;
SELECT sum(CASE WHEN rare THEN length(set_config('tapas_test.leak',
           query_to_xml('select id from nf where rare', true, false, '')::text, false))
           ELSE 0 END) FROM nf;
SELECT count(*) FILTER (WHERE rare AND set_config('tapas_test.leak', 'x', false) = 'x') FROM nf;
SELECT sum(CASE WHEN zip = 1 THEN nextval('nf_seq') ELSE 0 END) FROM nf;
SELECT count(*) FILTER (WHERE rare OR random() < 0) FROM nf;
SELECT current_setting('tapas_test.leak') = '' AS nothing_ran;
RESET SESSION AUTHORIZATION;
-- the auditor's truth comes from the canonical tree, read by tapas
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE rare IS TRUE AND zip = 1) FROM nf;
RESET SESSION AUTHORIZATION;
SELECT statistic, answer, covered FROM nfcap;
SET tapas.mode = off;

-- 7. absent values of a sensitive GROUP BY over the column's whole domain:
-- zip 1 has one diagnosis only, the other values present in the table are
-- logged as 0-cells over the same covered set
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT diagnosis, count(id) FROM nf WHERE zip = 1 GROUP BY diagnosis;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT rare, count(id) FROM nf WHERE id BETWEEN 1 AND 3 GROUP BY rare ORDER BY rare;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
-- computed sensitive keys: the key's image of the values the table holds
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT lower(diagnosis), count(id) FROM nf WHERE zip = 1 GROUP BY 1;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT diagnosis = 'flu' AS flu, count(id) FROM nf WHERE zip = 1 GROUP BY 1;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT rare::int AS r, count(id) FROM nf WHERE id BETWEEN 1 AND 3 GROUP BY 1 ORDER BY 1;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
-- two sensitive keys: the combinations the table holds
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT flag, diagnosis, count(*) FROM nf WHERE zip = 1 GROUP BY 1, 2 ORDER BY 1, 2;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS cells, count(*) FILTER (WHERE answer = 0) AS zero_cells FROM tapas.last_capture();

-- 8. the terms grouped per answered cell (output group, aggregate):
-- the split sum is two terms of one cell, count(*) in SELECT and HAVING
-- one term of two aggregates, and 0 is tapas's own count of absent groups
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, sum(CASE WHEN age > 30 THEN income ELSE 1 END), count(*) FROM nf WHERE rare
 GROUP BY zip HAVING count(*) >= 1 ORDER BY zip;
RESET SESSION AUTHORIZATION;
SELECT grp, a AS aggregate, string_agg(statistic || ' over ' || covered || ' rows', '; ' ORDER BY statistic, covered) AS terms
  FROM tapas.last_capture(), unnest(aggregates) a GROUP BY grp, a ORDER BY grp, a;
-- 9. several constants over sensitive atoms are not one factor: CASE WHEN
-- flag THEN 2 ELSE 1 END is count(*) + count(flag), so it keeps its own
-- structural basis (its truth is read by value); it was logged as count(*),
-- an answer about flag that the ledger did not record; one common constant
-- (3 on flag) is still the indicator's knowledge
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(CASE WHEN flag THEN 2 ELSE 1 END) FROM nf;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(CASE WHEN income > 200 THEN 5 ELSE 7 END), avg(CASE WHEN flag THEN -1 ELSE 1 END) FROM nf;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(CASE WHEN flag THEN 3 ELSE 0 END), sum(CASE WHEN flag THEN 3 END), count(CASE WHEN flag THEN 2 ELSE 1 END),
       sum(CASE WHEN flag THEN 1.0 ELSE 1 END), sum(CASE WHEN flag THEN 2 ELSE 2.0000000000000001 END) FROM nf;
RESET SESSION AUTHORIZATION;
SELECT * FROM nfcap;
-- 10. a sum of sensitive values over rows with no value answers 0, not
-- NULL: a NULL would tell count(x) = 0 over its covered set, which the
-- sum's cell does not hold; count(x) tells it, audited
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(income) FILTER (WHERE diagnosis = 'none'), sum(CASE WHEN rare IS NULL THEN income END) FILTER (WHERE flag AND NOT flag),
       avg(income) FILTER (WHERE diagnosis = 'none') FROM nf;
SELECT zip, sum(income) FILTER (WHERE diagnosis = 'none') IS NULL AS is_null FROM nf GROUP BY zip ORDER BY zip;
SELECT count(*) AS groups FROM (SELECT zip FROM nf GROUP BY zip HAVING sum(income) FILTER (WHERE diagnosis = 'none') IS NULL) g;
-- 11. a sensitive GROUP BY key multiplies every value by 1[key = g]: a
-- value of a column that is not sensitive then has public weights
-- (sum(age) over the rare records names them by their ages), refused like
-- sum(CASE WHEN rare THEN age END); sensitive values, constants and counts
-- stay answered, and so does sum(age) grouped by a quasi-identifier
SELECT rare, sum(age) FROM nf GROUP BY rare;
SELECT diagnosis, avg(age), count(*) FROM nf GROUP BY diagnosis;
SELECT income > 300 AS hi, sum(zip) FROM nf GROUP BY 1;
SELECT rare FROM nf GROUP BY rare HAVING sum(age) > 0;
SELECT rare, count(age), sum(income), sum(2) FROM nf GROUP BY rare ORDER BY 1;
SELECT zip, sum(age) FROM nf GROUP BY zip ORDER BY zip;
RESET SESSION AUTHORIZATION;
SELECT tapas.reset('nf') >= 0 AS reset;
