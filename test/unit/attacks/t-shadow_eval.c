/*
 * t-shadow_eval.c
 *	  Unit tests for src/attacks/shadow_eval.c and set_classifier.c.
 *
 * A pool whose records use categories 0..2 and a target that uses
 * category 3 everywhere: with the raw generator the target's presence
 * shows in the category frequencies and in the query counts, so every
 * attack must be perfect; determinism per seed; the external-generator
 * path equals the built-in one when it does the same thing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attacks/generators.h"
#include "attacks/score_eval.h"
#include "attacks/shadow_eval.h"
#include "util/memory.h"
#include "tapas_test.h"

#define M 5
#define NPOOL 1000

static double pool[NPOOL * M];
static double target[M] = {3, 3, 3, 3, 3};
static tapas_coded_schema_t *schema;

static void
setup(void)
{
	int			kind[M],
				ncat[M];
	size_t		i;
	tapas_rng_t rng;

	for (i = 0; i < M; i++)
	{
		kind[i] = TAPAS_COL_CATEGORICAL;
		ncat[i] = 4;
	}
	schema = tapas_coded_schema_create(M, kind, ncat);
	tapas_rng_seed(&rng, tapas_test_seed());
	for (i = 0; i < NPOOL * M; i++)
		pool[i] = (double) tapas_rng_below(&rng, 3);
}

static tapas_shadow_params_t
params(int goal, int generator, int features, int classifier)
{
	static tapas_setfeat_item_t items[3];
	tapas_shadow_params_t p;

	memset(items, 0, sizeof(items));
	memset(&p, 0, sizeof(p));
	tapas_threat_model_params_default(&p.tm);
	p.tm.goal = goal;
	p.tm.num_training_records = 100;
	p.tm.n_train = 60;
	p.tm.n_test = 40;
	p.tm.seed = 3;
	p.generator = generator;
	p.num_synthetic_records = 100;
	p.gen_seed = 4;
	if (features == 0)
	{
		items[0].type = TAPAS_SETFEAT_NAIVE;
		items[1].type = TAPAS_SETFEAT_HIST;
		items[1].n_bins = 10;
		items[1].hi = 1;
		items[2].type = TAPAS_SETFEAT_CORR;
		p.n_items = 3;
	}
	else if (features == 1)
	{
		items[0].type = TAPAS_SETFEAT_QUERIES;
		items[0].order = 2;
		items[0].number = 10;
		p.n_items = 1;
	}
	else
	{
		/* mixed: target-free features between two query sets */
		items[0].type = TAPAS_SETFEAT_QUERIES;
		items[0].order = 2;
		items[0].number = 10;
		items[0].seed = 7;
		items[1].type = TAPAS_SETFEAT_NAIVE;
		items[2].type = TAPAS_SETFEAT_QUERIES;
		items[2].order = 3;
		items[2].number = 6;
		items[2].seed = 8;
		p.n_items = 3;
	}
	p.items = items;
	tapas_clf_params_default(&p.clf);
	p.clf.type = classifier;
	p.clf.rf.n_trees = 20;
	p.clf.seed = 5;
	p.sensitive = 0;
	p.values[0] = 1;
	p.values[1] = 3;
	return p;
}

static double
test_accuracy(const tapas_shadow_eval_t *ev)
{
	size_t		i;
	double		acc = 0;

	for (i = 0; i < ev->p.tm.n_test; i++)
		acc += (ev->scores[i] > 0.5) == (ev->y[ev->p.tm.n_train + i] == 1);
	return acc / ev->p.tm.n_test;
}

static void
run_case(int goal, int generator, int features, int classifier, double min_acc)
{
	tapas_shadow_params_t p = params(goal, generator, features, classifier);
	tapas_shadow_eval_t *ev;
	const char *reason = NULL;
	double		acc;

	TAPAS_CHECK(tapas_shadow_eval_create(&ev, schema, pool, NPOOL, target, &p, &reason) == TAPAS_OK);
	TAPAS_CHECK(tapas_shadow_eval_run(ev, NULL) == TAPAS_OK);
	acc = test_accuracy(ev);
	TAPAS_CHECK_MSG(acc >= min_acc, "goal %d gen %d features %d clf %d: accuracy %g",
					goal, generator, features, classifier, acc);
	tapas_shadow_eval_free(ev);
}

static void
test_shadow_unique_target(void)
{
	run_case(TAPAS_THREAT_MODEL_MIA, TAPAS_GEN_RAW, 0, TAPAS_CLF_RANDOM_FOREST, 1.0);
	run_case(TAPAS_THREAT_MODEL_MIA, TAPAS_GEN_RAW, 1, TAPAS_CLF_RANDOM_FOREST, 1.0);
	run_case(TAPAS_THREAT_MODEL_MIA, TAPAS_GEN_RAW, 0, TAPAS_CLF_LOGISTIC, 1.0);
	run_case(TAPAS_THREAT_MODEL_MIA, TAPAS_GEN_RAW, 1, TAPAS_CLF_LOGISTIC, 1.0);
	/* marginals keep the category frequencies: category 3 still betrays it */
	run_case(TAPAS_THREAT_MODEL_MIA, TAPAS_GEN_MARGINALS, 0, TAPAS_CLF_RANDOM_FOREST, 0.9);
	/* AIA on column 0, values 1 and 3: value 3 shows in the frequencies */
	run_case(TAPAS_THREAT_MODEL_AIA, TAPAS_GEN_RAW, 0, TAPAS_CLF_RANDOM_FOREST, 1.0);
}

static void
test_shadow_deterministic_and_external(void)
{
	tapas_shadow_params_t p = params(TAPAS_THREAT_MODEL_MIA, TAPAS_GEN_RAW, 0, TAPAS_CLF_RANDOM_FOREST);
	tapas_shadow_eval_t *a,
			   *b,
			   *c;
	size_t		k,
				n;

	TAPAS_CHECK(tapas_shadow_eval_create(&a, schema, pool, NPOOL, target, &p, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_shadow_eval_run(a, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_shadow_eval_create(&b, schema, pool, NPOOL, target, &p, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_shadow_eval_run(b, NULL) == TAPAS_OK);
	TAPAS_CHECK(memcmp(a->scores, b->scores, p.tm.n_test * sizeof(double)) == 0);

	/* external generator that copies its input == raw with n_syn = n */
	p.generator = TAPAS_GEN_EXTERNAL;
	TAPAS_CHECK(tapas_shadow_eval_create(&c, schema, pool, NPOOL, target, &p, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_shadow_eval_run(c, NULL) == TAPAS_EINVAL);
	for (k = 0; k < c->tm->n_datasets; k++)
	{
		const double *real = tapas_shadow_eval_real(c, k, &n);

		memcpy(c->syn, real, n * M * sizeof(double));
		TAPAS_CHECK(tapas_shadow_eval_featurise(c, k, n) == TAPAS_OK);
	}
	TAPAS_CHECK(tapas_shadow_eval_fit(c, NULL) == TAPAS_OK);
	TAPAS_CHECK(memcmp(a->scores, c->scores, p.tm.n_test * sizeof(double)) == 0);
	tapas_shadow_eval_free(a);
	tapas_shadow_eval_free(b);
	tapas_shadow_eval_free(c);
}

/*
 * The oracle of one target of a several-target evaluation: the same
 * datasets (ev's threat model and generator) featurised by a
 * single-target extractor built for target t, a classifier fitted on
 * target t's labels with the same parameters; its test scores.
 */
static double *
single_target_scores(tapas_shadow_eval_t *ev, const tapas_shadow_params_t *p,
					 const double *targets, size_t t)
{
	size_t		nd = ev->tm->n_datasets,
				k,
				i,
				n_syn;
	tapas_setfeat_t *fs;
	tapas_clf_t *clf;
	double	   *F,
			   *scores = malloc(p->tm.n_test * sizeof(double));
	int		   *y = malloc(nd * sizeof(int));

	TAPAS_CHECK(tapas_setfeat_create(&fs, schema, p->items, p->n_items, targets + t * M,
									 p->num_synthetic_records + p->tm.n_targets, NULL) == TAPAS_OK);
	F = malloc(nd * fs->dim * sizeof(double));
	for (k = 0; k < nd; k++)
	{
		TAPAS_CHECK(tapas_shadow_eval_generate(ev, k, &n_syn) == TAPAS_OK);
		TAPAS_CHECK(tapas_setfeat_extract(fs, ev->syn_cur, n_syn, F + k * fs->dim) == TAPAS_OK);
		y[k] = ev->tm->ds[k].labels[t];
	}
	TAPAS_CHECK(tapas_clf_fit(&clf, F, y, p->tm.n_train, fs->dim, &p->clf, NULL) == TAPAS_OK);
	for (i = 0; i < p->tm.n_test; i++)
		scores[i] = tapas_clf_predict_proba(clf, F + (p->tm.n_train + i) * fs->dim);
	tapas_clf_free(clf);
	tapas_setfeat_free(fs);
	free(F);
	free(y);
	return scores;
}

/*
 * Three targets share the datasets: each target's scores equal, bit for
 * bit, its single-target oracle's, for target-free, query and mixed
 * features, MIA and AIA; the unique targets are found; nothing leaks.
 */
static void
test_shadow_several_targets(void)
{
	/* 0 and 1 unique (category 3 never occurs in the pool), 2 a pool record */
	double		targets[3 * M] = {3, 3, 3, 3, 3, 3, 0, 3, 1, 3, 0, 0, 0, 0, 0};
	int			goal,
				features;
	long		live = tapas_memory_live();

	memcpy(targets + 2 * M, pool, M * sizeof(double));
	for (goal = 0; goal < 2; goal++)
		for (features = 0; features < 3; features++)
		{
			tapas_shadow_params_t p = params(goal, TAPAS_GEN_RAW, features,
											 TAPAS_CLF_RANDOM_FOREST);
			tapas_shadow_eval_t *ev;
			size_t		t,
						i;

			p.tm.n_targets = 3;
			TAPAS_CHECK(tapas_shadow_eval_create(&ev, schema, pool, NPOOL, targets, &p, NULL) == TAPAS_OK);
			TAPAS_CHECK(tapas_shadow_eval_run(ev, NULL) == TAPAS_OK);
			for (t = 0; t < 3; t++)
			{
				double	   *oracle = single_target_scores(ev, &p, targets, t);
				const double *got = ev->scores + t * p.tm.n_test;
				const int  *y = ev->y + t * ev->tm->n_datasets + p.tm.n_train;
				double		acc = 0;

				TAPAS_CHECK_MSG(memcmp(oracle, got, p.tm.n_test * sizeof(double)) == 0,
								"goal %d features %d target %zu", goal, features, t);
				for (i = 0; i < p.tm.n_test; i++)
					acc += (got[i] > 0.5) == (y[i] == 1);
				/* MIA: the two unique targets are found every time */
				if (goal == TAPAS_THREAT_MODEL_MIA && t < 2)
					TAPAS_CHECK_MSG(acc == p.tm.n_test, "features %d target %zu: accuracy %g",
									features, t, acc / p.tm.n_test);
				free(oracle);
			}
			tapas_shadow_eval_free(ev);
		}
	TAPAS_CHECK(tapas_memory_live() == live);
}

static int
cancel_at_10(void *arg, double fraction)
{
	return ++*(int *) arg > 10;
}

static void
test_shadow_errors_and_cancel(void)
{
	tapas_shadow_params_t p = params(TAPAS_THREAT_MODEL_MIA, TAPAS_GEN_RAW, 0, TAPAS_CLF_RANDOM_FOREST);
	tapas_shadow_eval_t *ev;
	const char *reason = NULL;
	int			calls = 0;
	tapas_progress_t prog = {cancel_at_10, &calls};
	long		live = tapas_memory_live();

	p.num_synthetic_records = 101;
	TAPAS_CHECK(tapas_shadow_eval_create(&ev, schema, pool, NPOOL, target, &p, &reason) == TAPAS_EINVAL);
	TAPAS_CHECK(reason != NULL && ev == NULL);
	p.num_synthetic_records = 100;
	p.tm.num_training_records = 600;
	TAPAS_CHECK(tapas_shadow_eval_create(&ev, schema, pool, NPOOL, target, &p, &reason) == TAPAS_EINVAL);
	p.tm.num_training_records = 100;
	p.tm.goal = TAPAS_THREAT_MODEL_AIA;
	p.sensitive = M;
	TAPAS_CHECK(tapas_shadow_eval_create(&ev, schema, pool, NPOOL, target, &p, &reason) == TAPAS_EINVAL);
	p.tm.goal = TAPAS_THREAT_MODEL_MIA;
	TAPAS_CHECK(tapas_shadow_eval_create(&ev, schema, pool, NPOOL, target, &p, &reason) == TAPAS_OK);
	TAPAS_CHECK(tapas_shadow_eval_run(ev, &prog) == TAPAS_ECANCELED);
	TAPAS_CHECK(calls == 11);
	tapas_shadow_eval_free(ev);
	TAPAS_CHECK(tapas_memory_live() == live);
}

/* logistic regression alone: a 1-D threshold problem and a one-class fit */
static void
test_clf_logistic(void)
{
	double		X[40];
	int			y[40],
				same[40];
	size_t		i;
	tapas_clf_params_t p;
	tapas_clf_t *clf;
	double		lo = -1,
				hi = 2;

	for (i = 0; i < 40; i++)
	{
		X[i] = (double) i / 40.0;
		y[i] = i >= 20;
		same[i] = 1;
	}
	tapas_clf_params_default(&p);
	p.type = TAPAS_CLF_LOGISTIC;
	TAPAS_CHECK(tapas_clf_fit(&clf, X, y, 40, 1, &p, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_clf_predict_proba(clf, &lo) < 0.1);
	TAPAS_CHECK(tapas_clf_predict_proba(clf, &hi) > 0.9);
	tapas_clf_free(clf);
	TAPAS_CHECK(tapas_clf_fit(&clf, X, same, 40, 1, &p, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_clf_predict_proba(clf, &lo) > 0.5);
	tapas_clf_free(clf);
	p.C = 0;
	TAPAS_CHECK(tapas_clf_fit(&clf, X, y, 40, 1, &p, NULL) == TAPAS_EINVAL);
}

/* a progress callback that counts its calls and cancels from call stop_at on */
typedef struct CountingStop
{
	int			calls;
	int			stop_at;		/* 0: never */
} CountingStop;

static int
counting_stop(void *arg, double fraction)
{
	CountingStop *c = arg;

	(void) fraction;
	c->calls++;
	return c->stop_at > 0 && c->calls >= c->stop_at;
}

/*
 * The logistic fit polls once per Newton iteration: a callback that never
 * stops leaves the model exactly as without one (same probabilities, bit
 * for bit); one that stops at its second call (inside train(), after the
 * first iteration) gets TAPAS_ECANCELED when train() returns, no model, no
 * leak, and is not called again; one that stops at once gets
 * TAPAS_ECANCELED before the fit.
 */
static void
test_clf_logistic_cancel(void)
{
	enum
	{
		N = 600, D = 40
	};
	double	   *X = malloc(sizeof(double) * N * D);
	int			y[N];
	tapas_clf_params_t p;
	tapas_clf_t *plain,
			   *polled;
	tapas_rng_t rng;
	CountingStop never = {0, 0},
				second = {0, 2},
				first = {0, 1};
	tapas_progress_t pr;
	size_t		i,
				j;
	int			same = 1;
	long		live = tapas_memory_live();

	tapas_rng_seed(&rng, tapas_test_seed());
	for (i = 0; i < N; i++)
	{
		double		s = 0;

		for (j = 0; j < D; j++)
		{
			X[i * D + j] = tapas_rng_uniform(&rng) - 0.5;
			s += X[i * D + j] * (j % 3 == 0 ? 1.0 : -0.5);
		}
		y[i] = s + 0.3 * (tapas_rng_uniform(&rng) - 0.5) > 0;
	}
	tapas_clf_params_default(&p);
	p.type = TAPAS_CLF_LOGISTIC;
	TAPAS_CHECK(tapas_clf_fit(&plain, X, y, N, D, &p, NULL) == TAPAS_OK);
	pr.fn = counting_stop;
	pr.arg = &never;
	TAPAS_CHECK(tapas_clf_fit(&polled, X, y, N, D, &p, &pr) == TAPAS_OK);
	TAPAS_CHECK_MSG(never.calls >= 3, "polled %d times", never.calls);
	for (i = 0; i < N; i++)
		same &= tapas_clf_predict_proba(plain, X + i * D) == tapas_clf_predict_proba(polled, X + i * D);
	TAPAS_CHECK(same);
	tapas_clf_free(polled);
	tapas_clf_free(plain);

	pr.arg = &second;
	TAPAS_CHECK(tapas_clf_fit(&polled, X, y, N, D, &p, &pr) == TAPAS_ECANCELED);
	TAPAS_CHECK(polled == NULL);
	TAPAS_CHECK_MSG(second.calls == 2, "polled %d times after the stop", second.calls);
	pr.arg = &first;
	TAPAS_CHECK(tapas_clf_fit(&polled, X, y, N, D, &p, &pr) == TAPAS_ECANCELED);
	TAPAS_CHECK(first.calls == 1 && polled == NULL);
	TAPAS_CHECK(tapas_memory_live() == live);
	free(X);
}

/* score attacks through score_eval: closest distance 0 iff the target is in */
static void
test_score_eval(void)
{
	tapas_column_spec_t cols[M];
	tapas_score_attack_t a;
	double		syn[4 * M],
				score;
	size_t		j;

	for (j = 0; j < M; j++)
	{
		cols[j].kind = TAPAS_COLUMN_CATEGORICAL;
		cols[j].cardinality = 4;
		cols[j].lower = cols[j].upper = 0;
	}
	memcpy(syn, pool, 4 * M * sizeof(double));
	memset(&a, 0, sizeof(a));
	a.kind = TAPAS_SCORE_CLOSEST_DISTANCE_MIA;
	a.distance.kind = TAPAS_DISTANCE_HAMMING;
	TAPAS_CHECK(tapas_score_attack_run(&a, cols, M, syn, 4, target, &score) == TAPAS_OK);
	TAPAS_CHECK(score == -5.0);	/* the pool never uses category 3 */
	memcpy(syn + 2 * M, target, M * sizeof(double));
	TAPAS_CHECK(tapas_score_attack_run(&a, cols, M, syn, 4, target, &score) == TAPAS_OK);
	TAPAS_CHECK(score == 0.0);

	/* AIA on column 0 between 1 and 3: the copy with 3 is closer */
	a.kind = TAPAS_SCORE_CLOSEST_DISTANCE_AIA;
	a.sensitive = 0;
	a.v0 = 1;
	a.v1 = 3;
	TAPAS_CHECK(tapas_score_attack_run(&a, cols, M, syn, 4, target, &score) == TAPAS_OK);
	TAPAS_CHECK(score > 0);
	a.v1 = 4;					/* out of the column's codes */
	TAPAS_CHECK(tapas_score_attack_run(&a, cols, M, syn, 4, target, &score) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_score_attack_run(&a, cols, M, syn, 0, target, &score) == TAPAS_EINVAL);
}

int
main(void)
{
	setup();
	TAPAS_TEST_RUN(test_shadow_unique_target);
	TAPAS_TEST_RUN(test_shadow_deterministic_and_external);
	TAPAS_TEST_RUN(test_shadow_several_targets);
	TAPAS_TEST_RUN(test_shadow_errors_and_cancel);
	TAPAS_TEST_RUN(test_clf_logistic);
	TAPAS_TEST_RUN(test_clf_logistic_cancel);
	TAPAS_TEST_RUN(test_score_eval);
	tapas_coded_schema_free(schema);
	TAPAS_TEST_DONE();
}
