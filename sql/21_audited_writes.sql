-- Audited roles do not write protected tables (issue 10, class 6): an
-- analyst with INSERT privilege could pad a group of one with fake rows
-- to pass k, or add fake positives so that the decoders stand down.
-- Every path that ends in a write of the protected table is refused:
-- statements (validate.c), plans (ExecutorStart), COPY and TRUNCATE.
SET tapas.mode = off;
\i sql/fixtures/pat.sql
\set VERBOSITY terse
CREATE TABLE other (zip int PRIMARY KEY, region text);
INSERT INTO other VALUES (0, 'north'), (1, 'south');
GRANT ALL ON pat, other TO regress_tapas_analyst;
CREATE VIEW pat_v AS SELECT * FROM pat;
GRANT ALL ON pat_v TO regress_tapas_analyst;
-- a rule and a trigger on another table that write the protected one
CREATE TABLE inbox (id int, zip int);
GRANT ALL ON inbox TO regress_tapas_analyst;
CREATE RULE inbox_copy AS ON INSERT TO inbox DO ALSO
	INSERT INTO pat VALUES (NEW.id, NEW.zip, 30, true, 1);
CREATE TABLE inbox2 (id int);
GRANT ALL ON inbox2 TO regress_tapas_analyst;
CREATE FUNCTION inbox2_fwd() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
	INSERT INTO pat VALUES (NEW.id, 0, 30, true, 1);
	RETURN NEW;
END $$;
CREATE TRIGGER inbox2_fwd AFTER INSERT ON inbox2 FOR EACH ROW EXECUTE FUNCTION inbox2_fwd();
-- a plan prepared and cached by an exempt session (it wrote nothing then),
-- executed by an audited one: refused by ExecutorStart
PREPARE pad AS INSERT INTO pat SELECT 1000 + i, 0, 30, true, 1 FROM generate_series(1, 99) i
	WHERE current_setting('x.pad', true) = 'on';
EXECUTE pad;

SET SESSION AUTHORIZATION regress_tapas_analyst;
\set VERBOSITY default
INSERT INTO pat VALUES (100, 1, 30, true, 5);
\set VERBOSITY terse
\echo :LAST_ERROR_SQLSTATE
INSERT INTO pat SELECT 1000 + i, 0, 30, true, 1 FROM generate_series(1, 99) i;
INSERT INTO pat VALUES (1, 1, 30, false, 5) ON CONFLICT DO NOTHING;
INSERT INTO pat VALUES (1, 1, 30, false, 5) ON CONFLICT (id) DO UPDATE SET hiv = true;
INSERT INTO pat (id, zip) VALUES (101, DEFAULT);
MERGE INTO pat p USING other o ON p.id = o.zip + 100
	WHEN NOT MATCHED THEN INSERT VALUES (o.zip + 100, o.zip, 30, true, 1);
WITH w AS (INSERT INTO pat VALUES (102, 1, 30, true, 5) RETURNING 1) SELECT count(*) FROM w;
INSERT INTO pat_v VALUES (103, 1, 30, true, 5);
INSERT INTO inbox VALUES (104, 1);
INSERT INTO inbox2 VALUES (105);
SET x.pad = on;
EXECUTE pad;
RESET x.pad;
COPY pat FROM STDIN;
106	1	30	t	5
\.
TRUNCATE pat;
-- updates and deletes were refused before; still are
UPDATE pat SET hiv = true WHERE id = 1;
DELETE FROM pat WHERE id = 1;
-- writes of unprotected tables, and reads, still work
INSERT INTO other VALUES (2, 'east');
SELECT count(*) FROM pat WHERE zip = 1;
RESET SESSION AUTHORIZATION;
-- nothing reached the table
SELECT count(*) AS rows, max(id) AS max_id FROM pat;

-- the supported way to write: a role that is not audited (tapas admin)
DO $$
BEGIN
	CREATE ROLE regress_tapas_writer LOGIN IN ROLE tapas_admin;
EXCEPTION WHEN duplicate_object THEN NULL;
END
$$;
GRANT INSERT ON pat TO regress_tapas_writer;
SET SESSION AUTHORIZATION regress_tapas_writer;
INSERT INTO pat VALUES (13, 1, 30, false, 50);
RESET SESSION AUTHORIZATION;
SELECT count(*) AS rows FROM pat;

DEALLOCATE pad;
DROP TRIGGER inbox2_fwd ON inbox2;
DROP FUNCTION inbox2_fwd();
DROP TABLE inbox, inbox2;
DROP VIEW pat_v;
DROP TABLE pat, other;
DROP ROLE regress_tapas_writer;
