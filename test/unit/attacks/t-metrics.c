/*
 * t-metrics.c
 *	  Unit tests for src/attacks/metrics.c, threshold.c and epsilon.c.
 *
 * Oracles: hand-computed ROC/AUC/threshold cases with ties, brute-force
 * pairwise AUC on random scores, published Clopper-Pearson values, and the
 * closed forms of the bounds at k = 0 and k = m.
 */
#include <math.h>

#include "attacks/metrics.h"
#include "util/memory.h"
#include "util/rng.h"
#include "tapas_test.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

/* scores {0.9, 0.8, 0.8, 0.3, 0.1}, labels {1, 1, 0, 0, 1} (see header) */
static const double S5[5] = {0.9, 0.8, 0.8, 0.3, 0.1};
static const unsigned char Y5[5] = {1, 1, 0, 0, 1};

static void
test_roc_hand(void)
{
	double	   *f,
			   *t,
			   *h;
	size_t		np;
	double		ef[5] = {0, 0, 0.5, 1, 1},
				et[5] = {0, 1.0 / 3, 2.0 / 3, 2.0 / 3, 1};
	size_t		k;

	TAPAS_CHECK(tapas_metrics_roc(S5, Y5, 5, &f, &t, &h, &np) == TAPAS_OK);
	TAPAS_CHECK(np == 5);
	for (k = 0; k < 5 && np == 5; k++)
		TAPAS_CHECK_MSG(NEAR(f[k], ef[k], 1e-12) && NEAR(t[k], et[k], 1e-12),
						"point %zu: (%g, %g)", k, f[k], t[k]);
	TAPAS_CHECK(isinf(h[0]) && h[1] == 0.9 && h[4] == 0.1);
	tapas_free(f);
	tapas_free(t);
	tapas_free(h);
}

static void
test_auc_hand_and_ties(void)
{
	double		auc;
	double		tied[4] = {1, 1, 1, 1};
	unsigned char ty[4] = {1, 0, 1, 0};
	unsigned char one[4] = {1, 1, 1, 1};

	TAPAS_CHECK(tapas_metrics_auc(S5, Y5, 5, &auc) == TAPAS_OK);
	TAPAS_CHECK_MSG(NEAR(auc, 3.5 / 6, 1e-12), "auc %g", auc);
	tapas_metrics_auc(tied, ty, 4, &auc);
	TAPAS_CHECK(NEAR(auc, 0.5, 1e-12));
	tapas_metrics_auc(tied, one, 4, &auc);
	TAPAS_CHECK(auc == 0.5);
}

/* AUC against the O(n^2) pairwise count on random integer scores (ties) */
static void
test_auc_random(void)
{
	tapas_rng_t rng;
	long		iters = tapas_test_iters(200),
				it;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (it = 0; it < iters; it++)
	{
		double		s[40],
					auc,
					num = 0;
		unsigned char y[40];
		size_t		n = 2 + tapas_rng_below(&rng, 39),
					i,
					j,
					P = 0;

		for (i = 0; i < n; i++)
		{
			s[i] = (double) tapas_rng_below(&rng, 6);
			y[i] = (unsigned char) tapas_rng_below(&rng, 2);
			P += y[i];
		}
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				if (y[i] && !y[j])
					num += s[i] > s[j] ? 1 : (s[i] == s[j] ? 0.5 : 0);
		tapas_metrics_auc(s, y, n, &auc);
		if (P == 0 || P == n)
			TAPAS_CHECK(auc == 0.5);
		else
			TAPAS_CHECK_MSG(NEAR(auc, num / ((double) P * (n - P)), 1e-12),
							"iter %ld", it);
	}
}

static void
test_threshold_select_hand(void)
{
	double		tau;

	tapas_threshold_select(S5, Y5, 5, TAPAS_CRITERION_ACCURACY, 0, &tau);
	TAPAS_CHECK_MSG(NEAR(tau, 0.85, 1e-12), "accuracy tau %g", tau);
	tapas_threshold_select(S5, Y5, 5, TAPAS_CRITERION_TPR, 0.6, &tau);
	TAPAS_CHECK_MSG(NEAR(tau, 0.55, 1e-12), "tpr tau %g", tau);
	tapas_threshold_select(S5, Y5, 5, TAPAS_CRITERION_FPR, 0.5, &tau);
	TAPAS_CHECK(NEAR(tau, 0.55, 1e-12));
	tapas_threshold_select(S5, Y5, 5, TAPAS_CRITERION_FPR, 1.0, &tau);
	TAPAS_CHECK_MSG(tau == 0.1, "fpr 1 tau %g", tau);
	tapas_threshold_select(S5, Y5, 5, TAPAS_CRITERION_FPR, 0.0, &tau);
	TAPAS_CHECK_MSG(NEAR(tau, 0.85, 1e-12), "fpr 0 tau %g", tau);
	tapas_threshold_select(S5, Y5, 5, TAPAS_CRITERION_TPR, 0.0, &tau);
	TAPAS_CHECK(isinf(tau) && tau > 0);
	tapas_threshold_select(S5, Y5, 5, TAPAS_CRITERION_THRESHOLD, 0.3, &tau);
	TAPAS_CHECK(tau == 0.3);
	TAPAS_CHECK(tapas_threshold_select(S5, Y5, 5, TAPAS_CRITERION_TPR, 1.5,
									   &tau) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_threshold_select(S5, Y5, 0, TAPAS_CRITERION_ACCURACY, 0,
									   &tau) == TAPAS_EINVAL);
}

/* the accuracy threshold maximises TPR - FPR over every achievable decision */
static void
test_threshold_accuracy_random(void)
{
	tapas_rng_t rng;
	long		iters = tapas_test_iters(200),
				it;

	tapas_rng_seed(&rng, tapas_test_seed() + 1);
	for (it = 0; it < iters; it++)
	{
		double		s[30],
					tau,
					best = 0,
					got;
		unsigned char y[30];
		size_t		n = 1 + tapas_rng_below(&rng, 30),
					i,
					P = 0;
		tapas_confusion_t cm;

		for (i = 0; i < n; i++)
		{
			s[i] = (double) tapas_rng_below(&rng, 8) / 4.0;
			y[i] = (unsigned char) tapas_rng_below(&rng, 2);
			P += y[i];
		}
		for (i = 0; i < n; i++)
		{
			cm = tapas_metrics_confusion(s, y, n, s[i]);
			got = (P ? (double) cm.tp / P : 0) - (n - P ? (double) cm.fp / (n - P) : 0);
			best = got > best ? got : best;
		}
		tapas_threshold_select(s, y, n, TAPAS_CRITERION_ACCURACY, 0, &tau);
		cm = tapas_metrics_confusion(s, y, n, tau);
		got = (P ? (double) cm.tp / P : 0) - (n - P ? (double) cm.fp / (n - P) : 0);
		TAPAS_CHECK_MSG(NEAR(got, best, 1e-12), "iter %ld: %g vs %g", it, got, best);
	}
}

static void
test_tpr_at_fpr(void)
{
	double		t;

	tapas_metrics_tpr_at_fpr(S5, Y5, 5, 0.1, &t);
	TAPAS_CHECK(NEAR(t, 1.0 / 3, 1e-12));
	tapas_metrics_tpr_at_fpr(S5, Y5, 5, 0.5, &t);
	TAPAS_CHECK(NEAR(t, 2.0 / 3, 1e-12));
}

static void
test_clopper_pearson_known(void)
{
	/* two-sided 95% intervals (R binom.test): one-sided bounds at 0.975 */
	TAPAS_CHECK(NEAR(tapas_clopper_pearson_lower(5, 10, 0.975), 0.1870860, 1e-6));
	TAPAS_CHECK(NEAR(tapas_clopper_pearson_upper(5, 10, 0.975), 0.8129140, 1e-6));
	TAPAS_CHECK(NEAR(tapas_clopper_pearson_upper(0, 10, 0.975), 0.3084971, 1e-6));
	TAPAS_CHECK(NEAR(tapas_clopper_pearson_lower(1, 10, 0.975), 0.0025286, 1e-6));
	TAPAS_CHECK(NEAR(tapas_clopper_pearson_upper(1, 10, 0.975), 0.4450161, 1e-6));
	TAPAS_CHECK(tapas_clopper_pearson_lower(0, 10, 0.9) == 0);
	TAPAS_CHECK(tapas_clopper_pearson_upper(10, 10, 0.9) == 1);
	/* closed forms at the extremes */
	TAPAS_CHECK(NEAR(tapas_clopper_pearson_lower(20, 20, 0.95), pow(0.05, 1.0 / 20), 1e-9));
	TAPAS_CHECK(NEAR(tapas_clopper_pearson_upper(0, 20, 0.95), 1 - pow(0.05, 1.0 / 20), 1e-9));
	TAPAS_CHECK(NEAR(tapas_incomplete_beta(2, 3, 0.5), 11.0 / 16, 1e-12));
}

static void
test_epsilon_lower_separated(void)
{
	double		s[100],
				expect,
				c1 = 1 - 0.05 / 4;
	unsigned char y[100];
	size_t		i;

	for (i = 0; i < 100; i++)
	{
		y[i] = i < 50;
		s[i] = y[i] ? 1.0 : 0.0;
	}
	expect = log(pow(1 - c1, 1.0 / 50) / (1 - pow(1 - c1, 1.0 / 50)));
	TAPAS_CHECK(NEAR(tapas_metrics_epsilon_lower(s, y, 100, 0.5, 0.95), expect, 1e-7));
	/* a useless threshold proves nothing */
	TAPAS_CHECK(tapas_metrics_epsilon_lower(s, y, 100, -1, 0.95) == 0);
}

static void
test_effective_epsilon_point(void)
{
	double		s[100],
				eps;
	unsigned char y[100];
	size_t		i;

	for (i = 0; i < 100; i++)
	{
		y[i] = i % 2;
		s[i] = (double) y[i];
	}
	tapas_metrics_effective_epsilon(s, y, 100, &eps);
	TAPAS_CHECK(isinf(eps));
	for (i = 0; i < 100; i++)
		s[i] = 7;
	tapas_metrics_effective_epsilon(s, y, 100, &eps);
	TAPAS_CHECK(eps == 0);
}

static void
test_epsilon_split(void)
{
	double		s[200],
				eps,
				tau;
	unsigned char y[200];
	int			inv;
	size_t		i;

	for (i = 0; i < 200; i++)
	{
		y[i] = i % 2;
		s[i] = y[i] ? -1.0 : 1.0;	/* inverted scores */
	}
	TAPAS_CHECK(tapas_metrics_epsilon_split(s, y, 200, 0.1, 0.95, &eps, &tau,
											&inv) == TAPAS_OK);
	TAPAS_CHECK_MSG(eps > 2 && inv == 1, "eps %g inv %d tau %g", eps, inv, tau);
	TAPAS_CHECK(tapas_metrics_epsilon_split(s, y, 200, 1.0, 0.95, &eps, NULL,
											NULL) == TAPAS_EINVAL);
}

static void
test_compute(void)
{
	tapas_metrics_t m;

	TAPAS_CHECK(tapas_metrics_compute(S5, Y5, 5, NAN, 0.95, &m) == TAPAS_OK);
	TAPAS_CHECK(NEAR(m.threshold, 0.85, 1e-12));
	TAPAS_CHECK(NEAR(m.accuracy, 0.6, 1e-12) && NEAR(m.tpr, 1.0 / 3, 1e-12) &&
				m.fpr == 0 && NEAR(m.advantage, 1.0 / 3, 1e-12));
	TAPAS_CHECK(NEAR(m.auc, 3.5 / 6, 1e-12) && m.n_pos == 3 && m.n_neg == 2);
	tapas_metrics_compute(S5, Y5, 5, 0.3, 0.95, &m);
	TAPAS_CHECK(NEAR(m.accuracy, 0.4, 1e-12) && NEAR(m.fpr, 1, 1e-12));
	TAPAS_CHECK(tapas_metrics_compute(S5, Y5, 0, 0.3, 0.95, &m) == TAPAS_EINVAL);
}

/* allocation failures: ENOMEM, never a leak, and OK once enough succeed */
static void
test_allocation_failures(void)
{
	tapas_metrics_t m;
	double	   *f,
			   *t,
			   *h,
				tau;
	size_t		np;
	long		k;
	tapas_status st;

	for (k = 0; k < 40; k++)
	{
		tapas_memory_fail_after(k);
		st = tapas_metrics_compute(S5, Y5, 5, NAN, 0.95, &m);
		tapas_memory_fail_after(-1);
		TAPAS_CHECK(st == TAPAS_OK || st == TAPAS_ENOMEM);
		TAPAS_CHECK(st == TAPAS_ENOMEM || NEAR(m.auc, 3.5 / 6, 1e-12));
		tapas_memory_fail_after(k);
		st = tapas_metrics_roc(S5, Y5, 5, &f, &t, &h, &np);
		tapas_memory_fail_after(-1);
		if (st == TAPAS_OK)
		{
			tapas_free(f);
			tapas_free(t);
			tapas_free(h);
		}
		tapas_memory_fail_after(k);
		st = tapas_threshold_select(S5, Y5, 5, TAPAS_CRITERION_FPR, 0.5, &tau);
		tapas_memory_fail_after(-1);
		TAPAS_CHECK(st == TAPAS_ENOMEM || NEAR(tau, 0.55, 1e-12));
	}
	TAPAS_CHECK(tapas_memory_live() == 0);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_roc_hand);
	TAPAS_TEST_RUN(test_auc_hand_and_ties);
	TAPAS_TEST_RUN(test_auc_random);
	TAPAS_TEST_RUN(test_threshold_select_hand);
	TAPAS_TEST_RUN(test_threshold_accuracy_random);
	TAPAS_TEST_RUN(test_tpr_at_fpr);
	TAPAS_TEST_RUN(test_clopper_pearson_known);
	TAPAS_TEST_RUN(test_epsilon_lower_separated);
	TAPAS_TEST_RUN(test_effective_epsilon_point);
	TAPAS_TEST_RUN(test_epsilon_split);
	TAPAS_TEST_RUN(test_compute);
	TAPAS_TEST_RUN(test_allocation_failures);
	TAPAS_TEST_DONE();
}
