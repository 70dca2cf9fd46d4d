/*-------------------------------------------------------------------------
 *
 * attacks_shadow.c
 *	  The evaluation behind tapas.evaluate, evaluate_targets and
 *	  evaluate_scores (attacks_shadow_sql.c): a threat model, an attack,
 *	  an auxiliary table and target keys in, attack success metrics out.
 *
 * One call does the whole evaluation in C: the auxiliary table is read
 * once through SPI into a coded matrix (attacks_shadow_data.c, with
 * api/dataset_sql.c: kinds, dictionaries, NULL policy), the target rows
 * (found by their keys) are taken out, the threat
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



/* raises the error for a kernel status (reason may be NULL) */
static void
raise_status(tapas_status st, const char *reason)
{
	tapas_raise_status(st, st == TAPAS_EINVAL ? "invalid evaluation" :
					   "could not evaluate the attack", reason);
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

/* ----------------------------------------------------------------
 *		The evaluation loop
 * ----------------------------------------------------------------
 */

/* one dataset through the generator, into ev->syn_cur; returns its size */
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

			st = tapas_score_attack_run_values(&req->score, d->schema->specs, d->c, ev->syn_cur,
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

				st = tapas_score_attack_run(&req->score, d->schema->specs, d->c, ev->syn_cur,
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
	tapas_shadow_read_auxiliary(&req, &d, cxt);
	if (req.goal == TAPAS_THREAT_MODEL_AIA)
		tapas_shadow_resolve_sensitive(&req, &d);
	tapas_shadow_resolve_distance(&req, &d);
	tapas_shadow_check_sizes(&req, &d);
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
