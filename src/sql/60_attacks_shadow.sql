-- Shadow-modelling attacks and the evaluation of attacks under a threat
-- model (src/pg/attacks_shadow*.c, kernels in src/attacks/).

CREATE FUNCTION tapas.evaluate(
	threat_model text,
	attack text,
	auxiliary regclass,
	target_key text,
	params jsonb DEFAULT '{}',
	OUT accuracy float8,
	OUT tpr float8,
	OUT fpr float8,
	OUT advantage float8,
	OUT auc float8,
	OUT tpr_at_fpr_01 float8,
	OUT tpr_at_fpr_001 float8,
	OUT effective_epsilon float8,
	OUT epsilon_lower float8,
	OUT threshold float8,
	OUT n_train integer,
	OUT n_test integer,
	OUT n_pos integer,
	OUT n_neg integer,
	OUT n_features integer,
	OUT seconds float8,
	OUT accuracy_low float8,
	OUT accuracy_high float8,
	OUT auc_low float8,
	OUT auc_high float8,
	OUT tpr_at_fpr_01_low float8,
	OUT tpr_at_fpr_01_high float8,
	OUT tpr_at_fpr_001_low float8,
	OUT tpr_at_fpr_001_high float8)
RETURNS record
AS 'MODULE_PATHNAME', 'tapas_sql_evaluate'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION tapas.evaluate(text, text, regclass, text, jsonb) IS
'Evaluates an attack on the record of auxiliary whose key is target_key, under threat_model '
'targeted_mia or targeted_aia: training and test datasets are sampled from the two halves of '
'auxiliary, or all built from one base dataset with params knowledge exact (without the target; '
'the target is added to positive MIA datasets, and to every AIA dataset with its sensitive value '
'drawn among params values, default every value of the column, uniformly or by params '
'distribution weights; over more than two values the guess is the best-scoring value and only '
'accuracy, its interval and advantage over the prior''s most likely value are returned), passed through the '
'generator (params generator: raw, marginals or a function (regclass, integer, bigint) returning '
'a set of rows), attacked (groundhog, shadow_modelling, closest_distance_mia, '
'local_neighbourhood_mia, probability_estimation, closest_distance_aia, local_neighbourhood_aia, '
'synthetic_predictor) and scored; returns the metrics on the test datasets, with stratified '
'percentile bootstrap intervals (params bootstrap resamples, default 1000, 0 for none: NULL '
'bounds) at params confidence for accuracy, AUC and TPR at FPR 0.1 and 0.01. Every random step '
'is seeded by params seed.';

CREATE FUNCTION tapas.evaluate_targets(
	threat_model text,
	attack text,
	auxiliary regclass,
	target_keys text[],
	params jsonb DEFAULT '{}')
RETURNS TABLE (target_key text, accuracy float8, tpr float8, fpr float8, advantage float8,
	auc float8, tpr_at_fpr_01 float8, tpr_at_fpr_001 float8, effective_epsilon float8,
	epsilon_lower float8, threshold float8, n_train integer, n_test integer, n_pos integer,
	n_neg integer, n_features integer, seconds float8, accuracy_low float8,
	accuracy_high float8, auc_low float8, auc_high float8, tpr_at_fpr_01_low float8,
	tpr_at_fpr_01_high float8, tpr_at_fpr_001_low float8, tpr_at_fpr_001_high float8)
AS 'MODULE_PATHNAME', 'tapas_sql_evaluate_targets'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION tapas.evaluate_targets(text, text, regclass, text[], jsonb) IS
'The evaluation of tapas.evaluate for several targets at once (the reference''s multiple-target '
'mode): all of target_keys are taken out of auxiliary, one set of training and test datasets is '
'sampled for all of them (each target with its own label per dataset: in MIA pairs each target is '
'in exactly one dataset of the pair; in AIA every dataset holds every target with its own value), '
'each dataset goes through the generator once, and each target is scored and thresholded on its own. '
'Groundhog and shadow modelling share the datasets'' target-free features (naive, hist, corr) and '
'fit one classifier per target (same seed) on its labels and its own query features. One row per '
'target, in the order of target_keys, with the columns of tapas.evaluate.';

CREATE FUNCTION tapas.evaluate_scores(
	threat_model text,
	attack text,
	auxiliary regclass,
	target_key text,
	params jsonb DEFAULT '{}')
RETURNS TABLE (dataset_no integer, label boolean, score float8)
AS 'MODULE_PATHNAME', 'tapas_sql_evaluate_scores'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION tapas.evaluate_scores(text, text, regclass, text, jsonb) IS
'The same evaluation as tapas.evaluate, returning one row per test dataset: its number (1..n), '
'its true label (MIA: the target is a member; AIA: the target has the second candidate value) '
'and the attack score (larger = more likely positive).';
