-- tapas 0.2 -> 0.3 (ALTER EXTENSION tapas UPDATE).
-- Every object that src/sql/*.sql adds or changes after 0.2 is added or changed here too;
-- test/system/t-extension-update.sh checks that the result equals a fresh install.
\echo Use "ALTER EXTENSION tapas UPDATE" to load this file. \quit
-- ---------------------------------------------------------------------------
-- Dataset-only audit of a synthetic release (src/api/release_risk_sql.c).
-- ---------------------------------------------------------------------------

CREATE FUNCTION tapas.release_risk(training regclass, synthetic regclass,
	holdout regclass, params jsonb DEFAULT '{}',
	OUT risk text, OUT n_real bigint, OUT n_holdout bigint,
	OUT success_real float8, OUT real_low float8, OUT real_high float8,
	OUT success_holdout float8, OUT holdout_low float8, OUT holdout_high float8,
	OUT baseline float8, OUT baseline_low float8, OUT baseline_high float8,
	OUT residual float8, OUT residual_low float8, OUT residual_high float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_release_risk'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION tapas.release_risk(regclass, regclass, regclass, jsonb) IS
'Audits a synthetic table from the tables alone (no generator): for each risk (singling_out, linkability, attribute_inference, exact_copy, dcr, nndr) the attack''s success on the real training rows (training, the table the generator learnt from) and on the holdout rows (the control), a naive baseline from the synthetic marginals, and the residual risk attributable to the release (p_real - p_holdout) / (1 - p_holdout), each with a confidence interval (Wilson; Katz log ratio for the residual; bootstrap for dcr and nndr, compared as P(real closer than holdout)). params: sensitive, link_columns, distance, targets, predicates, predicate_columns, tolerance, confidence, bootstrap, seed, and the dataset parameters key, columns, exclude, schema, max_categories.';

CREATE FUNCTION tapas.release_risk_records(training regclass, synthetic regclass,
	holdout regclass, params jsonb DEFAULT '{}')
RETURNS TABLE(source text, key text, risk text, value float8)
AS 'MODULE_PATHNAME', 'tapas_sql_release_risk_records'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION tapas.release_risk_records(regclass, regclass, regclass, jsonb) IS
'Per-record results of tapas.release_risk with the same parameters (and seed): source real or holdout, the row''s key (join back on it), the risk, and value: 1/0 success for linkability, attribute_inference and exact_copy, the statistic for dcr and nndr (for each sampled target), and for singling_out the number of predicates that isolate the row (rows isolated at least once).';

-- synthetic_predictor_aia's random forest, distance weights and scale
COMMENT ON FUNCTION tapas.aia_scores(text, regclass, regclass, name, jsonb) IS
'No-box attribute inference scores: for every target row and every value of the categorical sensitive column, how strongly the synthetic data points to that value (the target''s own sensitive value is never read). Attacks: closest_distance_aia (distance), local_neighbourhood_aia (distance, radius), synthetic_predictor_aia (estimator logistic_regression with C, or random_forest with n_estimators, max_depth, min_samples_leaf, seed). A distance may carry per-column weights and a scale.';

-- several attacks on one ROC plot
CREATE FUNCTION tapas.roc_compare_svg(scores float8[], labels boolean[], attack text[],
	title text DEFAULT NULL, epsilon float8 DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'tapas_sql_roc_compare_svg'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas.roc_compare_svg(float8[], boolean[], text[], text, float8) IS
'Several attacks on one ROC plot as a standalone SVG document: the samples are grouped by attack[i] (one curve and legend line with its AUC per attack, in order of first appearance); with epsilon, the epsilon-DP bound (0,0) -> (1/(e^eps+1), e^eps/(e^eps+1)) -> (1,1) that no attack on an epsilon-DP generator can exceed.';
