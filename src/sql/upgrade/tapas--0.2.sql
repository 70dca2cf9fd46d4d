-- tapas install script, assembled by the Makefile from src/sql/NN_*.sql.
\echo Use "CREATE EXTENSION tapas" to load this file. \quit

-- The admin role: members are exempt from auditing and may read the ledger
-- and alerts.  Roles are cluster-wide, so create it only if missing.
DO $$
BEGIN
	IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'tapas_admin') THEN
		CREATE ROLE tapas_admin NOLOGIN;
	END IF;
END
$$;

COMMENT ON SCHEMA tapas IS 'tapas: aggregate query auditing against record isolation, and privacy attack toolbox';
GRANT USAGE ON SCHEMA tapas TO PUBLIC;

-- ---------------------------------------------------------------------------
-- Capture: protection catalog, capture aggregate, inspection (src/capture/)
-- ---------------------------------------------------------------------------

CREATE TABLE tapas.protection (
	relid				regclass PRIMARY KEY,
	key_column			name NOT NULL,
	key_attnum			int2 NOT NULL,
	sensitive_columns	name[] NOT NULL,
	sensitive_attnums	int2[] NOT NULL,
	k					integer NOT NULL CHECK (k >= 1)
);
SELECT pg_catalog.pg_extension_config_dump('tapas.protection', '');
REVOKE ALL ON tapas.protection FROM PUBLIC;
COMMENT ON TABLE tapas.protection IS
	'Protected tables: key column, sensitive columns and group-size threshold k (change through tapas.protect/unprotect)';

CREATE FUNCTION tapas.protect(tbl regclass, key_column name, sensitive_columns name[], k integer)
RETURNS void
AS 'MODULE_PATHNAME', 'tapas_sql_protect'
LANGUAGE C CALLED ON NULL INPUT VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION tapas.protect(regclass, name, name[], integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.protect(regclass, name, name[], integer) TO tapas_admin;
COMMENT ON FUNCTION tapas.protect(regclass, name, name[], integer) IS
	'Protects a table: every aggregate answer on it by an audited role is captured, and cells covering fewer than k rows are refused (admin only)';

CREATE FUNCTION tapas.unprotect(tbl regclass)
RETURNS void
AS 'MODULE_PATHNAME', 'tapas_sql_unprotect'
LANGUAGE C CALLED ON NULL INPUT VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION tapas.unprotect(regclass) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.unprotect(regclass) TO tapas_admin;
COMMENT ON FUNCTION tapas.unprotect(regclass) IS
	'Removes the protection of a table (admin only); its ledger is kept';

CREATE FUNCTION tapas._is_admin()
RETURNS boolean
AS 'MODULE_PATHNAME', 'tapas_sql_is_admin'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas._is_admin() IS
	'True when the session user is a superuser or a member of tapas_admin (not audited)';

-- Analysts may know which tables are protected and their k (a refusal names
-- k anyway), but not which columns are the key and the sensitive ones.
CREATE VIEW tapas.protected_tables AS
SELECT p.relid AS table_name,
	   CASE WHEN tapas._is_admin() THEN p.key_column END AS key_column,
	   CASE WHEN tapas._is_admin() THEN p.sensitive_columns END AS sensitive_columns,
	   p.k
  FROM tapas.protection p
 WHERE EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.oid = p.relid);
GRANT SELECT ON tapas.protected_tables TO PUBLIC;
COMMENT ON VIEW tapas.protected_tables IS
	'Protected tables with their k; key and sensitive columns are shown to admins only';

-- DROP TABLE of a protected table removes its catalog row.
CREATE FUNCTION tapas._drop_protection()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	IF pg_catalog.to_regclass('tapas.protection') IS NOT NULL THEN
		DELETE FROM tapas.protection p
		 USING pg_catalog.pg_event_trigger_dropped_objects() d
		 WHERE d.classid = 'pg_catalog.pg_class'::regclass
		   AND d.objsubid = 0 AND p.relid::oid = d.objid;
	END IF;
END
$$;
REVOKE ALL ON FUNCTION tapas._drop_protection() FROM PUBLIC;
COMMENT ON FUNCTION tapas._drop_protection() IS
	'sql_drop event trigger function: forgets the protection of dropped tables';
CREATE EVENT TRIGGER tapas_drop_protection ON sql_drop
	EXECUTE FUNCTION tapas._drop_protection();
COMMENT ON EVENT TRIGGER tapas_drop_protection IS
	'Forgets the protection of a table when it is dropped';

-- The capture aggregate the planner hook adds (resjunk) next to every audited
-- aggregate: tapas._cover(key, value, capture) returns the covered keys and
-- the cell's answer (sum of non-null values), packed in a bytea; capture is a
-- constant that tells the planner hook which table and statistic it logs.
-- One for int8 keys and one for int2/int4 keys (no cast per row).  No combine
-- function, so the planner never splits it across workers.
CREATE FUNCTION tapas._cover_trans(internal, int8, float8, int4)
RETURNS internal
AS 'MODULE_PATHNAME', 'tapas_sql_cover_trans'
LANGUAGE C CALLED ON NULL INPUT PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas._cover_trans(internal, int8, float8, int4) IS
	'Transition function of tapas._cover for int8 keys (internal)';

CREATE FUNCTION tapas._cover_trans(internal, int4, float8, int4)
RETURNS internal
AS 'MODULE_PATHNAME', 'tapas_sql_cover_trans4'
LANGUAGE C CALLED ON NULL INPUT PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas._cover_trans(internal, int4, float8, int4) IS
	'Transition function of tapas._cover for int2 and int4 keys (internal)';

CREATE FUNCTION tapas._cover_final(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'tapas_sql_cover_final'
LANGUAGE C CALLED ON NULL INPUT PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas._cover_final(internal) IS
	'Final function of tapas._cover (internal)';

CREATE AGGREGATE tapas._cover(int8, float8, int4) (
	SFUNC = tapas._cover_trans,
	STYPE = internal,
	SSPACE = 4096,
	FINALFUNC = tapas._cover_final,
	FINALFUNC_MODIFY = READ_WRITE,
	PARALLEL = RESTRICTED
);
COMMENT ON AGGREGATE tapas._cover(int8, float8, int4) IS
	'Capture aggregate added by tapas to audited queries on tables with an int8 key (internal; not for direct use)';

CREATE AGGREGATE tapas._cover(int4, float8, int4) (
	SFUNC = tapas._cover_trans,
	STYPE = internal,
	SSPACE = 4096,
	FINALFUNC = tapas._cover_final,
	FINALFUNC_MODIFY = READ_WRITE,
	PARALLEL = RESTRICTED
);
COMMENT ON AGGREGATE tapas._cover(int4, float8, int4) IS
	'Capture aggregate added by tapas to audited queries on tables with an int2 or int4 key (internal; not for direct use)';
-- Volatile, so that the planner never drops an unreferenced capture column
-- of a sub-query (remove_unused_subquery_outputs keeps volatile outputs).
UPDATE pg_catalog.pg_proc SET provolatile = 'v'
 WHERE oid IN ('tapas._cover(int8, float8, int4)'::pg_catalog.regprocedure,
               'tapas._cover(int4, float8, int4)'::pg_catalog.regprocedure);

-- Admin inspection of what the gate captured in this session.
CREATE FUNCTION tapas.last_capture(OUT relid regclass, OUT statistic text,
								   OUT answer float8, OUT covered bigint, OUT keys bigint[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_last_capture'
LANGUAGE C STRICT VOLATILE;
REVOKE ALL ON FUNCTION tapas.last_capture() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.last_capture() TO tapas_admin;
COMMENT ON FUNCTION tapas.last_capture() IS
	'Cells captured in this backend by the last statement that captured any (admin only, for inspection and tests)';

-- ---------------------------------------------------------------------------
-- The ledger (src/ledger/, src/pg/ledger.c): every answered cell of a
-- protected table, with its covered keys, per role and session.  Admin only:
-- REVOKE FROM PUBLIC, GRANT to tapas_admin, and each function also checks
-- the session user itself.
-- ---------------------------------------------------------------------------

CREATE FUNCTION tapas.query_log_raw(
	OUT log_id bigint, OUT logged_at timestamptz, OUT roleid oid, OUT pid integer,
	OUT session_start timestamptz, OUT tbl regclass, OUT statistic text,
	OUT answer double precision, OUT covered bigint, OUT query text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_query_log'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas.query_log_raw() IS
	'Every logged cell of the tapas ledger (admin only); use the view tapas.query_log';

CREATE VIEW tapas.query_log AS
	SELECT log_id, logged_at, pg_catalog.pg_get_userbyid(roleid) AS role, pid,
		   session_start, tbl, statistic, answer, covered, query
	  FROM tapas.query_log_raw();
COMMENT ON VIEW tapas.query_log IS
	'Logged answers: one row per answered cell (log_id, time, session user, pid and backend start = session, table, statistic, answer, number of covered rows, query text); admin only';

CREATE FUNCTION tapas.query_matrix(tbl regclass, statistic text DEFAULT NULL,
	role regrole DEFAULT NULL, after_log_id bigint DEFAULT 0,
	OUT log_id bigint, OUT statistic text, OUT answer double precision, OUT keys bigint[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_query_matrix'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas.query_matrix(regclass, text, regrole, bigint) IS
	'The logged query matrix of a table: per cell its log_id, statistic, answer b and covered keys (a row of A) as a sorted array; all statistics when statistic is NULL, all roles when role is NULL, only cells after after_log_id; admin only';

CREATE FUNCTION tapas.reset(tbl regclass)
RETURNS bigint
AS 'MODULE_PATHNAME', 'tapas_sql_reset'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION tapas.reset(regclass) IS
	'Removes every logged cell and key index of a table from the ledger, in memory and on disk; returns the number of cells removed; not transactional; admin only';

CREATE FUNCTION tapas.ledger_record(tbl regclass, statistic text, answer double precision,
	keys bigint[], query text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'tapas_sql_ledger_record'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION tapas.ledger_record(regclass, text, double precision, bigint[], text) IS
	'Records an answer computed elsewhere (e.g. importing an audit) as one cell over the given keys, tagged with the calling admin; returns its log_id; not transactional; admin only';

CREATE FUNCTION tapas.ledger_usage(
	OUT cells bigint, OUT max_cells bigint, OUT records bigint, OUT max_records bigint,
	OUT memory_used bigint, OUT memory_limit bigint, OUT tables integer,
	OUT statistics bigint, OUT file_bytes bigint, OUT shared_memory bigint,
	OUT file_synced_bytes bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'tapas_sql_ledger_usage'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas.ledger_usage() IS
	'Fill of the ledger against its limits (memory in bytes: arena for statistics, query texts and covers), size of its file, its total shared memory, and how much of the file is known to be on disk (fdatasync''d); admin only';

REVOKE ALL ON FUNCTION tapas.query_log_raw() FROM PUBLIC;
REVOKE ALL ON tapas.query_log FROM PUBLIC;
REVOKE ALL ON FUNCTION tapas.query_matrix(regclass, text, regrole, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION tapas.reset(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION tapas.ledger_record(regclass, text, double precision, bigint[], text) FROM PUBLIC;
REVOKE ALL ON FUNCTION tapas.ledger_usage() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.query_log_raw() TO tapas_admin;
GRANT SELECT ON tapas.query_log TO tapas_admin;
GRANT EXECUTE ON FUNCTION tapas.query_matrix(regclass, text, regrole, bigint) TO tapas_admin;
GRANT EXECUTE ON FUNCTION tapas.reset(regclass) TO tapas_admin;
GRANT EXECUTE ON FUNCTION tapas.ledger_record(regclass, text, double precision, bigint[], text) TO tapas_admin;
GRANT EXECUTE ON FUNCTION tapas.ledger_usage() TO tapas_admin;
-- Query designs for reconstruction attacks and their decoders (src/pg/design.c).

CREATE FUNCTION tapas.design_size(method text, n bigint, s integer DEFAULT 1,
                                  k bigint DEFAULT 0)
RETURNS integer
AS 'MODULE_PATHNAME', 'tapas_sql_design_size'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION tapas.design_size(text, bigint, integer, bigint) IS
'Number of queries of a reconstruction design (method hadamard, bch or bernoulli) for n records and sparsity s, every query covering at least k records';

CREATE FUNCTION tapas.design_member(method text, n bigint, s integer,
                                    query_no integer, record bigint,
                                    k bigint DEFAULT 0, seed bigint DEFAULT 0)
RETURNS boolean
AS 'MODULE_PATHNAME', 'tapas_sql_design_member'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

COMMENT ON FUNCTION tapas.design_member(text, bigint, integer, integer, bigint, bigint, bigint) IS
'Whether query query_no (1..design_size) of a reconstruction design covers record (1..n); false for records outside 1..n; for WHERE clauses';

CREATE FUNCTION tapas.design_info(method text, n bigint, s integer DEFAULT 1,
                                  k bigint DEFAULT 0, seed bigint DEFAULT 0,
                                  OUT queries integer, OUT min_coverage bigint,
                                  OUT mean_coverage double precision)
RETURNS record
AS 'MODULE_PATHNAME', 'tapas_sql_design_info'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION tapas.design_info(text, bigint, integer, bigint, bigint) IS
'Number of queries and the minimum and mean number of records per query of a reconstruction design';

CREATE FUNCTION tapas.reconstruct(method text, n bigint, answers numeric[],
                                  s integer DEFAULT 1, k bigint DEFAULT 0,
                                  seed bigint DEFAULT 0,
                                  noise double precision DEFAULT 0)
RETURNS TABLE(record bigint, value double precision)
AS 'MODULE_PATHNAME', 'tapas_sql_reconstruct'
LANGUAGE C IMMUTABLE PARALLEL SAFE ROWS 10;

COMMENT ON FUNCTION tapas.reconstruct(text, bigint, numeric[], integer, bigint, bigint, double precision) IS
'Decodes the answers of a reconstruction design (one per query, in query order): every record for hadamard, the nonzero records for bch and bernoulli; raises an error when the answers cannot be decoded';
-- Generic reconstruction from a caller-given 0/1 query matrix (src/pg/recon_matrix.c).

CREATE FUNCTION tapas.reconstruct_matrix(rows bigint[][], answers numeric[], method text,
		s integer DEFAULT 1, noise float8 DEFAULT 0, "binary" boolean DEFAULT true)
	RETURNS TABLE(record bigint, value float8)
	AS 'MODULE_PATHNAME', 'tapas_sql_reconstruct_matrix'
	LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION tapas.reconstruct_matrix(bigint[][], numeric[], text, integer, float8, boolean) IS
'Recovers x from answers = rows * x for an m x n 0/1 matrix rows (one inner array per query); records are 1..n. Methods: omp, nnls, lp (s = sparsity bound, noise = Laplace scale of the answer noise, binary = round to 0/1; returns the non-zero values, error if inconsistent with the answers), sparse (every 0/1 x of weight <= s <= 3; error unless exactly one), exact (the records the answers determine, with their values).';

CREATE FUNCTION tapas.reconstruct_matrix(query text, answers numeric[], method text,
		s integer DEFAULT 1, noise float8 DEFAULT 0, "binary" boolean DEFAULT true)
	RETURNS TABLE(record bigint, value float8)
	AS 'MODULE_PATHNAME', 'tapas_sql_reconstruct_matrix_query'
	LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION tapas.reconstruct_matrix(text, numeric[], text, integer, float8, boolean) IS
'Like the array form, with the matrix given by a query returning (query_no, record) pairs: query_no i (1..m) covers record, answers[i] is its answer; records are arbitrary bigint ids.';
-- The row-space test by hand: which records a set of queries determines
-- (src/pg/rowspace.c, kernel src/recon/rowspace.c).  Admin only.

CREATE FUNCTION tapas.rowspace_determined(rows bigint[][])
	RETURNS SETOF integer
	AS 'MODULE_PATHNAME', 'tapas_sql_rowspace_determined'
	LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION tapas.rowspace_determined(bigint[][]) IS
'Records (columns 1..n of the m x n 0/1 matrix rows, one inner array per SUM/COUNT query) whose value the answers to those queries determine by linear algebra, whatever the data (Chin''s criterion: e_j in the row space). Decided modulo a fresh random prime near 2^62: a determined record is missed with probability below about 1e-10. Admin only.';

CREATE FUNCTION tapas.rowspace_trace(rows bigint[][])
	RETURNS TABLE(query integer, record integer)
	AS 'MODULE_PATHNAME', 'tapas_sql_rowspace_trace'
	LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION tapas.rowspace_trace(bigint[][]) IS
'Like tapas.rowspace_determined, with the query (1..m, in array order) at which each record first becomes determined: the query an auditor in deny mode would refuse. Admin only.';

REVOKE ALL ON FUNCTION tapas.rowspace_determined(bigint[][]) FROM PUBLIC;
REVOKE ALL ON FUNCTION tapas.rowspace_trace(bigint[][]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.rowspace_determined(bigint[][]) TO tapas_admin;
GRANT EXECUTE ON FUNCTION tapas.rowspace_trace(bigint[][]) TO tapas_admin;

-- ---------------------------------------------------------------------------
-- The auditor (src/audit/, src/pg/audit.c): alerts raised when an answer
-- isolates a record (determined by the row space, or reconstructed by a
-- decoder), and the on-demand audit.  Admin only: REVOKE FROM PUBLIC, GRANT
-- to tapas_admin, and each function also checks the session user itself.
-- ---------------------------------------------------------------------------

CREATE FUNCTION tapas.alerts_raw(
	OUT alert_id bigint, OUT raised_at timestamptz, OUT roleid oid, OUT pid integer,
	OUT tbl regclass, OUT statistic text, OUT record_key bigint, OUT kind text,
	OUT method text, OUT action text, OUT log_ids bigint[], OUT detail text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_alerts'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas.alerts_raw() IS
	'Alerts kept in shared memory, oldest first (admin only); use the view tapas.alerts';

CREATE VIEW tapas.alerts AS
	SELECT alert_id, raised_at, pg_catalog.pg_get_userbyid(roleid) AS role, pid,
		   tbl AS "table", statistic, record_key, kind, method, action, log_ids, detail
	  FROM tapas.alerts_raw();
COMMENT ON VIEW tapas.alerts IS
	'Alerts of the auditor: one row per isolated record and query (alert id, time, session user, pid, table, statistic, key of the record, kind determined or reconstructed, method, action logged/warned/denied, log_ids of the queries involved, detail); survives ROLLBACK and restart; admin only';

CREATE FUNCTION tapas.audit(tbl regclass,
	OUT role text, OUT statistic text, OUT record_key bigint, OUT kind text,
	OUT method text, OUT detail text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tapas_sql_audit'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION tapas.audit(regclass) IS
	'Re-runs the full audit of a table on the whole ledger (every statistic and role, no time budget) and returns every isolated record: determined by the logged rows or reconstructed from the logged answers; raises no alert; admin only';

REVOKE ALL ON FUNCTION tapas.alerts_raw() FROM PUBLIC;
REVOKE ALL ON tapas.alerts FROM PUBLIC;
REVOKE ALL ON FUNCTION tapas.audit(regclass) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tapas.alerts_raw() TO tapas_admin;
GRANT SELECT ON tapas.alerts TO tapas_admin;
GRANT EXECUTE ON FUNCTION tapas.audit(regclass) TO tapas_admin;

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
'No-box membership inference scores (larger = more likely a member) of every row of targets against the synthetic table. Attacks: closest_distance_mia (distance), local_neighbourhood_mia (distance, radius), probability_estimation_mia (estimator kde|independent, bandwidth, bins, alpha). Targets are keyed by their primary key or params key.';

CREATE FUNCTION tapas.aia_scores(attack text, synthetic regclass, targets regclass,
	sensitive name, params jsonb DEFAULT '{}')
RETURNS TABLE(target_key text, value text, score float8)
AS 'MODULE_PATHNAME', 'tapas_sql_aia_scores'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION tapas.aia_scores(text, regclass, regclass, name, jsonb) IS
'No-box attribute inference scores: for every target row and every value of the categorical sensitive column, how strongly the synthetic data points to that value (the target''s own sensitive value is never read). Attacks: closest_distance_aia (distance), local_neighbourhood_aia (distance, radius), synthetic_predictor_aia (estimator logistic_regression, C).';

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

CREATE FUNCTION tapas.effective_epsilon(scores float8[], labels boolean[],
	confidence float8 DEFAULT 0.95, validation_fraction float8 DEFAULT 0.1,
	OUT epsilon_lower float8, OUT threshold float8, OUT inverse boolean)
RETURNS record
AS 'MODULE_PATHNAME', 'tapas_sql_effective_epsilon'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION tapas.effective_epsilon(float8[], boolean[], float8, float8) IS
'Clopper-Pearson lower bound on the epsilon of the generator (Jagielski et al. 2020, TAPAS EffectiveEpsilonReport): the first validation_fraction of the samples choose the threshold, the rest bound epsilon at the given confidence.';
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
	OUT seconds float8)
RETURNS record
AS 'MODULE_PATHNAME', 'tapas_sql_evaluate'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION tapas.evaluate(text, text, regclass, text, jsonb) IS
'Evaluates an attack on the record of auxiliary whose key is target_key, under threat_model '
'targeted_mia or targeted_aia: training and test datasets are sampled from the two halves of '
'auxiliary (without the target; the target is added to positive MIA datasets, and to every AIA '
'dataset with its sensitive value drawn uniformly between params values), passed through the '
'generator (params generator: raw, marginals or a function (regclass, integer, bigint) returning '
'a set of rows), attacked (groundhog, shadow_modelling, closest_distance_mia, '
'local_neighbourhood_mia, probability_estimation, closest_distance_aia, local_neighbourhood_aia, '
'synthetic_predictor) and scored; returns the metrics on the test datasets. Every random step is '
'seeded by params seed.';

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
