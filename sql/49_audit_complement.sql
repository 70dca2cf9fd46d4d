-- Complements with the public count (audit/truth.c, find_complement_class):
-- a count of an indicator's complement over Q is |Q| minus the count of
-- the indicator, and |Q| is public, so a class whose truth is another
-- binary class's complement is that class, with its answers flipped.
-- Before, count(*) FILTER (WHERE NOT rare) over everyone, then
-- count(*) FILTER (WHERE rare) over everyone but the target, were two
-- unrelated classes and the difference was answered in deny mode.  Each
-- pair runs on an empty ledger; the last runs in log mode and is alerted.
SET client_min_messages = warning;
CREATE TABLE cpl (id int PRIMARY KEY, age int NOT NULL, rare bool NOT NULL, dx text);
INSERT INTO cpl SELECT g, 20 + g % 60, g = 77,
	   CASE WHEN g = 77 THEN 'hiv' WHEN g % 9 = 0 THEN NULL ELSE 'flu' END
  FROM generate_series(1, 400) g;
UPDATE cpl SET age = 91 WHERE id = 77;
SELECT tapas.protect('cpl', 'id', ARRAY['rare', 'dx'], 10);
GRANT SELECT ON cpl TO regress_tapas_analyst;
CREATE FUNCTION cpl_pair(mode text, q1 text, q2 text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE a text;
	b text;
BEGIN
	PERFORM tapas.reset('cpl');
	EXECUTE format('SET tapas.mode = %s', mode);
	EXECUTE 'SET SESSION AUTHORIZATION regress_tapas_analyst';
	BEGIN
		EXECUTE q1 INTO a;
		EXECUTE q2 INTO b;
	EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
		b := SQLSTATE;
	END;
	RESET SESSION AUTHORIZATION;
	RESET tapas.mode;
	RETURN a || ', then ' || b;
END $$;
RESET client_min_messages;
SELECT count(*) AS aged_91, bool_or(rare) AS rare_91 FROM cpl WHERE age = 91;

SELECT cpl_pair('deny', 'SELECT count(*) FILTER (WHERE NOT rare) FROM cpl',
				'SELECT count(*) FILTER (WHERE rare) FROM cpl WHERE age <> 91') AS not_rare_then_rare;
SELECT cpl_pair('deny', 'SELECT count(*) FILTER (WHERE rare) FROM cpl',
				'SELECT sum(CASE WHEN rare THEN 0 ELSE 1 END) FROM cpl WHERE age <> 91') AS rare_then_case;
SELECT cpl_pair('deny', 'SELECT count(*) FILTER (WHERE rare IS NOT TRUE) FROM cpl WHERE age <> 91',
				'SELECT count(*) FILTER (WHERE rare) FROM cpl') AS not_true_then_rare;
SELECT cpl_pair('deny', 'SELECT count(*) FILTER (WHERE dx <> ''hiv'' OR dx IS NULL) FROM cpl',
				'SELECT count(*) FILTER (WHERE dx = ''hiv'') FROM cpl WHERE age <> 91') AS nullable;
-- benign: both counts over the same rows teach nothing new
SELECT cpl_pair('deny', 'SELECT count(*) FILTER (WHERE NOT rare) FROM cpl WHERE age > 50',
				'SELECT count(*) FILTER (WHERE rare) FROM cpl WHERE age > 50') AS same_rows;
SELECT cpl_pair('log', 'SELECT count(*) FILTER (WHERE NOT rare) FROM cpl',
				'SELECT count(*) FILTER (WHERE rare) FROM cpl WHERE age <> 91') AS log_mode;
SELECT kind, method, record_keys FROM tapas.alerts
 WHERE table_name = 'cpl' AND action = 'logged' ORDER BY alert_id;
