/*
 * t-random_forest.c
 *	  Unit tests for src/attacks/random_forest.c.
 *
 * Oracles: hand-checked CART splits on tiny inputs (threshold at the
 * midpoint, the informative feature chosen, min_samples_leaf and max_depth
 * honoured); accuracy on synthetic problems whose Bayes accuracy is known
 * (separable: 1; 20% label noise: 0.8); tree invariants after every fit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attacks/random_forest.h"
#include "util/memory.h"
#include "tapas_test.h"

static tapas_rf_params_t
one_tree(int max_features)
{
	tapas_rf_params_t p;

	tapas_rf_params_default(&p);
	p.n_trees = 1;
	p.bootstrap = 0;
	p.max_features = max_features;
	return p;
}

static void
test_rf_hand_split(void)
{
	double		X[4] = {1, 2, 3, 4};
	int			y[4] = {0, 0, 1, 1};
	tapas_rf_params_t p = one_tree(1);
	tapas_rf_t *rf;
	tapas_rng_t rng;
	const char *reason;
	double		q;

	tapas_rng_seed(&rng, 1);
	TAPAS_CHECK(tapas_rf_fit(&rf, X, y, 4, 1, &p, &rng, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_rf_validate(rf, &reason));
	TAPAS_CHECK(rf->trees[0].n_nodes == 3);
	TAPAS_CHECK(rf->trees[0].nodes[0].feature == 0);
	TAPAS_CHECK(rf->trees[0].nodes[0].threshold == 2.5);
	TAPAS_CHECK(rf->trees[0].nodes[1].p1 == 0.0 && rf->trees[0].nodes[2].p1 == 1.0);
	q = 2.4;
	TAPAS_CHECK(tapas_rf_predict_proba(rf, &q) == 0.0);
	q = 2.6;
	TAPAS_CHECK(tapas_rf_predict_proba(rf, &q) == 1.0);
	tapas_rf_free(rf);
}

/* two features: the second separates, the first is noise */
static void
test_rf_best_feature_and_limits(void)
{
	double		X[12] = {5, 1, 1, 2, 4, 3, 2, 4, 3, 5, 6, 6};
	int			y[6] = {0, 0, 0, 1, 1, 1};
	double		X1[4] = {1, 2, 3, 4};
	int			y1[4] = {0, 0, 0, 1};
	tapas_rf_params_t p = one_tree(2);
	tapas_rf_t *rf;
	tapas_rng_t rng;
	const char *reason;

	tapas_rng_seed(&rng, tapas_test_seed());
	TAPAS_CHECK(tapas_rf_fit(&rf, X, y, 6, 2, &p, &rng, NULL) == TAPAS_OK);
	TAPAS_CHECK(rf->trees[0].nodes[0].feature == 1);
	TAPAS_CHECK(rf->trees[0].nodes[0].threshold == 3.5);
	TAPAS_CHECK(rf->trees[0].n_nodes == 3);
	tapas_rf_free(rf);

	/* the purest split (3.5) leaves one sample: min_samples_leaf 2 forces 2.5 */
	p = one_tree(1);
	p.min_samples_leaf = 2;
	TAPAS_CHECK(tapas_rf_fit(&rf, X1, y1, 4, 1, &p, &rng, NULL) == TAPAS_OK);
	TAPAS_CHECK(rf->trees[0].nodes[0].threshold == 2.5);
	TAPAS_CHECK(rf->trees[0].n_nodes == 3);
	TAPAS_CHECK(rf->trees[0].nodes[2].p1 == 0.5);
	TAPAS_CHECK(tapas_rf_validate(rf, &reason));
	tapas_rf_free(rf);

	/* without limits the same data grows to purity; max_depth 1 stops at 3 nodes */
	p = one_tree(1);
	TAPAS_CHECK(tapas_rf_fit(&rf, X1, y1, 4, 1, &p, &rng, NULL) == TAPAS_OK);
	TAPAS_CHECK(rf->trees[0].nodes[0].threshold == 3.5);
	tapas_rf_free(rf);
	p.max_depth = 1;
	p.min_samples_leaf = 1;
	TAPAS_CHECK(tapas_rf_fit(&rf, X, y, 6, 2, &p, &rng, NULL) == TAPAS_OK);
	TAPAS_CHECK(rf->trees[0].n_nodes <= 3);
	tapas_rf_free(rf);
}

/* x uniform in [0,1]^d; label = [x0 + x1 > 1], flipped with probability noise */
static void
make_problem(tapas_rng_t *rng, size_t n, size_t d, double noise, double *X, int *y,
			 int *clean)
{
	size_t		i,
				j;

	for (i = 0; i < n; i++)
	{
		for (j = 0; j < d; j++)
			X[i * d + j] = tapas_rng_uniform(rng);
		clean[i] = X[i * d] + X[i * d + 1] > 1.0;
		y[i] = tapas_rng_uniform(rng) < noise ? !clean[i] : clean[i];
	}
}

static double
forest_accuracy(double noise, uint64_t seed, int against_clean)
{
	size_t		n = 1000,
				d = 10,
				i;
	double	   *X = malloc(2 * n * d * sizeof(double));
	int		   *y = malloc(2 * n * sizeof(int)),
			   *clean = malloc(2 * n * sizeof(int));
	tapas_rf_params_t p;
	tapas_rf_t *rf;
	tapas_rng_t rng;
	const char *reason;
	double		acc = 0;

	tapas_rng_seed(&rng, seed);
	make_problem(&rng, 2 * n, d, noise, X, y, clean);
	tapas_rf_params_default(&p);
	if (noise > 0)
		p.min_samples_leaf = 20;	/* smooth the noisy leaves */
	if (tapas_rf_fit(&rf, X, y, n, d, &p, &rng, NULL) != TAPAS_OK)
		return -1;
	if (!tapas_rf_validate(rf, &reason))
		return -2;
	for (i = n; i < 2 * n; i++)
		acc += (tapas_rf_predict_proba(rf, X + i * d) > 0.5) ==
			(against_clean ? clean[i] : y[i]);
	tapas_rf_free(rf);
	free(X);
	free(y);
	free(clean);
	return acc / n;
}

static void
test_rf_accuracy_separable(void)
{
	double		acc = forest_accuracy(0.0, tapas_test_seed(), 1);

	/* axis-aligned trees approximate the diagonal boundary: ~0.96-0.98 */
	TAPAS_CHECK_MSG(acc >= 0.94, "accuracy %g", acc);
}

static void
test_rf_accuracy_noisy(void)
{
	double		acc = forest_accuracy(0.2, tapas_test_seed() + 1, 0);

	/* Bayes accuracy 0.8; 1000 test points give a standard error ~0.013 */
	TAPAS_CHECK_MSG(acc >= 0.74 && acc <= 0.84, "accuracy %g", acc);
}

static void
test_rf_deterministic_and_errors(void)
{
	double		X[8] = {1, 0, 2, 1, 3, 0, 4, 1};
	int			y[4] = {0, 1, 0, 1},
				bad[4] = {0, 2, 0, 1};
	tapas_rf_params_t p;
	tapas_rf_t *a,
			   *b;
	tapas_rng_t r1,
				r2;
	double		q[2] = {2.5, 0.7};
	long		live,
				k;
	tapas_status st;
	tapas_progress_t cancel;

	tapas_rf_params_default(&p);
	p.n_trees = 10;
	tapas_rng_seed(&r1, 5);
	tapas_rng_seed(&r2, 5);
	TAPAS_CHECK(tapas_rf_fit(&a, X, y, 4, 2, &p, &r1, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_rf_fit(&b, X, y, 4, 2, &p, &r2, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_rf_predict_proba(a, q) == tapas_rf_predict_proba(b, q));
	tapas_rf_free(a);
	tapas_rf_free(b);
	TAPAS_CHECK(tapas_rf_fit(&a, X, bad, 4, 2, &p, &r1, NULL) == TAPAS_EINVAL);
	p.min_samples_split = 1;
	TAPAS_CHECK(tapas_rf_fit(&a, X, y, 4, 2, &p, &r1, NULL) == TAPAS_EINVAL);
	p.min_samples_split = 2;
	TAPAS_CHECK(tapas_rf_fit(&a, X, y, 0, 2, &p, &r1, NULL) == TAPAS_EINVAL);

	/*
	 * Every allocation of a fit fails once (the ranks' and, with a NaN,
	 * the float copy's after the ranks were dropped): ENOMEM, no leak.
	 */
	live = tapas_memory_live();
	for (k = 0; k < 60; k++)
	{
		tapas_memory_fail_after(k);
		st = tapas_rf_fit(&a, X, y, 4, 2, &p, &r1, NULL);
		tapas_memory_fail_after(-1);
		TAPAS_CHECK(st == TAPAS_OK || st == TAPAS_ENOMEM);
		tapas_rf_free(a);
		TAPAS_CHECK_MSG(tapas_memory_live() == live, "leak after failure %ld", k);
		X[7] = NAN;
		tapas_memory_fail_after(k);
		st = tapas_rf_fit(&a, X, y, 4, 2, &p, &r1, NULL);
		tapas_memory_fail_after(-1);
		X[7] = 1;
		TAPAS_CHECK(st == TAPAS_OK || st == TAPAS_ENOMEM);
		tapas_rf_free(a);
		TAPAS_CHECK_MSG(tapas_memory_live() == live, "leak after failure %ld (NaN)", k);
	}
	cancel.fn = NULL;
	cancel.arg = NULL;
	TAPAS_CHECK(tapas_rf_fit(&a, X, y, 4, 2, &p, &r1, &cancel) == TAPAS_OK);
	tapas_rf_free(a);
}

static int
cancel_now(void *arg, double fraction)
{
	return fraction >= 0.5;
}

static void
test_rf_cancel(void)
{
	double		X[8] = {1, 0, 2, 1, 3, 0, 4, 1};
	int			y[4] = {0, 1, 0, 1};
	tapas_rf_params_t p;
	tapas_rf_t *a;
	tapas_rng_t r;
	tapas_progress_t cancel = {cancel_now, NULL};
	long		live = tapas_memory_live();

	tapas_rf_params_default(&p);
	tapas_rng_seed(&r, 1);
	TAPAS_CHECK(tapas_rf_fit(&a, X, y, 4, 2, &p, &r, &cancel) == TAPAS_ECANCELED);
	TAPAS_CHECK(a == NULL && tapas_memory_live() == live);
}

/* counts the polls while ranking (fraction < 0) and while growing trees */
typedef struct poll_count
{
	int			ranking;
	int			trees;
	int			cancel_at;		/* cancel at this poll of its phase (0: never) */
	int			cancel_ranking; /* the phase: 1 ranking, 0 trees */
} poll_count;

static int
count_polls(void *arg, double fraction)
{
	poll_count *c = arg;

	if (fraction < 0)
		return ++c->ranking == c->cancel_at && c->cancel_ranking;
	return ++c->trees == c->cancel_at && !c->cancel_ranking;
}

/*
 * A fit polls inside the ranking of its features and inside each tree, not
 * only between trees, so that a cancel acts within the poll interval: with
 * 2 trees, more tree-phase polls than the 2 between trees, and a cancel at
 * the first ranking poll or at a poll inside the first tree stops the fit
 * (ECANCELED, nothing leaked).
 */
static void
test_rf_cancel_inside(void)
{
	size_t		n = 4000,
				d = 300,
				i,
				j;
	double	   *X = malloc(n * d * sizeof(double));
	int		   *y = malloc(n * sizeof(int));
	tapas_rf_params_t p;
	tapas_rf_t *a;
	tapas_rng_t r;
	tapas_progress_t progress;
	poll_count	c;
	long		live = tapas_memory_live();

	TAPAS_CHECK(X != NULL && y != NULL);
	tapas_rng_seed(&r, 7);
	for (i = 0; i < n; i++)
	{
		for (j = 0; j < d; j++)
			X[i * d + j] = (double) tapas_rng_below(&r, 1000);
		y[i] = X[i * d] + X[i * d + 1] > 1000;
	}
	tapas_rf_params_default(&p);
	p.n_trees = 2;
	progress.fn = count_polls;
	progress.arg = &c;

	memset(&c, 0, sizeof(c));
	tapas_rng_seed(&r, 1);
	TAPAS_CHECK(tapas_rf_fit(&a, X, y, n, d, &p, &r, &progress) == TAPAS_OK);
	tapas_rf_free(a);
	TAPAS_CHECK_MSG(c.ranking >= 2, "%d polls while ranking", c.ranking);
	TAPAS_CHECK_MSG(c.trees > 2, "%d polls while growing 2 trees", c.trees);

	memset(&c, 0, sizeof(c));
	c.cancel_at = 1;
	c.cancel_ranking = 1;
	TAPAS_CHECK(tapas_rf_fit(&a, X, y, n, d, &p, &r, &progress) == TAPAS_ECANCELED);
	TAPAS_CHECK(a == NULL && c.trees == 0 && tapas_memory_live() == live);

	/* poll 1 is before the first tree; poll 2 is inside it */
	memset(&c, 0, sizeof(c));
	c.cancel_at = 2;
	TAPAS_CHECK(tapas_rf_fit(&a, X, y, n, d, &p, &r, &progress) == TAPAS_ECANCELED);
	TAPAS_CHECK(a == NULL && c.trees == 2 && tapas_memory_live() == live);
	free(X);
	free(y);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_rf_hand_split);
	TAPAS_TEST_RUN(test_rf_best_feature_and_limits);
	TAPAS_TEST_RUN(test_rf_accuracy_separable);
	TAPAS_TEST_RUN(test_rf_accuracy_noisy);
	TAPAS_TEST_RUN(test_rf_deterministic_and_errors);
	TAPAS_TEST_RUN(test_rf_cancel);
	TAPAS_TEST_RUN(test_rf_cancel_inside);
	TAPAS_TEST_DONE();
}
