-- tapas 0.2 -> 0.3 (ALTER EXTENSION tapas UPDATE).
-- Every object that src/sql/*.sql adds or changes after 0.2 is added or changed here too;
-- test/system/t-extension-update.sh checks that the result equals a fresh install.
\echo Use "ALTER EXTENSION tapas UPDATE" to load this file. \quit

-- ledger keyed by (database, table): the views act on the current database,
-- alerts name theirs, dropped roles are named as such
CREATE OR REPLACE VIEW tapas.query_log AS
	SELECT q.log_id, q.logged_at,
		   coalesce(r.rolname, ('dropped role (OID ' || q.roleid || ')')::name) AS role, q.pid,
		   q.session_start, q.tbl, q.statistic, q.answer, q.covered, q.query
	  FROM tapas.query_log_raw() q
	  LEFT JOIN pg_catalog.pg_roles r ON r.oid = q.roleid;
COMMENT ON VIEW tapas.query_log IS
	'Logged answers of the current database: one row per answered cell (log_id, time, session user, pid and backend start = session, table, statistic, answer, number of covered rows, query text); admin only';
COMMENT ON FUNCTION tapas.query_log_raw() IS
	'Every logged cell of the current database in the tapas ledger (admin only); use the view tapas.query_log';
COMMENT ON FUNCTION tapas.reset(regclass) IS
	'Removes every logged cell and key index of a table of the current database from the ledger, in memory and on disk; returns the number of cells removed; not transactional; admin only';

DROP VIEW tapas.alerts;
DROP FUNCTION tapas.alerts_raw();
CREATE FUNCTION tapas.alerts_raw(
	OUT alert_id bigint, OUT raised_at timestamptz, OUT roleid oid, OUT pid integer,
	OUT tbl regclass, OUT statistic text, OUT record_key bigint, OUT kind text,
	OUT method text, OUT action text, OUT log_ids bigint[], OUT detail text,
	OUT dbid oid, OUT record_keys bigint[], OUT nrecords integer)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_alerts'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas.alerts_raw() IS
	'Alerts kept in shared memory, oldest first, of every database (admin only); use the view tapas.alerts';

-- Alerts of every database: "table" is the table of the current database
-- (NULL for another database's alert, whose OID means nothing here),
-- table_name names it in either case.
CREATE VIEW tapas.alerts AS
	SELECT a.alert_id, a.raised_at,
		   coalesce(r.rolname, ('dropped role (OID ' || a.roleid || ')')::name) AS role, a.pid,
		   CASE WHEN a.dbid = d0.oid THEN a.tbl END AS "table",
		   a.statistic, a.record_key, a.kind, a.method, a.action, a.log_ids, a.detail,
		   coalesce(d.datname, ('dropped database (OID ' || a.dbid || ')')::name) AS database,
		   CASE WHEN a.dbid = d0.oid THEN a.tbl::text
				ELSE 'table OID ' || a.tbl::oid || ' of database ' ||
					 coalesce(pg_catalog.quote_ident(d.datname), 'OID ' || a.dbid) END AS table_name,
		   a.record_keys, a.nrecords
	  FROM tapas.alerts_raw() a
	  JOIN pg_catalog.pg_database d0 ON d0.datname = pg_catalog.current_database()
	  LEFT JOIN pg_catalog.pg_roles r ON r.oid = a.roleid
	  LEFT JOIN pg_catalog.pg_database d ON d.oid = a.dbid;
COMMENT ON VIEW tapas.alerts IS
	'Alerts of the auditor, of every database: one row per statement, table and kind of isolation (alert id, time, session user, pid, table of the current database, statistics, key of its first record, kind determined, reconstructed or incomplete (a check that could not complete; record_key 0), methods, action logged/warned/denied, log_ids of the queries involved, detail, database, table name, keys of the isolated records (the first 32, ascending) and their number); survives ROLLBACK and restart; admin only';

CREATE VIEW tapas.alert_records AS
	SELECT a.alert_id, a.raised_at, a.role, a.pid, a."table", a.statistic, r.record_key,
		   a.kind, a.method, a.action, a.log_ids, a.detail, a.database, a.table_name
	  FROM tapas.alerts a CROSS JOIN LATERAL pg_catalog.unnest(a.record_keys) AS r(record_key);
COMMENT ON VIEW tapas.alert_records IS
	'The records listed in the alerts: one row per alert and listed record key (the first 32 of each alert), with the alert''s columns; admin only';
REVOKE ALL ON FUNCTION tapas.alerts_raw() FROM PUBLIC;
REVOKE ALL ON tapas.alerts FROM PUBLIC;
REVOKE ALL ON tapas.alert_records FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.alerts_raw() TO tapas_admin;
GRANT SELECT ON tapas.alerts TO tapas_admin;
GRANT SELECT ON tapas.alert_records TO tapas_admin;

-- Parallel capture (issue 12): tapas._cover gets combine, serial and deserial
-- functions and becomes parallel safe (src/capture/cover.c, plan.c); and one
-- capture per covered set (issue 12, session 7): tapas._cover(key, capture,
-- VARIADIC values) collects the keys once for every statistic of its covered
-- set, replacing tapas._cover(key, value, capture).
DROP AGGREGATE tapas._cover(int8, float8, int4);
DROP AGGREGATE tapas._cover(int4, float8, int4);
DROP FUNCTION tapas._cover_trans(internal, int8, float8, int4);
DROP FUNCTION tapas._cover_trans(internal, int4, float8, int4);
ALTER FUNCTION tapas._cover_final(internal) PARALLEL SAFE;

CREATE FUNCTION tapas._cover_trans(internal, int8, int4, VARIADIC "any")
RETURNS internal
AS 'MODULE_PATHNAME', 'tapas_sql_cover_trans'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION tapas._cover_trans(internal, int8, int4, "any") IS
	'Transition function of tapas._cover for int8 keys (internal)';

CREATE FUNCTION tapas._cover_trans(internal, int4, int4, VARIADIC "any")
RETURNS internal
AS 'MODULE_PATHNAME', 'tapas_sql_cover_trans4'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION tapas._cover_trans(internal, int4, int4, "any") IS
	'Transition function of tapas._cover for int2 and int4 keys (internal)';

CREATE FUNCTION tapas._cover_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'tapas_sql_cover_combine'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION tapas._cover_combine(internal, internal) IS
	'Combine function of tapas._cover: union of the covered keys, sums of the answers (internal)';

CREATE FUNCTION tapas._cover_serial(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'tapas_sql_cover_serial'
LANGUAGE C STRICT PARALLEL SAFE;
COMMENT ON FUNCTION tapas._cover_serial(internal) IS
	'Serialisation function of tapas._cover: a partial state as bytea (internal)';

CREATE FUNCTION tapas._cover_deserial(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'tapas_sql_cover_deserial'
LANGUAGE C STRICT PARALLEL SAFE;
COMMENT ON FUNCTION tapas._cover_deserial(bytea, internal) IS
	'Deserialisation function of tapas._cover (internal)';

CREATE AGGREGATE tapas._cover(int8, int4, VARIADIC "any") (
	SFUNC = tapas._cover_trans,
	STYPE = internal,
	SSPACE = 4096,
	FINALFUNC = tapas._cover_final,
	FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = tapas._cover_combine,
	SERIALFUNC = tapas._cover_serial,
	DESERIALFUNC = tapas._cover_deserial,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE tapas._cover(int8, int4, VARIADIC "any") IS
	'Capture aggregate added by tapas to audited queries on tables with an int8 key (internal; not for direct use)';
CREATE AGGREGATE tapas._cover(int4, int4, VARIADIC "any") (
	SFUNC = tapas._cover_trans,
	STYPE = internal,
	SSPACE = 4096,
	FINALFUNC = tapas._cover_final,
	FINALFUNC_MODIFY = READ_WRITE,
	COMBINEFUNC = tapas._cover_combine,
	SERIALFUNC = tapas._cover_serial,
	DESERIALFUNC = tapas._cover_deserial,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE tapas._cover(int4, int4, VARIADIC "any") IS
	'Capture aggregate added by tapas to audited queries on tables with an int2 or int4 key (internal; not for direct use)';
-- volatile, as the install script sets it (see 10_capture.sql)
UPDATE pg_catalog.pg_proc SET provolatile = 'v'
 WHERE oid IN ('tapas._cover(int8, int4, "any")'::pg_catalog.regprocedure,
               'tapas._cover(int4, int4, "any")'::pg_catalog.regprocedure);

-- joint audit (issue 11): the 'incomplete' alert kind; the audit per class and scope
COMMENT ON FUNCTION tapas.audit(regclass) IS
	'Re-runs the full audit of a table on the whole ledger (per basis-value class and audit scope: every role under tapas.audit_scope = all, shown as (all), else per role; no time budget) and returns every isolated record: determined by the logged rows or reconstructed from the logged answers; raises no alert; admin only';

-- ---------------------------------------------------------------------------
-- Per-role status (in the spirit of pg_stat_statements): what each audited
-- role has been answered, refused and alerted for, from the ledger and the
-- alerts.  Admin only, like the views it reads.
-- ---------------------------------------------------------------------------

CREATE VIEW tapas.role_status AS
	WITH logged AS (
		SELECT roleid, count(*) AS cells_logged, count(DISTINCT tbl) AS tables,
			   sum(covered) AS rows_covered, min(logged_at) AS first_logged,
			   max(logged_at) AS last_logged
		  FROM tapas.query_log_raw() GROUP BY roleid),
	alerted AS (
		SELECT roleid, count(*) AS alerts,
			   count(*) FILTER (WHERE action = 'denied') AS refusals,
			   sum(nrecords) AS records_alerted,
			   max(raised_at) AS last_alert
		  FROM tapas.alerts_raw() GROUP BY roleid),
	roles AS (
		SELECT coalesce(l.roleid, a.roleid) AS roleid, l.tables, l.cells_logged, l.rows_covered,
			   l.first_logged, l.last_logged, a.alerts, a.refusals, a.records_alerted, a.last_alert
		  FROM logged l FULL JOIN alerted a ON a.roleid = l.roleid)
	SELECT coalesce((SELECT r.rolname FROM pg_catalog.pg_roles r WHERE r.oid = s.roleid),
					('dropped role (OID ' || s.roleid || ')')::name) AS role,
		   coalesce(s.tables, 0) AS tables,
		   coalesce(s.cells_logged, 0) AS cells_logged,
		   coalesce(s.rows_covered, 0) AS rows_covered,
		   coalesce(s.refusals, 0) AS refusals,
		   coalesce(s.alerts, 0) AS alerts,
		   coalesce(s.records_alerted, 0) AS records_alerted,
		   round(100.0 * coalesce(s.cells_logged, 0) / u.max_cells, 2) AS ledger_cells_pct,
		   s.first_logged, s.last_logged, s.last_alert
	  FROM roles s CROSS JOIN tapas.ledger_usage() u;
COMMENT ON VIEW tapas.role_status IS
	'Per session user: tables and cells logged, rows covered, refusals (deny-mode alerts: one per refused statement, table and kind), alerts, records named by the alerts, the share of tapas.ledger_max_cells its cells take (percent), first and last logged answer, last alert; admin only';
REVOKE ALL ON tapas.role_status FROM PUBLIC;
GRANT SELECT ON tapas.role_status TO tapas_admin;

-- step plots (the demo's disclosure picture)
CREATE FUNCTION tapas.step_svg(series text[], x float8[], y float8[], marked boolean[] DEFAULT NULL,
	title text DEFAULT NULL, x_label text DEFAULT NULL, y_label text DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'tapas_sql_step_svg'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas.step_svg(text[], float8[], float8[], boolean[], text, text, text) IS
'Step curves as a standalone SVG document (opaque background, ticks and labels, legend): point i, (x[i], y[i]), belongs to the curve series[i]; y holds until the next x of its curve; marked points are drawn as crosses ("refused query"). For records isolated against queries answered.';

-- tapas.last_capture() gains basis_id, grp and aggregates (issue 10: the normal form of a cell)
DROP FUNCTION tapas.last_capture();
CREATE FUNCTION tapas.last_capture(OUT relid regclass, OUT statistic text,
								   OUT answer float8, OUT covered bigint, OUT keys bigint[],
								   OUT basis_id bigint, OUT grp integer, OUT aggregates integer[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_last_capture'
LANGUAGE C STRICT VOLATILE;
REVOKE ALL ON FUNCTION tapas.last_capture() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.last_capture() TO tapas_admin;
COMMENT ON FUNCTION tapas.last_capture() IS
	'Cells captured in this backend by the last statement that captured any: per logged term its basis value (statistic, the canonical text, and basis_id, a 64-bit hash of it), answer and covered set, and the answered cell it is a term of: the output group grp (in the order the gate drained them; NULL when grouped by a sensitive column) and the aggregates of the query level (1, 2, ... in order of appearance, select list then HAVING; 0 for the count tapas adds for absent groups) (admin only, for inspection and tests)';

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
'No-box attribute inference scores: for every target row and every value of the categorical sensitive column, how strongly the synthetic data points to that value (the target''s own sensitive value is never read). Attacks: closest_distance_aia (distance), local_neighbourhood_aia (distance, radius), synthetic_predictor_aia (estimator logistic_regression with C, or random_forest with n_estimators, max_depth, min_samples_leaf, seed). A distance may carry per-column weights and a scale, or be an array of distances (their sum).';

-- several attacks on one ROC plot
CREATE FUNCTION tapas.roc_compare_svg(scores float8[], labels boolean[], attack text[],
	title text DEFAULT NULL, epsilon float8 DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'tapas_sql_roc_compare_svg'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas.roc_compare_svg(float8[], boolean[], text[], text, float8) IS
'Several attacks on one ROC plot as a standalone SVG document: the samples are grouped by attack[i] (one curve and legend line with its AUC per attack, in order of first appearance); with epsilon, the epsilon-DP bound (0,0) -> (1/(e^eps+1), e^eps/(e^eps+1)) -> (1,1) that no attack on an epsilon-DP generator can exceed.';

-- the bhtp decoder (recon/cs_bhtp.c) in tapas.reconstruct_matrix
COMMENT ON FUNCTION tapas.reconstruct_matrix(bigint[][], numeric[], text, integer, float8, boolean) IS
'Recovers x from answers = rows * x for an m x n 0/1 matrix rows (one inner array per query); records are 1..n. Methods: omp, nnls, lp, bhtp (binary hard-thresholding pursuit for hundreds of positives, exact answers; s = sparsity bound, noise = Laplace scale of the answer noise, binary = round to 0/1; returns the non-zero values, error if inconsistent with the answers), sparse (every 0/1 x of weight <= s <= 3; error unless exactly one), exact (the records the answers determine, with their values).';
-- a second density estimator (the joint histogram) and sums of distances
COMMENT ON FUNCTION tapas.mia_scores(text, regclass, regclass, jsonb) IS
'No-box membership inference scores (larger = more likely a member) of every row of targets against the synthetic table. Attacks: closest_distance_mia (distance), local_neighbourhood_mia (distance, radius), probability_estimation_mia (estimator kde|independent|histogram, bandwidth, bins, alpha). A distance is a name, an object (type, p, columns, weights, scale) or an array of them (their sum). Targets are keyed by their primary key or params key.';

-- bootstrap confidence intervals of the evaluation metrics
DROP FUNCTION tapas.evaluate(text, text, regclass, text, jsonb);
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


-- several targets sharing one set of datasets
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

-- bootstrap intervals of the metrics of any scores
CREATE FUNCTION tapas.metrics_intervals(scores float8[], labels boolean[],
	threshold float8 DEFAULT NULL, confidence float8 DEFAULT 0.95,
	bootstrap integer DEFAULT 1000, seed bigint DEFAULT 0)
RETURNS TABLE(metric text, estimate float8, low float8, high float8)
AS 'MODULE_PATHNAME', 'tapas_sql_metrics_intervals'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas.metrics_intervals(float8[], boolean[], float8, float8, integer, bigint) IS
'Bootstrap confidence intervals of an attack''s metrics from its scores and true labels: one row each for accuracy (at threshold, or at the accuracy-maximising threshold of these same samples when NULL: optimistic), AUC, and TPR at FPR <= 0.1 and 0.01, with the point estimate and the stratified percentile bootstrap interval at confidence (bootstrap resamples, positives and negatives resampled within their class, seeded by seed; widened to contain the estimate; 0 resamples give width 0).';
-- declared domains of sensitive columns: values no row holds yet
CREATE TABLE tapas.sensitive_domain (
	relid				regclass NOT NULL,
	attnum				int2 NOT NULL,
	column_name			name NOT NULL,
	domain_values		text[] NOT NULL,
	PRIMARY KEY (relid, attnum)
);
SELECT pg_catalog.pg_extension_config_dump('tapas.sensitive_domain', '');
REVOKE ALL ON tapas.sensitive_domain FROM PUBLIC;
COMMENT ON TABLE tapas.sensitive_domain IS
	'Values an administrator declared for sensitive columns (tapas.declare_domain): grouping by the column logs a 0-cell for each value no group has, as for the values the table holds';

CREATE FUNCTION tapas.declare_domain(tbl regclass, column_name name, domain_values text[])
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	att record;
	v text;
BEGIN
	IF tbl IS NULL OR column_name IS NULL THEN
		RAISE EXCEPTION 'table and column must not be NULL' USING ERRCODE = '22004';
	END IF;
	IF NOT EXISTS (SELECT FROM tapas.protection p WHERE p.relid = tbl
				   AND declare_domain.column_name = ANY (p.sensitive_columns)) THEN
		RAISE EXCEPTION 'column "%" of table % is not a sensitive column of a protected table',
			declare_domain.column_name, tbl
			USING ERRCODE = '42809', HINT = 'Protect the table with the column as sensitive first (tapas.protect).';
	END IF;
	SELECT a.attnum, pg_catalog.format_type(a.atttypid, a.atttypmod) AS typ INTO att
	  FROM pg_catalog.pg_attribute a
	 WHERE a.attrelid = tbl AND a.attname = declare_domain.column_name AND NOT a.attisdropped;
	IF domain_values IS NULL THEN
		DELETE FROM tapas.sensitive_domain d WHERE d.relid = tbl AND d.attnum = att.attnum;
		RETURN;
	END IF;
	IF cardinality(domain_values) > 1000 THEN
		RAISE EXCEPTION 'a declared domain has at most 1000 values' USING ERRCODE = '54000';
	END IF;
	FOREACH v IN ARRAY domain_values LOOP
		IF v IS NOT NULL THEN
			-- each value must be one of the column's type
			EXECUTE pg_catalog.format('SELECT %L::%s', v, att.typ);
		END IF;
	END LOOP;
	INSERT INTO tapas.sensitive_domain AS d VALUES (tbl, att.attnum, declare_domain.column_name, domain_values)
	ON CONFLICT (relid, attnum) DO UPDATE SET domain_values = EXCLUDED.domain_values,
		column_name = EXCLUDED.column_name;
END
$$;
REVOKE ALL ON FUNCTION tapas.declare_domain(regclass, name, text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.declare_domain(regclass, name, text[]) TO tapas_admin;
COMMENT ON FUNCTION tapas.declare_domain(regclass, name, text[]) IS
	'Declares the domain of a sensitive column of a protected table (admin only): grouping by the column, or by an expression of it alone, then logs a 0-cell for every declared value that no group of the answer has, even when no row holds it yet; NULL removes the declaration';
-- ---------------------------------------------------------------------------
-- Keys that are not one integer column (issue 12): uuid, text, composite.
-- Their records are named by a 64-bit hash of the key's binary form; the
-- registry maps (table, hash) to the key's text and makes a collision an
-- error, never a silent merge of two records (src/policy/keys.c).
-- ---------------------------------------------------------------------------
ALTER TABLE tapas.protection ADD COLUMN key_columns name[];
ALTER TABLE tapas.protection ADD COLUMN key_attnums int2[];
COMMENT ON COLUMN tapas.protection.key_columns IS
	'All key columns, in order (NULL: the one column key_column)';
COMMENT ON COLUMN tapas.protection.key_attnums IS
	'Attribute numbers of key_columns (NULL: key_attnum)';

CREATE TABLE tapas.key_registry (
	relid		oid NOT NULL,
	key_hash	int8 NOT NULL,
	key_text	text NOT NULL,
	PRIMARY KEY (relid, key_hash)
);
SELECT pg_catalog.pg_extension_config_dump('tapas.key_registry', '');
REVOKE ALL ON tapas.key_registry FROM PUBLIC;
COMMENT ON TABLE tapas.key_registry IS
	'Record identities of protected tables whose key is not one integer column: the 64-bit hash the ledger uses, and the key it names (written by tapas.protect and the tapas_key_registry trigger)';

CREATE FUNCTION tapas._key_id(VARIADIC "any")
RETURNS int8
AS 'MODULE_PATHNAME', 'tapas_sql_key_id'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION tapas._key_id(VARIADIC "any") IS
	'Record identity of a key given as its columns: a 64-bit hash of their binary forms (internal)';

CREATE FUNCTION tapas._key_text(VARIADIC "any")
RETURNS text
AS 'MODULE_PATHNAME', 'tapas_sql_key_text_of'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas._key_text(VARIADIC "any") IS
	'Text form of a key given as its columns: the column''s output, or ROW(...)::text for several (internal)';

CREATE FUNCTION tapas._key_register()
RETURNS trigger
AS 'MODULE_PATHNAME', 'tapas_sql_key_register'
LANGUAGE C SECURITY DEFINER
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION tapas._key_register() FROM PUBLIC;
COMMENT ON FUNCTION tapas._key_register() IS
	'Row trigger of protected tables with hashed keys: registers each written key, and refuses a key whose hash names another (internal)';

CREATE FUNCTION tapas.key_text(tbl regclass, record_key bigint)
RETURNS text
AS 'MODULE_PATHNAME', 'tapas_sql_key_text'
LANGUAGE C STRICT STABLE;
REVOKE ALL ON FUNCTION tapas.key_text(regclass, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.key_text(regclass, bigint) TO tapas_admin;
COMMENT ON FUNCTION tapas.key_text(regclass, bigint) IS
	'A record key of the ledger and alerts in the key''s own type, as text (the integer, or the registered uuid, text or composite key); admin only';

CREATE FUNCTION tapas.protect(tbl regclass, key_columns name[], sensitive_columns name[], k integer)
RETURNS void
AS 'MODULE_PATHNAME', 'tapas_sql_protect_columns'
LANGUAGE C CALLED ON NULL INPUT VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION tapas.protect(regclass, name[], name[], integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.protect(regclass, name[], name[], integer) TO tapas_admin;
COMMENT ON FUNCTION tapas.protect(regclass, name[], name[], integer) IS
	'Protects a table with a composite key (its columns unique together, NOT NULL): like tapas.protect(tbl, key_column, ...) (admin only)';
CREATE OR REPLACE VIEW tapas.alert_records AS
	SELECT a.alert_id, a.raised_at, a.role, a.pid, a."table", a.statistic, r.record_key,
		   a.kind, a.method, a.action, a.log_ids, a.detail, a.database, a.table_name,
		   tapas.key_text(a."table", r.record_key) AS record
	  FROM tapas.alerts a CROSS JOIN LATERAL pg_catalog.unnest(a.record_keys) AS r(record_key);
COMMENT ON VIEW tapas.alert_records IS
	'The records listed in the alerts: one row per alert and listed record key (the first 32 of each alert), with the alert''s columns, and the record''s key in its own type (record: tapas.key_text); admin only';

CREATE FUNCTION tapas.audit_shared_state(
	OUT tbl regclass, OUT role text, OUT rows integer, OUT rank bigint,
	OUT records bigint, OUT bytes bigint, OUT copies bigint, OUT readers bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_audit_shared_state'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
REVOKE ALL ON FUNCTION tapas.audit_shared_state() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.audit_shared_state() TO tapas_admin;
COMMENT ON FUNCTION tapas.audit_shared_state() IS
	'The row-space states of this database kept in shared memory for new backends to start from (tapas.audit_shared_memory), one row per (table, audit scope, class): the scope''s role (NULL under tapas.audit_scope = all), the logged rows the state holds, its rank and number of records, its size, how often a backend copied it, and how many backends read its basis rows in place now (a copy evicted while read is freed by its last reader); admin only';

CREATE FUNCTION tapas.audit_shared_truths(
	OUT tbl regclass, OUT nonzero bigint, OUT records bigint, OUT bytes bigint,
	OUT copies bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_audit_shared_truths'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
REVOKE ALL ON FUNCTION tapas.audit_shared_truths() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.audit_shared_truths() TO tapas_admin;
COMMENT ON FUNCTION tapas.audit_shared_truths() IS
	'The truth vectors of this database kept in shared memory for new backends (tapas.audit_shared_memory), one row per (table, canonical basis tree): its records with a nonzero value, the table''s rows when it was read, its size and how often a backend took it instead of scanning the table; a copy is taken only while the table''s write stamp is the one it was read at; admin only';
