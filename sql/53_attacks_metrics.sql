-- Metrics and thresholds against hand-computed values.
-- scores {0.9, 0.8, 0.8, 0.3, 0.1}, labels {t, t, f, f, t}: P = 3, N = 2,
-- ROC (0,0) (0,1/3) (1/2,2/3) (1,2/3) (1,1), AUC = (2 + 1.5) / 6.
SET search_path = att, public;
SELECT * FROM tapas.roc_curve('{0.9,0.8,0.8,0.3,0.1}', '{t,t,f,f,t}');
SELECT n_pos, n_neg, threshold, accuracy, round(tpr::numeric, 6) AS tpr, fpr,
	   round(auc::numeric, 6) AS auc, round(tpr_at_fpr_01::numeric, 6) AS tpr01,
	   effective_epsilon, epsilon_lower
  FROM tapas.attack_metrics('{0.9,0.8,0.8,0.3,0.1}', '{t,t,f,f,t}');
-- at a given threshold: TP 2, FP 2, TN 0, FN 1
SELECT threshold, accuracy, round(tpr::numeric, 6) AS tpr, fpr,
	   round(advantage::numeric, 6) AS advantage, round(privacy_gain::numeric, 6) AS privacy_gain
  FROM tapas.attack_metrics('{0.9,0.8,0.8,0.3,0.1}', '{t,t,f,f,t}', 0.3);
-- all ties: AUC one half; one class only: AUC 0.5 and rates 0
SELECT auc, tpr, fpr FROM tapas.attack_metrics('{1,1,1,1}', '{t,f,t,f}');
SELECT auc, tpr, fpr, accuracy FROM tapas.attack_metrics('{1,2}', '{t,t}', 1.5);

-- thresholds: every criterion (tau halfway to the next lower score)
SELECT tapas.train_threshold('{0.9,0.8,0.8,0.3,0.1}', '{t,t,f,f,t}', 'accuracy');
SELECT tapas.train_threshold('{0.9,0.8,0.8,0.3,0.1}', '{t,t,f,f,t}', 'tpr', 0.6);
SELECT tapas.train_threshold('{0.9,0.8,0.8,0.3,0.1}', '{t,t,f,f,t}', 'tp', 0.6);
SELECT tapas.train_threshold('{0.9,0.8,0.8,0.3,0.1}', '{t,t,f,f,t}', 'fpr', 0.5);
SELECT tapas.train_threshold('{0.9,0.8,0.8,0.3,0.1}', '{t,t,f,f,t}', 'fp', 1);
SELECT tapas.train_threshold('{0.9,0.8,0.8,0.3,0.1}', '{t,t,f,f,t}', 'fpr', 0);
SELECT tapas.train_threshold('{0.9,0.8,0.8,0.3,0.1}', '{t,t,f,f,t}', 'tpr', 0);
SELECT tapas.train_threshold('{0.9,0.8,0.8,0.3,0.1}', '{t,t,f,f,t}', 'threshold', -0.5);
-- perfectly separated integer scores (closest distance): tau between -1 and 0
SELECT tapas.train_threshold('{0,0,-1,-2,0,-1}', '{t,t,f,f,t,f}', 'accuracy');

-- effective epsilon: perfect separation of 100 + 100 samples (the bound is
-- limited only by the sample size), and no separation at all
SELECT round(epsilon_lower::numeric, 4) AS eps, threshold, inverse
  FROM tapas.effective_epsilon(
	(SELECT array_agg((i % 2)::float8 ORDER BY i) FROM generate_series(1, 200) i),
	(SELECT array_agg(i % 2 = 1 ORDER BY i) FROM generate_series(1, 200) i));
SELECT round(epsilon_lower::numeric, 4) AS eps, inverse
  FROM tapas.effective_epsilon(
	(SELECT array_agg(1.0::float8) FROM generate_series(1, 200) i),
	(SELECT array_agg(i % 2 = 1 ORDER BY i) FROM generate_series(1, 200) i), 0.9, 0.2);
-- the bound at 95%, one-sided levels 1 - 0.05/4: ln(q / (1 - q)), q = 0.0125^(1/50)
SELECT round(epsilon_lower::numeric, 6) AS eps,
	   round(ln(0.0125 ^ (1 / 50.0) / (1 - 0.0125 ^ (1 / 50.0)))::numeric, 6) AS expected
  FROM tapas.attack_metrics(
	(SELECT array_agg((i % 2)::float8 ORDER BY i) FROM generate_series(1, 100) i),
	(SELECT array_agg(i % 2 = 1 ORDER BY i) FROM generate_series(1, 100) i), 0.5);

-- the ROC curve as SVG
SELECT left(svg, 38) AS head, right(svg, 7) AS tail,
	   svg LIKE '%<svg xmlns="http://www.w3.org/2000/svg"%' AS is_svg,
	   svg LIKE '%AUC = 0.5833%' AS legend,
	   svg LIKE '%>ROC curve</text>%' AS default_title,
	   (SELECT count(*) FROM regexp_matches(svg, '<line ', 'g')) AS lines,
	   array_length(regexp_split_to_array(substring(svg FROM 'points="([^"]*)"'), ' '), 1) AS points,
	   substring(svg FROM 'points="([^"]*)"') AS curve
  FROM tapas.roc_svg('{0.9,0.8,0.8,0.3,0.1}', '{t,t,f,f,t}') svg;
SELECT svg LIKE '%>Census &amp; co: &lt;MIA&gt;</text>%' AS escaped_title,
	   xml_is_well_formed_document(svg) AS well_formed
  FROM tapas.roc_svg('{1,0}', '{t,f}', 'Census & co: <MIA>') svg;

-- errors
\set VERBOSITY default
SELECT * FROM tapas.attack_metrics(NULL, '{t}');
SELECT * FROM tapas.attack_metrics('{1,2}', '{t}');
SELECT * FROM tapas.attack_metrics('{}', '{}');
SELECT * FROM tapas.attack_metrics('{1,NULL}', '{t,f}');
SELECT * FROM tapas.attack_metrics('{1,NaN}', '{t,f}');
SELECT * FROM tapas.attack_metrics('{{1,2}}', '{{t,f}}');
SELECT * FROM tapas.attack_metrics('{1,2}', '{t,f}', 'NaN');
SELECT * FROM tapas.attack_metrics('{1,2}', '{t,f}', NULL, 1.5);
SELECT tapas.train_threshold('{1,2}', '{t,f}', 'youden');
SELECT tapas.train_threshold('{1,2}', '{t,f}', NULL);
SELECT tapas.train_threshold('{1,2}', '{t,f}', 'tpr');
SELECT tapas.train_threshold('{1,2}', '{t,f}', 'fpr', 2);
SELECT tapas.train_threshold('{1,2}', '{t,f}', 'accuracy', 0.5);
SELECT * FROM tapas.effective_epsilon('{1,2}', '{t,f}');
SELECT * FROM tapas.effective_epsilon('{1,2,3}', '{t,f,t}', 0.95, 0);
SELECT tapas.roc_svg('{1}', NULL);
\set VERBOSITY terse
