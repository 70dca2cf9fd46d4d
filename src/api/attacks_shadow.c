/*-------------------------------------------------------------------------
 *
 * attacks_shadow.c
 *	  tapas.evaluate and tapas.evaluate_scores: a threat model, an attack
 *	  and an auxiliary table in, attack success metrics out.
 *
 * One call does the whole evaluation in C: the auxiliary table is read
 * once through SPI into a coded matrix (api/dataset_sql.c: kinds, dictionaries,
 * NULL policy), the target row (found by its key) is taken out, the threat
 * model samples its training and test datasets as row numbers
 * (attacks/threat_model.h), each dataset goes through the generator
 * (built-ins in C; a user SQL function through attacks_shadow_gen.c), and
 * the attack either extracts set features for a classifier (shadow
 * modelling, Groundhog) or scores the dataset (the score-based attacks,
 * whose threshold is trained on the training datasets' scores).  Metrics
 * come from attacks/metrics.h on the test datasets.
 *
 * Progress and cancellation: CHECK_FOR_INTERRUPTS between datasets, a
 * NOTICE every 5 seconds on long runs, and the classifier's kernel polls
 * the pending cancel once per tree.  Kernel objects are freed in PG_FINALLY,
 * so an error or a cancel in the middle (a user generator failing, say)
 * leaks nothing.
 *
 * IDENTIFICATION
 *	  src/api/attacks_shadow.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "attacks/metrics.h"
#include "attacks/score_eval.h"
#include "attacks/shadow_eval.h"
#include "util/rng.h"
#include "api/attacks_pg.h"
#include "api/attacks_shadow.h"
#include "api/attacks_shadow_request.h"
#include "policy/progress_pg.h"
#include "policy/policy.h"

PG_FUNCTION_INFO_V1(tapas_sql_evaluate);
PG_FUNCTION_INFO_V1(tapas_sql_evaluate_scores);


/* what one evaluation returns */
typedef struct EvalResult
{
	tapas_metrics_t m;
	tapas_metrics_ci_t ci;		/* bootstrap intervals (n_boot 0: none) */
	size_t		n_train;
	size_t		n_test;
	size_t		n_features;
	double		seconds;
	double	   *scores;			/* n_test, palloc'd */
	unsigned char *labels;		/* n_test, palloc'd */
	bool		multivalue;		/* AIA over more than two values: scores are
								 * 1/0 correct guesses, labels all 1 */
	double		baseline;		/* multivalue: the prior's most likely value */
} EvalResult;

/* the auxiliary table, read once */
typedef struct EvalData
{
	TapasAttackSchema *schema;
	double	   *pool;			/* (n - 1) x c, the target taken out */
	double	   *target;			/* c */
	size_t		n_pool;
	size_t		c;
} EvalData;

/* raises the error for a kernel status (reason may be NULL) */
static void
raise_status(tapas_status st, const char *reason)
{
	tapas_raise_status(st, st == TAPAS_EINVAL ? "invalid evaluation" :
					   "could not evaluate the attack", reason);
}

/* ----------------------------------------------------------------
 *		Reading the auxiliary table
 * ----------------------------------------------------------------
 */

/* the code of label in column j, or an error naming what */
static double
label_code(TapasAttackSchema *schema, int j, const char *label, const char *what)
{
	TapasAttackColumn *col = &schema->cols[j];
	int			k;

	for (k = 0; k < col->ncat; k++)
		if (col->labels[k] != NULL && strcmp(col->labels[k], label) == 0)
			return (double) k;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s \"%s\" does not occur in column \"%s\"", what, label, col->name)));
	return 0;
}

static void
read_auxiliary(EvalRequest *req, EvalData *d, MemoryContext cxt)
{
	char	  **keys;
	double	   *values;
	size_t		n,
				i,
				found = 0,
				at = 0;
	char	   *relname = get_rel_name(req->auxiliary);

	d->schema = tapas_attack_schema_build(req->auxiliary, req->auxiliary, req->params,
										  NULL, true, cxt);
	values = tapas_attack_read_table(d->schema, req->auxiliary, "auxiliary", &n,
									 &keys, cxt);
	d->c = d->schema->ncols;
	for (i = 0; i < n; i++)
		if (keys[i] != NULL && strcmp(keys[i], req->target_key) == 0)
		{
			found++;
			at = i;
		}
	if (found == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target key \"%s\" does not occur in column \"%s\" of \"%s\"",
						req->target_key, d->schema->key, relname)));
	if (found > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target key \"%s\" occurs %zu times in column \"%s\" of \"%s\"",
						req->target_key, found, d->schema->key, relname),
				 errhint("The key column must identify one record; pass params \"key\".")));
	d->n_pool = n - 1;
	d->target = MemoryContextAlloc(cxt, d->c * sizeof(double));
	memcpy(d->target, values + at * d->c, d->c * sizeof(double));
	/* the pool: every other record, in table order */
	d->pool = values;
	memmove(values + at * d->c, values + (at + 1) * d->c,
			(n - at - 1) * d->c * sizeof(double));
}

/*
 * AIA: the sensitive column, the codes of its candidate values (params
 * values, or every value of the column) and their weights (params
 * distribution, or uniform).
 */
static void
resolve_sensitive(EvalRequest *req, EvalData *d)
{
	int			s = tapas_attack_schema_column(d->schema, req->sensitive);
	TapasAttackColumn *col;
	int			k,
				i;

	if (s < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sensitive column \"%s\" is not a column of the dataset",
						req->sensitive)));
	col = &d->schema->cols[s];
	if (col->kind != TAPAS_COLUMN_CATEGORICAL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sensitive column \"%s\" is not categorical", req->sensitive),
				 errhint("Declare it categorical with params \"schema\".")));
	req->sp.sensitive = s;
	req->score.sensitive = s;
	if (req->n_values == 0 && col->ncat > TAPAS_THREAT_MODEL_MAX_VALUES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sensitive column \"%s\" has %d values", req->sensitive, col->ncat),
				 errhint("Pass 2 to %d candidate values as params \"values\".",
						 TAPAS_THREAT_MODEL_MAX_VALUES)));
	k = req->n_values > 0 ? req->n_values : col->ncat;
	if (k < 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sensitive column \"%s\" has only one value", req->sensitive)));
	for (i = 0; i < k; i++)
		req->sp.values[i] = req->n_values > 0 ?
			label_code(d->schema, s, req->values[i], "value") : (double) i;
	for (i = 0; i < k; i++)
	{
		int			j;

		for (j = 0; j < i; j++)
			if (req->sp.values[i] == req->sp.values[j])
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("the candidate values must differ")));
	}
	if (req->attack != ATTACK_SCORE && k != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("attack \"%s\" infers one of two values, not %d", req->attack_name, k),
				 errhint("Pass two candidate values as params \"values\", or use a score-based attack (closest_distance_aia, local_neighbourhood_aia, synthetic_predictor_aia).")));
	if (req->n_distribution > 0 && req->n_distribution != k)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"distribution\" has %d weights for %d values",
						req->n_distribution, k)));
	req->sp.tm.n_values = k;
	req->sp.tm.value_weights = req->n_distribution > 0 ? req->distribution : NULL;
	req->score.v0 = (size_t) req->sp.values[0];
	req->score.v1 = (size_t) req->sp.values[1];
}

/* the prior probability of the most likely value: the multi-value baseline */
static double
aia_prior_baseline(const EvalRequest *req)
{
	double		total = 0,
				best = 0;
	int			v;

	if (req->n_distribution == 0)
		return 1.0 / req->sp.tm.n_values;
	for (v = 0; v < req->n_distribution; v++)
	{
		total += req->distribution[v];
		best = Max(best, req->distribution[v]);
	}
	return total > 0 ? best / total : 0;
}

/* the distance's column subset, by name (none = all columns) */
static void
resolve_distance_columns(EvalRequest *req, EvalData *d)
{
	if (req->distance_columns != NIL)
		tapas_attack_distance_columns(d->schema, req->distance_columns,
									  &req->score.distance);
	tapas_attack_distance_weights(d->schema, req->params, &req->score.distance);
	tapas_attack_distance_resolve_terms(d->schema, req->params, &req->score.distance);
}

/*
 * The sizes must fit the two parts of the auxiliary table, or the table
 * for exact knowledge (whose default dataset is the whole table).
 */
static void
check_sizes(EvalRequest *req, EvalData *d)
{
	size_t		n_aux = (size_t) (req->sp.tm.auxiliary_split * (double) d->n_pool);
	size_t		n_rec;

	if (req->default_records)
		req->sp.tm.num_training_records = d->n_pool;
	if (req->default_synthetic)
		req->sp.num_synthetic_records = req->sp.tm.num_training_records;
	n_rec = req->sp.tm.num_training_records;
	if (req->sp.tm.exact_knowledge)
	{
		if (n_rec > d->n_pool)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("num_training_records %zu is larger than the auxiliary table", n_rec),
					 errdetail("Without the target, \"%s\" has %zu records.",
							   get_rel_name(req->auxiliary), d->n_pool)));
		return;
	}

	if (n_rec > n_aux || n_rec > d->n_pool - n_aux)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("num_training_records %zu is larger than a part of the auxiliary table",
						n_rec),
				 errdetail("Without the target, \"%s\" has %zu records: %zu for training datasets and %zu for test datasets (auxiliary_split %g).",
						   get_rel_name(req->auxiliary), d->n_pool, n_aux,
						   d->n_pool - n_aux, req->sp.tm.auxiliary_split)));
}

/* ----------------------------------------------------------------
 *		The evaluation loop
 * ----------------------------------------------------------------
 */

/* one dataset through the generator, into ev->syn; returns its size */
static size_t
generate_one(EvalRequest *req, tapas_shadow_eval_t *ev, ShadowUserGen *gen, size_t k)
{
	size_t		n_syn,
				n_real;
	const double *real;
	tapas_status st;

	if (req->user_gen == NULL)
	{
		st = tapas_shadow_eval_generate(ev, k, &n_syn);
		if (st != TAPAS_OK)
			raise_status(st, "generator failed");
		return n_syn;
	}
	real = tapas_shadow_eval_real(ev, k, &n_real);
	return tapas_shadow_usergen_run(gen, real, n_real, req->sp.num_synthetic_records,
									(int64) (req->sp.gen_seed + k),
									ev->syn, req->sp.num_synthetic_records);
}


/* AIA over more than two candidate values (score-based attacks only) */
static bool
is_multivalue(const EvalRequest *req)
{
	return req->goal == TAPAS_THREAT_MODEL_AIA && req->sp.tm.n_values > 2;
}

/*
 * More than two values: the guess is the candidate with the largest score
 * (ties broken at random, so an attack that knows nothing guesses
 * uniformly); nothing is trained, so only the test datasets are generated.
 * all_scores[k] gets 1 for a right guess, 0 otherwise.
 */
static void
run_multivalue(EvalRequest *req, EvalData *d, tapas_shadow_eval_t *ev,
			   ShadowUserGen *gen, double *all_scores, TapasProgressNotice *pn)
{
	size_t		k,
				v,
				nv = (size_t) req->sp.tm.n_values,
				codes[TAPAS_THREAT_MODEL_MAX_VALUES];
	double		sc[TAPAS_THREAT_MODEL_MAX_VALUES];
	tapas_rng_t rng;

	for (v = 0; v < nv; v++)
		codes[v] = (size_t) req->sp.values[v];
	tapas_rng_seed(&rng, req->sp.tm.seed ^ UINT64CONST(0xbb67ae8584caa73b));
	pn->step = "generating and attacking the test datasets";
	for (k = req->sp.tm.n_train; k < ev->tm->n_datasets; k++)
	{
		size_t		n_syn,
					best = 0,
					ties = 1;
		tapas_status st;

		CHECK_FOR_INTERRUPTS();
		tapas_progress_notice(pn, (double) k / ev->tm->n_datasets);
		n_syn = generate_one(req, ev, gen, k);
		st = tapas_score_attack_run_values(&req->score, d->schema->specs, d->c, ev->syn,
										   n_syn, ev->target, codes, nv, sc);
		if (st != TAPAS_OK)
			raise_status(st, "the attack rejected its parameters for this table");
		/* argmax, a uniformly random one among ties (reservoir of size 1) */
		for (v = 1; v < nv; v++)
		{
			if (sc[v] > sc[best])
			{
				best = v;
				ties = 1;
			}
			else if (sc[v] == sc[best] && tapas_rng_below(&rng, ++ties) == 0)
				best = v;
		}
		all_scores[k] = (int) best == ev->tm->ds[k].label ? 1.0 : 0.0;
	}
}

/*
 * Runs every dataset and the attack; fills scores of the test datasets
 * and the decision threshold.  Kernel objects live in *evp so the caller
 * frees them whatever happens.
 */
static void
run_datasets(EvalRequest *req, EvalData *d, tapas_shadow_eval_t *ev,
			 ShadowUserGen *gen, double *all_scores, double *tau,
			 TapasProgressNotice *pn)
{
	tapas_progress_t progress = {tapas_progress_notice_cb, pn};
	size_t		total = ev->tm->n_datasets,
				k;
	tapas_status st;

	if (is_multivalue(req))
	{
		run_multivalue(req, d, ev, gen, all_scores, pn);
		*tau = 0.5;
		return;
	}
	pn->step = "generating and featurising the datasets";
	for (k = 0; k < total; k++)
	{
		size_t		n_syn;

		CHECK_FOR_INTERRUPTS();
		tapas_progress_notice(pn, (double) k / total);
		n_syn = generate_one(req, ev, gen, k);
		if (req->attack == ATTACK_SCORE)
		{
			st = tapas_score_attack_run(&req->score, d->schema->specs, d->c, ev->syn,
										n_syn, ev->target, &all_scores[k]);
			all_scores[k] += 0.0;	/* -0 (a distance of 0, negated) -> 0 */
		}
		else
			st = tapas_shadow_eval_featurise(ev, k, n_syn);
		if (st != TAPAS_OK)
			raise_status(st, "the attack rejected its parameters for this table");
	}
	CHECK_FOR_INTERRUPTS();
	/* the fit reports through the kernel's progress polls (between trees) */
	pn->step = "training the classifier";
	if (req->attack == ATTACK_SCORE)
	{
		size_t		n_train = req->sp.tm.n_train;
		unsigned char *y = palloc(n_train);

		for (k = 0; k < n_train; k++)
			y[k] = ev->y[k] == 1;
		st = tapas_threshold_select(all_scores, y, n_train, req->criterion,
									req->criterion_value, tau);
		if (st != TAPAS_OK)
			raise_status(st, "the threshold criterion value is out of range");
		return;
	}
	st = tapas_shadow_eval_fit(ev, &progress);
	if (st != TAPAS_OK)
		raise_status(st, "the classifier rejected its parameters");
	memcpy(all_scores + req->sp.tm.n_train, ev->scores, req->sp.tm.n_test * sizeof(double));
	/* the classifier predicts 1 iff p > 1/2; metrics decide s >= tau */
	*tau = nextafter(0.5, 1.0);
}

/* progress callback of the bootstrap: stop on a pending cancel */
static int
cancel_pending(void *arg, double fraction)
{
	return tapas_cancel_requested() ? 1 : 0;
}

/*
 * Percentile intervals of the test metrics (metrics.h), seeded apart from
 * every other draw of the evaluation.
 */
static void
bootstrap_metrics(EvalRequest *req, EvalResult *res, double tau)
{
	tapas_progress_t progress = {cancel_pending, NULL};
	tapas_status st;

	memset(&res->ci, 0, sizeof(res->ci));
	if (req->n_boot == 0)
		return;
	st = tapas_metrics_bootstrap(res->scores, res->labels, res->n_test, tau,
								 req->n_boot, req->confidence,
								 req->sp.tm.seed ^ UINT64CONST(0x6a09e667f3bcc909),
								 &progress, &res->ci);
	if (st == TAPAS_ECANCELED)
		CHECK_FOR_INTERRUPTS();
	if (st != TAPAS_OK)
		raise_status(st, "bootstrap");
}

static void
evaluate_internal(FunctionCallInfo fcinfo, EvalResult *res)
{
	EvalRequest req;
	EvalData	d;
	MemoryContext cxt = CurrentMemoryContext;
	tapas_coded_schema_t *cs = NULL;
	tapas_shadow_eval_t *ev = NULL;
	ShadowUserGen gen;
	instr_time	start,
				end;
	TapasProgressNotice pn;
	double	   *all_scores;
	double		tau = 0;
	const char *reason = NULL;
	size_t		i,
				n_train;
	tapas_status st;

	INSTR_TIME_SET_CURRENT(start);
	tapas_progress_notice_init(&pn, "tapas.evaluate", "reading the auxiliary table");
	tapas_shadow_request_parse(fcinfo, &req);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	read_auxiliary(&req, &d, cxt);
	if (req.goal == TAPAS_THREAT_MODEL_AIA)
		resolve_sensitive(&req, &d);
	resolve_distance_columns(&req, &d);
	check_sizes(&req, &d);
	if (req.user_gen != NULL)
		tapas_shadow_usergen_init(&gen, req.user_gen, d.schema, req.auxiliary);
	n_train = req.sp.tm.n_train;
	all_scores = MemoryContextAllocZero(cxt, (n_train + req.sp.tm.n_test) * sizeof(double));

	PG_TRY();
	{
		cs = tapas_coded_schema_from_specs(d.c, d.schema->specs);
		if (cs == NULL)
			raise_status(TAPAS_ENOMEM, NULL);
		st = tapas_shadow_eval_create(&ev, cs, d.pool, d.n_pool, d.target, &req.sp, &reason);
		if (st != TAPAS_OK)
			raise_status(st, reason);
		run_datasets(&req, &d, ev, &gen, all_scores, &tau, &pn);
		res->n_train = n_train;
		res->n_test = req.sp.tm.n_test;
		res->n_features = ev->dim;
		res->scores = MemoryContextAlloc(cxt, res->n_test * sizeof(double));
		res->labels = MemoryContextAlloc(cxt, res->n_test);
		res->multivalue = is_multivalue(&req);
		for (i = 0; i < res->n_test; i++)
		{
			res->scores[i] = all_scores[n_train + i];
			res->labels[i] = res->multivalue || ev->y[n_train + i] == 1;
		}
		if (res->multivalue)
		{
			res->n_train = 0;
			res->baseline = aia_prior_baseline(&req);
		}
	}
	PG_FINALLY();
	{
		tapas_shadow_eval_free(ev);
		tapas_coded_schema_free(cs);
	}
	PG_END_TRY();
	if (req.user_gen != NULL)
		tapas_shadow_usergen_finish(&gen);
	SPI_finish();

	st = tapas_metrics_compute(res->scores, res->labels, res->n_test, tau,
							   req.confidence, &res->m);
	if (st != TAPAS_OK)
		raise_status(st, "metrics");
	bootstrap_metrics(&req, res, tau);
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	res->seconds = INSTR_TIME_GET_DOUBLE(end);
}

/* ----------------------------------------------------------------
 *		SQL entry points
 * ----------------------------------------------------------------
 */

/*
 * tapas.evaluate(threat_model text, attack text, auxiliary regclass,
 *				  target_key text, params jsonb) -> one row of metrics
 */
Datum
tapas_sql_evaluate(PG_FUNCTION_ARGS)
{
	EvalResult	res;
	TupleDesc	desc;
	Datum		values[24];
	bool		nulls[24] = {false};
	const tapas_interval_t *iv[4];
	int			k;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	memset(&res, 0, sizeof(res));
	evaluate_internal(fcinfo, &res);
	values[0] = Float8GetDatum(res.m.accuracy);
	values[1] = Float8GetDatum(res.m.tpr);
	values[2] = Float8GetDatum(res.m.fpr);
	values[3] = Float8GetDatum(res.m.advantage);
	values[4] = Float8GetDatum(res.m.auc);
	values[5] = Float8GetDatum(res.m.tpr_at_fpr_01);
	values[6] = Float8GetDatum(res.m.tpr_at_fpr_001);
	values[7] = Float8GetDatum(res.m.epsilon);
	values[8] = Float8GetDatum(res.m.epsilon_lower);
	values[9] = Float8GetDatum(res.m.threshold);
	values[10] = Int32GetDatum((int32) res.n_train);
	values[11] = Int32GetDatum((int32) res.n_test);
	values[12] = Int32GetDatum((int32) res.m.n_pos);
	values[13] = Int32GetDatum((int32) res.m.n_neg);
	values[14] = Int32GetDatum((int32) res.n_features);
	values[15] = Float8GetDatum(res.seconds);
	/* the bootstrap intervals, NULL without resamples */
	iv[0] = &res.ci.accuracy;
	iv[1] = &res.ci.auc;
	iv[2] = &res.ci.tpr_at_fpr_01;
	iv[3] = &res.ci.tpr_at_fpr_001;
	for (k = 0; k < 4; k++)
	{
		values[16 + 2 * k] = Float8GetDatum(iv[k]->low);
		values[17 + 2 * k] = Float8GetDatum(iv[k]->high);
		nulls[16 + 2 * k] = nulls[17 + 2 * k] = res.ci.n_boot == 0 ||
			(res.multivalue && k > 0);
	}
	/*
	 * More than two values: accuracy (with its interval) and the advantage
	 * over guessing the prior's most likely value; the binary metrics do
	 * not apply.
	 */
	if (res.multivalue)
	{
		int			binary_only[] = {1, 2, 4, 5, 6, 7, 8, 9, 12, 13};

		values[3] = Float8GetDatum(res.m.accuracy - res.baseline);
		for (k = 0; k < (int) lengthof(binary_only); k++)
			nulls[binary_only[k]] = true;
	}
	desc = BlessTupleDesc(desc);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

/*
 * tapas.evaluate_scores(same arguments) -> TABLE(dataset_no integer,
 * label boolean, score float8), one row per test dataset
 */
Datum
tapas_sql_evaluate_scores(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	EvalResult	res;
	size_t		i;

	InitMaterializedSRF(fcinfo, 0);
	memset(&res, 0, sizeof(res));
	evaluate_internal(fcinfo, &res);
	if (res.multivalue)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("tapas.evaluate_scores returns binary labels; this evaluation has more than two values"),
				 errhint("Use tapas.evaluate, or pass two candidate values as params \"values\".")));
	for (i = 0; i < res.n_test; i++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = Int32GetDatum((int32) i + 1);
		values[1] = BoolGetDatum(res.labels[i] != 0);
		values[2] = Float8GetDatum(res.scores[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
