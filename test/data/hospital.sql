-- The article's hospital: 100,000 patients with realistic quasi-identifiers
-- and one patient with a rare disease.  Deterministic (setseed).
-- Usage: \i test/data/hospital.sql  (creates public.patients)
SELECT setseed(0.20261130);
DROP TABLE IF EXISTS patients;
CREATE TABLE patients (
	id				integer PRIMARY KEY,
	birth_year		integer NOT NULL,
	sex				text NOT NULL,
	zip				text NOT NULL,
	blood_type		text NOT NULL,
	admitted		date NOT NULL,
	ward			text NOT NULL,
	rare_disease	boolean NOT NULL,
	income			integer NOT NULL	-- yearly, in euros; derived from id (no random() draw)
);
INSERT INTO patients
SELECT g,
	   1930 + (floor(random() * 20) + floor(random() * 25) + floor(random() * 30))::int,
	   CASE WHEN random() < 0.51 THEN 'F' ELSE 'M' END,
	   '021' || lpad((floor(random() * 60))::int::text, 2, '0'),
	   (ARRAY['O+','O+','O+','A+','A+','A+','B+','AB+','O-','A-','B-','AB-'])[1 + floor(random() * 12)::int],
	   date '2024-01-01' + floor(random() * 730)::int,
	   (ARRAY['cardiology','oncology','maternity','surgery','emergency','neurology','paediatrics'])[1 + floor(random() * 7)::int],
	   false,
	   18000 + (g * 7919) % 61000
  FROM generate_series(1, 100000) g;
-- the one rare-disease patient
UPDATE patients SET rare_disease = true WHERE id = 73013;
ANALYZE patients;
