-- tapas.evaluate on real census rows (test/data/census300.csv): the
-- reference's Groundhog example scaled down to 300 records, target = the
-- first record, 100-record datasets, raw generator.
\set VERBOSITY terse
CREATE TABLE shadow_census (
	"Region" text, "Residence Type" text, "Family Composition" text,
	"Population Base" text, "Sex" text, "Age" text, "Marital Status" text,
	"Student" text, "Country of Birth" text, "Health" text, "Ethnic Group" text,
	"Religion" text, "Economic Activity" text, "Occupation" text, "Industry" text,
	"Hours worked per week" text, "Approximated Social Grade" text);
\copy shadow_census FROM 'test/data/census300.csv' WITH (FORMAT csv)
ALTER TABLE shadow_census ADD COLUMN rid serial PRIMARY KEY;

\set p '{"num_training_records": 100, "num_training_datasets": 200, "num_test_datasets": 100, "seed": 5}'

-- Groundhog (naive + hist + corr over the categories present in the sample).
SELECT round(accuracy::numeric, 2) AS accuracy, round(auc::numeric, 2) AS auc,
       n_train, n_test, n_features
  FROM tapas.evaluate('targeted_mia', 'groundhog', 'shadow_census', '1', :'p');
-- 1-, 2- and 3-way random targeted queries: the paper's strongest feature.
SELECT round(accuracy::numeric, 2) AS accuracy, round(auc::numeric, 2) AS auc, n_features
  FROM tapas.evaluate('targeted_mia', 'shadow_modelling', 'shadow_census', '1',
       :'p'::jsonb || '{"features": ["queries"], "order": [1, 2, 3], "number": [20, 100, 100]}');
-- Direct lookup: the record is in the raw synthetic data iff it is a member.
SELECT accuracy, auc
  FROM tapas.evaluate('targeted_mia', 'closest_distance_mia', 'shadow_census', '1',
       :'p'::jsonb || '{"criterion": "threshold", "criterion_value": 0}');
-- AIA on Sex: nearest copy of the target decides.
SELECT accuracy, auc
  FROM tapas.evaluate('targeted_aia', 'closest_distance_aia', 'shadow_census', '1',
       :'p'::jsonb || '{"sensitive": "Sex"}');
DROP TABLE shadow_census;
