-- Declared domains (issue 10, class 5): grouping by a sensitive column
-- logs a 0-cell for every declared value that no group of the answer has,
-- even a value no row holds yet.
SET client_min_messages = warning;
SET tapas.mode = off;
CREATE TABLE dx (id int PRIMARY KEY, zip int NOT NULL, diagnosis text);
INSERT INTO dx SELECT i, i % 2, (ARRAY['flu', 'cold'])[1 + i % 2] FROM generate_series(1, 20) i;
SELECT tapas.protect('dx', 'id', ARRAY['diagnosis'], 2);
GRANT SELECT ON dx TO regress_tapas_analyst;
CREATE VIEW cap AS
SELECT statistic, answer, covered FROM tapas.last_capture() ORDER BY statistic, covered;
\set VERBOSITY terse
-- bad declarations
SELECT tapas.declare_domain('dx', 'zip', ARRAY['1']);
SELECT tapas.declare_domain('dx', NULL, ARRAY['1']);
SELECT tapas.declare_domain('dx', 'diagnosis', ARRAY(SELECT g::text FROM generate_series(1, 1001) g));
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT tapas.declare_domain('dx', 'diagnosis', ARRAY['hiv']);
RESET SESSION AUTHORIZATION;

-- without a declaration: the values the table holds
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, diagnosis, count(*) FROM dx GROUP BY zip, diagnosis ORDER BY 1, 2;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
-- with one: hiv (held by no row) gets its 0-cell per zip, and so does
-- the computed key upper(diagnosis)
SELECT tapas.declare_domain('dx', 'diagnosis', ARRAY['flu', 'cold', 'hiv']);
SELECT relid, column_name, domain_values FROM tapas.sensitive_domain;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT zip, diagnosis, count(*) FROM dx GROUP BY zip, diagnosis ORDER BY 1, 2;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
SET SESSION AUTHORIZATION regress_tapas_analyst;
SELECT upper(diagnosis) AS d, count(*) FROM dx WHERE zip = 1 GROUP BY 1 ORDER BY 1;
RESET SESSION AUTHORIZATION;
SELECT * FROM cap;
-- NULL removes it
SELECT tapas.declare_domain('dx', 'diagnosis', NULL);
SELECT count(*) FROM tapas.sensitive_domain;
DROP VIEW cap;
DROP TABLE dx;
