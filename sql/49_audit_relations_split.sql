-- Split coordinates (recon/linrel.h): classes whose relation has no 0/1
-- coordinates, such as sum(score) and count(*) FILTER (WHERE score = v)
-- for each value v (sum(score) = sum over v of v * count_v), are audited
-- together with every cell taken as known value by value (more than the
-- answer tells: sound).  Before, such a group failed closed: after one
-- GROUP BY score, every avg(score) was refused with TP004.
--   benign: counts per score, then averages per ward: answered
--   attack: counts per score over everyone, then sum(score) over everyone
--           but the patient aged 91: refused (the difference is the
--           patient's score), and in log mode answered with an alert
SET client_min_messages = warning;
CREATE TABLE sp (id int PRIMARY KEY, age int NOT NULL, ward int NOT NULL, score int NOT NULL);
INSERT INTO sp SELECT g, 20 + g % 70, g % 7, 1 + (g * 7) % 5 FROM generate_series(1, 2000) g;
UPDATE sp SET age = 91 WHERE id = 777;
CREATE FUNCTION sp_fresh(tbl text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I AS SELECT * FROM sp', tbl);
	EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (id)', tbl);
	PERFORM tapas.protect(tbl::regclass, 'id', ARRAY['score'], 10);
	EXECUTE format('GRANT SELECT ON %I TO regress_tapas_analyst', tbl);
END $$;
SELECT sp_fresh(t) FROM unnest(ARRAY['sp_benign', 'sp_deny', 'sp_log']) t;
-- the first query's answer or the SQLSTATE of its refusal
CREATE FUNCTION sp_ask(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE a text;
BEGIN
	EXECUTE sql INTO a;
	RETURN a;
EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
	RETURN SQLSTATE;
END $$;
GRANT EXECUTE ON FUNCTION sp_ask(text) TO PUBLIC;
RESET client_min_messages;
SELECT count(*) AS aged_91, min(score) AS score_91 FROM sp WHERE age = 91;

SET tapas.mode = deny;
SET SESSION AUTHORIZATION regress_tapas_analyst;
-- benign: the distribution, then averages and counts per ward
SELECT score, count(*) FROM sp_benign GROUP BY score ORDER BY score;
SELECT ward, round(avg(score), 3) AS avg_score FROM sp_benign GROUP BY ward ORDER BY ward;
SELECT ward, count(*) FILTER (WHERE score >= 4) FROM sp_benign GROUP BY ward ORDER BY ward;
SELECT round(avg(score), 3) AS avg_over_60 FROM sp_benign WHERE age > 60;
-- the attack: counts per score over everyone, then sum(score) without the patient
SELECT score, count(*) FROM sp_deny GROUP BY score ORDER BY score;
SELECT sp_ask('SELECT sum(score) FROM sp_deny WHERE age <> 91') AS sum_without_91;
SELECT sp_ask('SELECT sum(score) FROM sp_deny WHERE id > 0 AND age < 91 OR age > 91') AS other_spelling;
RESET SESSION AUTHORIZATION;

-- log mode: answered, and the alert names the patient (id 777)
SET tapas.mode = log;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT score, count(*) FROM sp_log GROUP BY score ORDER BY score;
SELECT sp_ask('SELECT sum(score) FROM sp_log WHERE age <> 91') AS sum_without_91;
RESET SESSION AUTHORIZATION;
SELECT table_name, kind, method, record_keys
  FROM tapas.alerts WHERE table_name IN ('sp_benign', 'sp_deny', 'sp_log')
 ORDER BY alert_id;
RESET tapas.mode;
