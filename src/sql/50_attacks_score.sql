
-- ---------------------------------------------------------------------------
-- Attacks on synthetic data: datasets, no-box attack scores, metrics.
-- (src/pg/dataset.c, src/pg/attacks_score.c, src/pg/attacks_metrics.c)
-- ---------------------------------------------------------------------------

CREATE FUNCTION tapas.describe(tbl regclass, params jsonb DEFAULT '{}',
	OUT column_name text, OUT data_type text, OUT kind text, OUT source text,
	OUT cardinality integer, OUT lower float8, OUT upper float8,
	OUT encoded_offset integer, OUT encoded_width integer,
	OUT categories text[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_describe'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION tapas.describe(regclass, jsonb) IS
'How the attacks encode a table: per column its kind (categorical, ordinal, continuous), why (type, distinct count, schema), categories or bounds, and its block of the encoded row. params: columns, exclude, schema, max_categories, key.';

CREATE FUNCTION tapas.mia_scores(attack text, synthetic regclass, targets regclass,
	params jsonb DEFAULT '{}')
RETURNS TABLE(target_key text, score float8)
AS 'MODULE_PATHNAME', 'tapas_sql_mia_scores'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION tapas.mia_scores(text, regclass, regclass, jsonb) IS
'No-box membership inference scores (larger = more likely a member) of every row of targets against the synthetic table. Attacks: closest_distance_mia (distance), local_neighbourhood_mia (distance, radius), probability_estimation_mia (estimator kde|independent|histogram, bandwidth, bins, alpha). A distance is a name, an object (type, p, columns, weights, scale) or an array of them (their sum). Targets are keyed by their primary key or params key.';

CREATE FUNCTION tapas.aia_scores(attack text, synthetic regclass, targets regclass,
	sensitive name, params jsonb DEFAULT '{}')
RETURNS TABLE(target_key text, value text, score float8)
AS 'MODULE_PATHNAME', 'tapas_sql_aia_scores'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION tapas.aia_scores(text, regclass, regclass, name, jsonb) IS
'No-box attribute inference scores: for every target row and every value of the categorical sensitive column, how strongly the synthetic data points to that value (the target''s own sensitive value is never read). Attacks: closest_distance_aia (distance), local_neighbourhood_aia (distance, radius), synthetic_predictor_aia (estimator logistic_regression with C, or random_forest with n_estimators, max_depth, min_samples_leaf, seed). A distance may carry per-column weights and a scale, or be an array of distances (their sum).';

CREATE FUNCTION tapas.train_threshold(scores float8[], labels boolean[],
	criterion text, value float8 DEFAULT NULL)
RETURNS float8
AS 'MODULE_PATHNAME', 'tapas_sql_train_threshold'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas.train_threshold(float8[], boolean[], text, float8) IS
'Decision threshold tau (positive iff score >= tau) from training scores and labels: criterion accuracy (maximise TPR - FPR), tpr or fpr (closest to value), threshold (tau = value). tau sits halfway to the next lower score; +Infinity means never positive.';

CREATE FUNCTION tapas.attack_metrics(scores float8[], labels boolean[],
	threshold float8 DEFAULT NULL, confidence float8 DEFAULT 0.95,
	OUT n_pos bigint, OUT n_neg bigint, OUT threshold float8,
	OUT accuracy float8, OUT tpr float8, OUT fpr float8, OUT advantage float8,
	OUT privacy_gain float8, OUT auc float8, OUT tpr_at_fpr_01 float8,
	OUT tpr_at_fpr_001 float8, OUT effective_epsilon float8,
	OUT epsilon_lower float8, OUT confidence float8)
RETURNS record
AS 'MODULE_PATHNAME', 'tapas_sql_attack_metrics'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas.attack_metrics(float8[], boolean[], float8, float8) IS
'Success of an attack from its scores and true labels: accuracy, TPR, FPR, advantage (TPR - FPR), privacy gain, exact AUC, TPR at FPR <= 0.1 and 0.01, the TAPAS effective-epsilon point estimate, and a Clopper-Pearson lower bound on epsilon at the threshold. Without a threshold the accuracy-maximising one is chosen on these same samples (optimistic).';

CREATE FUNCTION tapas.metrics_intervals(scores float8[], labels boolean[],
	threshold float8 DEFAULT NULL, confidence float8 DEFAULT 0.95,
	bootstrap integer DEFAULT 1000, seed bigint DEFAULT 0)
RETURNS TABLE(metric text, estimate float8, low float8, high float8)
AS 'MODULE_PATHNAME', 'tapas_sql_metrics_intervals'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas.metrics_intervals(float8[], boolean[], float8, float8, integer, bigint) IS
'Bootstrap confidence intervals of an attack''s metrics from its scores and true labels: one row each for accuracy (at threshold, or at the accuracy-maximising threshold of these same samples when NULL: optimistic), AUC, and TPR at FPR <= 0.1 and 0.01, with the point estimate and the stratified percentile bootstrap interval at confidence (bootstrap resamples, positives and negatives resampled within their class, seeded by seed; widened to contain the estimate; 0 resamples give width 0).';

CREATE FUNCTION tapas.roc_curve(scores float8[], labels boolean[])
RETURNS TABLE(fpr float8, tpr float8, threshold float8)
AS 'MODULE_PATHNAME', 'tapas_sql_roc_curve'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas.roc_curve(float8[], boolean[]) IS
'ROC curve points from (0, 0) to (1, 1): one per distinct score, in decreasing threshold order (the first, +Infinity, is "never positive").';

CREATE FUNCTION tapas.roc_svg(scores float8[], labels boolean[], title text DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'tapas_sql_roc_svg'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas.roc_svg(float8[], boolean[], text) IS
'The ROC curve as a standalone SVG document (axes, ticks, chance diagonal, AUC in the legend); save it to a .svg file and open it in a browser.';

CREATE FUNCTION tapas.roc_compare_svg(scores float8[], labels boolean[], attack text[],
	title text DEFAULT NULL, epsilon float8 DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'tapas_sql_roc_compare_svg'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas.roc_compare_svg(float8[], boolean[], text[], text, float8) IS
'Several attacks on one ROC plot as a standalone SVG document: the samples are grouped by attack[i] (one curve and legend line with its AUC per attack, in order of first appearance); with epsilon, the epsilon-DP bound (0,0) -> (1/(e^eps+1), e^eps/(e^eps+1)) -> (1,1) that no attack on an epsilon-DP generator can exceed.';

CREATE FUNCTION tapas.step_svg(series text[], x float8[], y float8[], marked boolean[] DEFAULT NULL,
	title text DEFAULT NULL, x_label text DEFAULT NULL, y_label text DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'tapas_sql_step_svg'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas.step_svg(text[], float8[], float8[], boolean[], text, text, text) IS
'Step curves as a standalone SVG document (opaque background, ticks and labels, legend): point i, (x[i], y[i]), belongs to the curve series[i]; y holds until the next x of its curve; marked points are drawn as crosses ("refused query"). For records isolated against queries answered.';

CREATE FUNCTION tapas.effective_epsilon(scores float8[], labels boolean[],
	confidence float8 DEFAULT 0.95, validation_fraction float8 DEFAULT 0.1,
	OUT epsilon_lower float8, OUT threshold float8, OUT inverse boolean)
RETURNS record
AS 'MODULE_PATHNAME', 'tapas_sql_effective_epsilon'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas.effective_epsilon(float8[], boolean[], float8, float8) IS
'Clopper-Pearson lower bound on the epsilon of the generator (Jagielski et al. 2020, TAPAS EffectiveEpsilonReport): the first validation_fraction of the samples choose the threshold, the rest bound epsilon at the given confidence.';
