-- Counts have a public base: count(*) over the same rows is known to the
-- analyst whenever the cell passed k, so the count of an indicator's
-- complement is the count of the indicator, |Q| minus it
-- (capture/basis.c, complement_count).  Every spelling of NOT rare is
-- logged as the class of rare with the answer |Q| - a, and the difference
-- "rare over everyone, NOT rare over everyone but the target" is refused
-- by the class's own system.  Before, the two were unrelated classes and
-- the difference was answered in deny mode.
SET client_min_messages = warning;
CREATE TABLE cp (id int PRIMARY KEY, age int NOT NULL, rare bool NOT NULL, dx text);
INSERT INTO cp SELECT g, 20 + g % 60, g = 77, CASE WHEN g = 77 THEN 'hiv' WHEN g % 9 = 0 THEN NULL ELSE 'flu' END
  FROM generate_series(1, 400) g;
UPDATE cp SET age = 91 WHERE id = 77;
SELECT tapas.protect('cp', 'id', ARRAY['rare', 'dx'], 10);
GRANT SELECT ON cp TO regress_tapas_analyst;
CREATE VIEW cpcap AS SELECT statistic, answer, covered FROM tapas.last_capture() ORDER BY 1, 2;
CREATE FUNCTION cp_ask(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE a text;
BEGIN
	EXECUTE sql INTO a;
	RETURN a;
EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
	RETURN SQLSTATE;
END $$;
GRANT EXECUTE ON FUNCTION cp_ask(text) TO PUBLIC;
RESET client_min_messages;

-- the spellings of the complement: one class (rare), answer 400 - 399 = 1
SET tapas.mode = off;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT count(*) FILTER (WHERE NOT rare) FROM cp;
RESET SESSION AUTHORIZATION;
SELECT * FROM cpcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT sum(CASE WHEN rare THEN 0 ELSE 1 END) FROM cp WHERE age < 91;
RESET SESSION AUTHORIZATION;
SELECT * FROM cpcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT rare, count(*) FROM cp GROUP BY rare ORDER BY 1;
RESET SESSION AUTHORIZATION;
SELECT * FROM cpcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
-- nullable: NOT (dx = 'hiv') is off where dx is NULL, so its complement is dx = 'hiv' IS NOT FALSE
SELECT count(*) FILTER (WHERE NOT dx = 'hiv') FROM cp;
RESET SESSION AUTHORIZATION;
SELECT * FROM cpcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
-- an indicator that is always on is count(*) itself: public
SELECT count(*) FILTER (WHERE rare OR NOT rare) FROM cp;
RESET SESSION AUTHORIZATION;
SELECT * FROM cpcap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
RESET SESSION AUTHORIZATION;

-- the differences, in deny mode, each on an empty ledger
SET tapas.mode = deny;
SELECT tapas.reset('cp');
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT cp_ask('SELECT count(*) FILTER (WHERE NOT rare) FROM cp') AS not_rare_all;
SELECT cp_ask('SELECT count(*) FILTER (WHERE rare) FROM cp WHERE age <> 91') AS rare_but_91;
RESET SESSION AUTHORIZATION;
SELECT tapas.reset('cp');
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT cp_ask('SELECT count(*) FILTER (WHERE rare) FROM cp') AS rare_all;
SELECT cp_ask('SELECT sum(CASE WHEN rare THEN 0 ELSE 1 END) FROM cp WHERE age <> 91') AS not_rare_but_91;
RESET SESSION AUTHORIZATION;
SELECT tapas.reset('cp');
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT cp_ask('SELECT rare, count(*) FROM cp GROUP BY rare') AS grouped;
SELECT cp_ask('SELECT count(*) FILTER (WHERE rare IS NOT TRUE) FROM cp WHERE age <> 91') AS not_true_but_91;
RESET SESSION AUTHORIZATION;
RESET tapas.mode;
