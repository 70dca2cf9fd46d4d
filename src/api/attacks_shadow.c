/*-------------------------------------------------------------------------
 *
 * attacks_shadow.c
 *	  The evaluation behind tapas.evaluate, evaluate_targets and
 *	  evaluate_scores (attacks_shadow_sql.c): a threat model, an attack,
 *	  an auxiliary table and target keys in, attack success metrics out.
 *
 * One call does the whole evaluation in C: the auxiliary table is read
 * once through SPI into a coded matrix (api/dataset_sql.c: kinds, dictionaries,
 * NULL policy), the target rows (found by their keys) are taken out, the threat
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



/* the auxiliary table, read once */
typedef struct EvalData
{
	TapasAttackSchema *schema;
	double	   *pool;			/* (n - T) x c, the targets taken out */
	double	   *target;			/* T x c, in the order of the keys */
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

/* position of the one record with key `key`, or an error */
static size_t
find_target(EvalRequest *req, EvalData *d, char **keys, size_t n, const char *key)
{
	size_t		i,
				found = 0,
				at = 0;
	char	   *relname = get_rel_name(req->auxiliary);

	for (i = 0; i < n; i++)
		if (keys[i] != NULL && strcmp(keys[i], key) == 0)
		{
			found++;
			at = i;
		}
	if (found == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target key \"%s\" does not occur in column \"%s\" of \"%s\"",
						key, d->schema->key, relname)));
	if (found > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target key \"%s\" occurs %zu times in column \"%s\" of \"%s\"",
						key, found, d->schema->key, relname),
				 errhint("The key column must identify one record; pass params \"key\".")));
	return at;
}

static void
read_auxiliary(EvalRequest *req, EvalData *d, MemoryContext cxt)
{
	char	  **keys;
	double	   *values;
	bool	   *is_target;
	size_t		n,
				i,
				kept = 0;
	int			t;

	d->schema = tapas_attack_schema_build(req->auxiliary, req->auxiliary, req->params,
										  NULL, true, cxt);
	values = tapas_attack_read_table(d->schema, req->auxiliary, "auxiliary", &n,
									 &keys, cxt);
	d->c = d->schema->ncols;
	d->target = MemoryContextAlloc(cxt, req->n_targets * d->c * sizeof(double));
	is_target = palloc0(sizeof(bool) * n);
	for (t = 0; t < req->n_targets; t++)
	{
		size_t		at = find_target(req, d, keys, n, req->target_keys[t]);

		memcpy(d->target + t * d->c, values + at * d->c, d->c * sizeof(double));
		is_target[at] = true;
	}
	/* the pool: every other record, in table order */
	for (i = 0; i < n; i++)
		if (!is_target[i])
		{
			if (kept != i)
				memmove(values + kept * d->c, values + i * d->c, d->c * sizeof(double));
			kept++;
		}
	d->n_pool = kept;
	d->pool = values;
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


/* a kernel callback that only stops on a cancel (no NOTICE) */
static const tapas_progress_t cancel_only = {tapas_progress_notice_cb, NULL};

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
 * all_scores[t * n_datasets + k] gets 1 for target t's right guess, 0
 * otherwise.
 */
static void
run_multivalue(EvalRequest *req, EvalData *d, tapas_shadow_eval_t *ev,
			   ShadowUserGen *gen, double *all_scores, TapasProgressNotice *pn)
{
	size_t		k,
				v,
				t,
				total = ev->tm->n_datasets,
				nv = (size_t) req->sp.tm.n_values,
				codes[TAPAS_THREAT_MODEL_MAX_VALUES];
	double		sc[TAPAS_THREAT_MODEL_MAX_VALUES];
	tapas_rng_t rng;

	for (v = 0; v < nv; v++)
		codes[v] = (size_t) req->sp.values[v];
	tapas_rng_seed(&rng, req->sp.tm.seed ^ UINT64CONST(0xbb67ae8584caa73b));
	pn->step = "generating and attacking the test datasets";
	for (k = req->sp.tm.n_train; k < total; k++)
	{
		size_t		n_syn;

		CHECK_FOR_INTERRUPTS();
		tapas_progress_notice(pn, (double) k / total);
		n_syn = generate_one(req, ev, gen, k);
		for (t = 0; t < ev->tm->n_targets; t++)
		{
			size_t		best = 0,
						ties = 1;
			tapas_status st;

			st = tapas_score_attack_run_values(&req->score, d->schema->specs, d->c, ev->syn,
											   n_syn, ev->target + t * ev->m, codes, nv, sc);
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
			all_scores[t * total + k] = (int) best == ev->tm->ds[k].labels[t] ? 1.0 : 0.0;
		}
	}
}

/* target t's threshold, trained on its scores of the training datasets */
static double
train_threshold(EvalRequest *req, tapas_shadow_eval_t *ev, const double *scores, size_t t)
{
	size_t		n_train = req->sp.tm.n_train,
				k;
	unsigned char *y = palloc(n_train);
	double		tau;
	tapas_status st;

	for (k = 0; k < n_train; k++)
		y[k] = ev->tm->ds[k].labels[t] == 1;
	st = tapas_threshold_select(scores, y, n_train, req->criterion,
								req->criterion_value, &tau);
	if (st != TAPAS_OK)
		raise_status(st, "the threshold criterion value is out of range");
	pfree(y);
	return tau;
}

/*
 * Runs every dataset and the attack; fills all_scores (n_targets x
 * n_datasets: the test datasets' scores are the attack's) and the decision
 * threshold of every target.  Kernel objects live in *evp so the caller
 * frees them whatever happens.
 */
static void
run_datasets(EvalRequest *req, EvalData *d, tapas_shadow_eval_t *ev,
			 ShadowUserGen *gen, double *all_scores, double *tau,
			 TapasProgressNotice *pn)
{
	tapas_progress_t progress = {tapas_progress_notice_cb, pn};
	size_t		total = ev->tm->n_datasets,
				T = ev->tm->n_targets,
				k,
				t;
	tapas_status st;

	/*
	 * the synthetic predictor's fit inside one dataset stops on a cancel
	 * (the NOTICEs stay between datasets, with their fraction)
	 */
	req->score.progress = &cancel_only;
	if (is_multivalue(req))
	{
		run_multivalue(req, d, ev, gen, all_scores, pn);
		for (t = 0; t < T; t++)
			tau[t] = 0.5;
		return;
	}
	pn->step = "generating and featurising the datasets";
	for (k = 0; k < total; k++)
	{
		size_t		n_syn;

		CHECK_FOR_INTERRUPTS();
		tapas_progress_notice(pn, (double) k / total);
		n_syn = generate_one(req, ev, gen, k);
		if (req->attack != ATTACK_SCORE)
			st = tapas_shadow_eval_featurise(ev, k, n_syn);
		else
			for (t = 0, st = TAPAS_OK; t < T && st == TAPAS_OK; t++)
			{
				double	   *sc = &all_scores[t * total + k];

				st = tapas_score_attack_run(&req->score, d->schema->specs, d->c, ev->syn,
											n_syn, ev->target + t * ev->m, sc);
				*sc += 0.0;		/* -0 (a distance of 0, negated) -> 0 */
			}
		if (st != TAPAS_OK)
			raise_status(st, "the attack rejected its parameters for this table");
	}
	CHECK_FOR_INTERRUPTS();
	/* the fit reports through the kernel's progress polls (between trees) */
	pn->step = "training the classifier";
	if (req->attack == ATTACK_SCORE)
	{
		for (t = 0; t < T; t++)
			tau[t] = train_threshold(req, ev, all_scores + t * total, t);
		return;
	}
	st = tapas_shadow_eval_fit(ev, &progress);
	if (st != TAPAS_OK)
		raise_status(st, "the classifier rejected its parameters");
	/* one classifier per target, each on the shared datasets' features */
	for (t = 0; t < T; t++)
	{
		memcpy(all_scores + t * total + req->sp.tm.n_train,
			   ev->scores + t * req->sp.tm.n_test, req->sp.tm.n_test * sizeof(double));
		/* the classifier predicts 1 iff p > 1/2; metrics decide s >= tau */
		tau[t] = nextafter(0.5, 1.0);
	}
}

/* progress callback of the bootstrap: stop on a pending cancel */
static int
cancel_pending(void *arg, double fraction)
{
	return tapas_cancel_requested() ? 1 : 0;
}

/*
 * Metrics and percentile bootstrap intervals of target t's test scores
 * (metrics.h), the bootstrap seeded apart from every other draw of the
 * evaluation (and per target).
 */
static void
target_metrics(EvalRequest *req, EvalResult *res, size_t t, double tau)
{
	tapas_progress_t progress = {cancel_pending, NULL};
	const double *s = res->scores + t * res->n_test;
	const unsigned char *y = res->labels + t * res->n_test;
	tapas_status st;

	st = tapas_metrics_compute(s, y, res->n_test, tau, req->confidence, &res->m[t]);
	if (st != TAPAS_OK)
		raise_status(st, "metrics");
	memset(&res->ci[t], 0, sizeof(res->ci[t]));
	if (req->n_boot == 0)
		return;
	st = tapas_metrics_bootstrap(s, y, res->n_test, tau, req->n_boot, req->confidence,
								 (req->sp.tm.seed ^ UINT64CONST(0x6a09e667f3bcc909)) + t,
								 &progress, &res->ci[t]);
	if (st == TAPAS_ECANCELED)
		CHECK_FOR_INTERRUPTS();
	if (st != TAPAS_OK)
		raise_status(st, "bootstrap");
}

/* the test scores and labels of every target into res */
static void
collect_results(EvalRequest *req, tapas_shadow_eval_t *ev, const double *all_scores,
				EvalResult *res, MemoryContext cxt)
{
	size_t		n_train = req->sp.tm.n_train,
				total = ev->tm->n_datasets,
				T = ev->tm->n_targets,
				i,
				t;

	res->n_targets = T;
	res->target_keys = req->target_keys;
	res->n_train = n_train;
	res->n_test = req->sp.tm.n_test;
	res->n_features = ev->dim;
	res->scores = MemoryContextAlloc(cxt, T * res->n_test * sizeof(double));
	res->labels = MemoryContextAlloc(cxt, T * res->n_test);
	res->multivalue = is_multivalue(req);
	for (t = 0; t < T; t++)
		for (i = 0; i < res->n_test; i++)
		{
			res->scores[t * res->n_test + i] = all_scores[t * total + n_train + i];
			res->labels[t * res->n_test + i] = res->multivalue ||
				ev->tm->ds[n_train + i].labels[t] == 1;
		}
	if (res->multivalue)
	{
		res->n_train = 0;
		res->baseline = aia_prior_baseline(req);
	}
}

void
tapas_shadow_evaluate(FunctionCallInfo fcinfo, bool many, EvalResult *res)
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
	double	   *all_scores,
			   *tau;
	const char *reason = NULL;
	size_t		t,
				T,
				total;
	tapas_status st;

	INSTR_TIME_SET_CURRENT(start);
	tapas_progress_notice_init(&pn, "tapas.evaluate", "reading the auxiliary table");
	tapas_shadow_request_parse(fcinfo, &req, many);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	read_auxiliary(&req, &d, cxt);
	if (req.goal == TAPAS_THREAT_MODEL_AIA)
		resolve_sensitive(&req, &d);
	resolve_distance_columns(&req, &d);
	check_sizes(&req, &d);
	if (req.user_gen != NULL)
		tapas_shadow_usergen_init(&gen, req.user_gen, d.schema, req.auxiliary);
	T = (size_t) req.n_targets;
	total = req.sp.tm.n_train + req.sp.tm.n_test;
	all_scores = MemoryContextAllocZero(cxt, T * total * sizeof(double));
	tau = MemoryContextAllocZero(cxt, T * sizeof(double));

	PG_TRY();
	{
		cs = tapas_coded_schema_from_specs(d.c, d.schema->specs);
		if (cs == NULL)
			raise_status(TAPAS_ENOMEM, NULL);
		st = tapas_shadow_eval_create(&ev, cs, d.pool, d.n_pool, d.target, &req.sp, &reason);
		if (st != TAPAS_OK)
			raise_status(st, reason);
		run_datasets(&req, &d, ev, &gen, all_scores, tau, &pn);
		collect_results(&req, ev, all_scores, res, cxt);
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

	res->m = MemoryContextAlloc(cxt, T * sizeof(tapas_metrics_t));
	res->ci = MemoryContextAlloc(cxt, T * sizeof(tapas_metrics_ci_t));
	for (t = 0; t < T; t++)
		target_metrics(&req, res, t, tau[t]);
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	res->seconds = INSTR_TIME_GET_DOUBLE(end);
}
