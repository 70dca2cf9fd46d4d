-- The combined rows of related classes (src/audit/combined.c) count in
-- tapas.audit_memory: their entries (a row space over the table's records
-- each) are in no hash of their own, and before they were counted a flood
-- of related classes grew them past the bound unseen.  The halves of a
-- split at two thresholds (four related 0/1 classes, one group) over
-- 20,000 records: under a bound of 26 MB the group's own state fits
-- (answered without combined rows), its combined entries do not (the
-- halves that complete a cover fail closed, TP004, with the reason in
-- the alert); a raised bound rebuilds them and the same halves are
-- answered.
SET tapas.audit_scope = role;
SET client_min_messages = warning;
CREATE FUNCTION cmem_mk(tbl text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, pos boolean NOT NULL, income int NOT NULL)', tbl);
	EXECUTE format('INSERT INTO %I SELECT g, g %% 97 = 5, 1000 + (g * 37) %% 5000 FROM generate_series(1, 20000) g', tbl);
	PERFORM tapas.protect(tbl::regclass, 'id', ARRAY['pos', 'income'], 50);
	EXECUTE format('GRANT SELECT ON %I TO regress_tapas_analyst', tbl);
END $$;
-- design rows 1..4 (everyone but id % 7 = q), each as its two halves at
-- threshold 2000 or 3000: 'a' answered, else the SQLSTATE
CREATE FUNCTION cmem_attack(tbl text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE a numeric;
	out text := '';
BEGIN
	FOR q IN 1..4 LOOP
		FOR p IN 1..2 LOOP
			BEGIN
				EXECUTE format('SELECT count(*) FILTER (WHERE pos AND %s income > %s) FROM %I WHERE id %% 7 <> %s',
							   CASE WHEN p = 1 THEN '' ELSE 'NOT' END, 2000 + 1000 * (q % 2), tbl, q) INTO a;
				out := out || 'a ';
			EXCEPTION WHEN SQLSTATE 'TP001' OR SQLSTATE 'TP004' THEN
				out := out || SQLSTATE || ' ';
			END;
		END LOOP;
	END LOOP;
	RETURN rtrim(out);
END $$;
SELECT cmem_mk('cmem_off'), cmem_mk('cmem_on');
RESET client_min_messages;
SET tapas.mode = deny;
SET tapas.audit_budget_ms = 600000;
SET tapas.audit_memory = '26MB';
-- 1. without the combined rows: the group's state fits
SET tapas.audit_combined_rows = off;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT cmem_attack('cmem_off') AS without_combined_rows;
RESET SESSION AUTHORIZATION;
-- 2. with them, under the same bound: the halves that complete a cover
-- (and so make a combined row) fail closed
SET tapas.audit_combined_rows = on;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT cmem_attack('cmem_on') AS with_combined_rows;
RESET SESSION AUTHORIZATION;
SELECT DISTINCT kind, action, detail FROM tapas.alerts WHERE "table" = 'cmem_on'::regclass;
-- 3. raised: the combined entries are rebuilt, the same halves answered
SET tapas.audit_memory = '64MB';
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT cmem_attack('cmem_on') AS raised_bound;
RESET SESSION AUTHORIZATION;
RESET tapas.audit_memory;
RESET tapas.audit_combined_rows;
RESET tapas.audit_budget_ms;
RESET tapas.mode;
SET client_min_messages = warning;
DROP TABLE cmem_off, cmem_on;
DROP FUNCTION cmem_mk(text), cmem_attack(text);
RESET client_min_messages;
RESET tapas.audit_scope;
