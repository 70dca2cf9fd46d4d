SET client_min_messages = warning;
DROP EXTENSION IF EXISTS tapas CASCADE;
CREATE EXTENSION tapas;
DO $$ BEGIN CREATE ROLE rt_analyst LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
DO $$ BEGIN CREATE ROLE rt_analyst2 LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
DROP TABLE IF EXISTS pt CASCADE;
CREATE TABLE pt (id int PRIMARY KEY, zip int NOT NULL, age int NOT NULL, sex text NOT NULL,
                 born date NOT NULL, rare bool NOT NULL, diagnosis text, income numeric);
INSERT INTO pt SELECT i, i % 10, 20 + (i * 7) % 60, CASE WHEN i % 2 = 0 THEN 'f' ELSE 'm' END,
       date '1950-01-01' + (i * 37) % 20000, i = 77, (ARRAY['flu','cold','asthma','gout'])[1 + i % 4],
       1000 + (i * 13) % 5000 FROM generate_series(1, 400) i;
-- the target: the only person aged 91
UPDATE pt SET age = 91 WHERE id = 77;
UPDATE pt SET diagnosis = 'hiv' WHERE id = 77;
SELECT tapas.protect('pt', 'id', ARRAY['rare', 'diagnosis', 'income'], 10);
GRANT SELECT ON pt TO rt_analyst, rt_analyst2;
GRANT INSERT, UPDATE ON pt TO rt_analyst;
CREATE SCHEMA IF NOT EXISTS mal;
GRANT USAGE ON SCHEMA mal TO PUBLIC;
CREATE OR REPLACE FUNCTION mal.boom() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$;
CREATE OR REPLACE FUNCTION mal.note(x int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE 'row %', x; RETURN 0; END $$;
CREATE OR REPLACE FUNCTION mal.inl(x int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT 10 / x $$;
CREATE OR REPLACE FUNCTION mal.lp(x int) RETURNS bool LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN IF x = 91 THEN RAISE EXCEPTION 'x'; END IF; RETURN true; END $$;
CREATE OR REPLACE FUNCTION mal.eqf(a bool, b bool) RETURNS bool LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN IF a THEN RAISE EXCEPTION 'hit'; END IF; RETURN a = b; END $$;
DROP OPERATOR IF EXISTS mal.=== (bool, bool);
CREATE OPERATOR mal.=== (LEFTARG = bool, RIGHTARG = bool, FUNCTION = mal.eqf);
CREATE SEQUENCE IF NOT EXISTS mal.s; GRANT USAGE ON SEQUENCE mal.s TO PUBLIC;
CREATE TABLE IF NOT EXISTS mal.sink (x text); GRANT ALL ON mal.sink TO PUBLIC;
CREATE OR REPLACE FUNCTION mal.w(x int) RETURNS int LANGUAGE sql AS $$ INSERT INTO mal.sink VALUES (x::text) RETURNING 0 $$;
DROP DOMAIN IF EXISTS mal.d;
CREATE DOMAIN mal.d AS int CHECK (VALUE <> 77);
GRANT USAGE ON DOMAIN mal.d TO PUBLIC;
CREATE TABLE IF NOT EXISTS lookup (zip int PRIMARY KEY, region text);
INSERT INTO lookup SELECT z, 'r' || (z % 3) FROM generate_series(0, 9) z ON CONFLICT DO NOTHING;
GRANT SELECT ON lookup TO rt_analyst, rt_analyst2;
GRANT ALL ON SCHEMA mal TO rt_analyst;
-- issue 12: the same people in a partitioned table (range on id), a uuid-keyed
-- and a composite-keyed copy; the target is still id 77 (age 91)
DROP TABLE IF EXISTS ppt, upt, cpt CASCADE;
CREATE TABLE ppt (LIKE pt, PRIMARY KEY (id)) PARTITION BY RANGE (id);
CREATE TABLE ppt_1 PARTITION OF ppt FOR VALUES FROM (1) TO (201);
CREATE TABLE ppt_2 PARTITION OF ppt FOR VALUES FROM (201) TO (401);
INSERT INTO ppt SELECT * FROM pt;
SELECT tapas.protect('ppt', 'id', ARRAY['rare', 'diagnosis', 'income'], 10);
CREATE TABLE upt AS SELECT md5('p' || id)::uuid AS uid, * FROM pt;
ALTER TABLE upt ADD PRIMARY KEY (uid);
SELECT tapas.protect('upt', 'uid', ARRAY['rare', 'diagnosis', 'income'], 10);
CREATE TABLE cpt AS SELECT zip AS z, 'p' || id AS name, * FROM pt;
ALTER TABLE cpt ADD PRIMARY KEY (z, name);
SELECT tapas.protect('cpt', ARRAY['z', 'name'], ARRAY['rare', 'diagnosis', 'income'], 10);
GRANT SELECT ON ppt, ppt_1, ppt_2, upt, cpt TO rt_analyst, rt_analyst2;
