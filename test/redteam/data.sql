SET client_min_messages = warning;
SELECT tapas.reset('pt') FROM pg_class WHERE relname = 'pt';
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
