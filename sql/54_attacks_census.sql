-- The attacks on real census rows (test/data/census300.csv, 17 categorical
-- columns whose names need quoting): a raw synthetic copy of rows 1..200,
-- members 151..200 and non-members 201..250 as targets.
SET search_path = att, public;
CREATE TABLE census (
	"Region" text, "Residence Type" text, "Family Composition" text,
	"Population Base" text, "Sex" text, "Age" text, "Marital Status" text,
	"Student" text, "Country of Birth" text, "Health" text, "Ethnic Group" text,
	"Religion" text, "Economic Activity" text, "Occupation" text, "Industry" text,
	"Hours worked per week" text, "Approximated Social Grade" text);
\copy census FROM 'test/data/census300.csv' WITH (FORMAT csv)
ALTER TABLE census ADD COLUMN rid serial;
CREATE TABLE census_syn AS SELECT * FROM census WHERE rid <= 200;
ALTER TABLE census_syn DROP COLUMN rid;
CREATE TABLE census_tgt AS SELECT * FROM census WHERE rid > 150 AND rid <= 250;
ALTER TABLE census_tgt ADD PRIMARY KEY (rid);
SELECT count(*), sum(encoded_width) AS encoded_dim FROM tapas.describe('census_syn');

CREATE TABLE census_mia AS
SELECT s.target_key::int AS rid, s.score, s.target_key::int <= 200 AS member
  FROM tapas.mia_scores('closest_distance_mia', 'census_syn', 'census_tgt') s;
-- every member is found (score 0); how far the non-members are
SELECT member, count(*), min(score), max(score), count(*) FILTER (WHERE score = 0) AS exact
  FROM census_mia GROUP BY member ORDER BY member;
-- direct lookup (fixed threshold 0) and the trained threshold
SELECT accuracy, tpr, fpr, auc, tpr_at_fpr_001
  FROM (SELECT array_agg(score ORDER BY rid) s, array_agg(member ORDER BY rid) l FROM census_mia) x,
	   tapas.attack_metrics(s, l, 0);
SELECT tapas.train_threshold(array_agg(score ORDER BY rid), array_agg(member ORDER BY rid), 'accuracy')
  FROM census_mia;
-- local neighbourhood and the KDE rank members first too
SELECT round(auc::numeric, 4) AS auc
  FROM (SELECT array_agg(s.score ORDER BY s.target_key) sc,
			   array_agg(s.target_key::int <= 200 ORDER BY s.target_key) l
		  FROM tapas.mia_scores('local_neighbourhood_mia', 'census_syn', 'census_tgt',
								'{"radius": 1}') s) x,
	   tapas.attack_metrics(sc, l);
SELECT round(auc::numeric, 4) AS auc
  FROM (SELECT array_agg(s.score ORDER BY s.target_key) sc,
			   array_agg(s.target_key::int <= 200 ORDER BY s.target_key) l
		  FROM tapas.mia_scores('probability_estimation_mia', 'census_syn', 'census_tgt') s) x,
	   tapas.attack_metrics(sc, l);
-- AIA on Sex: closest distance recovers every member's value
SELECT count(*) FILTER (WHERE best = truth) AS right, count(*)
  FROM (SELECT a.target_key, (array_agg(a.value ORDER BY a.score DESC, a.value))[1] AS best
		  FROM tapas.aia_scores('closest_distance_aia', 'census_syn', 'census_tgt', 'Sex',
								'{"exclude": []}') a
		 WHERE a.target_key::int <= 200 GROUP BY a.target_key) b
  JOIN census c ON c.rid = b.target_key::int, LATERAL (SELECT c."Sex" AS truth) t;
