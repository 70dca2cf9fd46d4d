
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
