/*
 * t-metrics_bootstrap.c
 *	  Unit tests for src/attacks/metrics_bootstrap.c.
 *
 * The counting path (a resample as counts per distinct score) must give
 * exactly, ==, the intervals of the sorting path (every resample sorted
 * by the metric functions), on scores with ties, signed zeros and
 * infinities, at thresholds on and between the scores.
 *
 * Oracles: closed forms and coverage.  Accuracy at a fixed threshold under
 * a stratified resample is (TP* + TN*) / n with TP* ~ Bin(P, tpr) and
 * TN* ~ Bin(N, tnr) independent, so its 95% interval has half-width about
 * 1.96 sqrt(P tpr (1 - tpr) + N tnr (1 - tnr)) / n.  Scores drawn from
 * N(d, 1) for positives and N(0, 1) for negatives have true AUC
 * Phi(d / sqrt 2); over repeated samples the 90% interval must cover it
 * about 90% of the time.  Then the edges: the interval holds the point
 * estimate, perfect separation and n_boot = 0 give width 0, one class
 * only, a fixed seed is reproducible, cancellation.
 */
#include <math.h>

#include "attacks/metrics.h"
#include "attacks/metrics_int.h"
#include "util/memory.h"
#include "util/rng.h"
#include "tapas_test.h"

/* n scores, the first np positive: N(d, 1) for positives, N(0, 1) else */
static void
draw(tapas_rng_t *rng, double *s, unsigned char *y, size_t n, size_t np, double d)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		y[i] = i < np;
		s[i] = tapas_rng_normal(rng) + (y[i] ? d : 0);
	}
}

static int
covers(const tapas_interval_t *iv)
{
	return iv->low <= iv->est && iv->est <= iv->high;
}

static void
test_accuracy_width_closed_form(void)
{
	tapas_rng_t rng;
	double		s[400];
	unsigned char y[400];
	tapas_metrics_ci_t ci;
	tapas_confusion_t c;
	double		tpr,
				tnr,
				half;

	tapas_rng_seed(&rng, tapas_test_seed());
	draw(&rng, s, y, 400, 150, 1.0);
	TAPAS_CHECK(tapas_metrics_bootstrap(s, y, 400, 0.5, 2000, 0.95, 7, NULL, &ci) == TAPAS_OK);
	c = tapas_metrics_confusion(s, y, 400, 0.5);
	tpr = (double) c.tp / 150;
	tnr = (double) c.tn / 250;
	half = 1.959964 * sqrt(150 * tpr * (1 - tpr) + 250 * tnr * (1 - tnr)) / 400;
	TAPAS_CHECK(fabs(ci.accuracy.est - (double) (c.tp + c.tn) / 400) < 1e-15);
	TAPAS_CHECK_MSG(fabs((ci.accuracy.high - ci.accuracy.low) / (2 * half) - 1) < 0.15,
					"width %g, closed form %g", ci.accuracy.high - ci.accuracy.low, 2 * half);
	TAPAS_CHECK(covers(&ci.accuracy) && covers(&ci.auc) && covers(&ci.tpr_at_fpr_01) &&
				covers(&ci.tpr_at_fpr_001));
	TAPAS_CHECK(ci.n_boot == 2000 && ci.level == 0.95);
}

static void
test_auc_coverage(void)
{
	tapas_rng_t rng;
	double		s[120],
				d = 1.0,
				truth = 0.5 * erfc(-d / 2.0);	/* Phi(d / sqrt 2) */
	unsigned char y[120];
	long		r,
				reps = tapas_test_iters(100),
				hit = 0;

	tapas_rng_seed(&rng, tapas_test_seed() + 1);
	for (r = 0; r < reps; r++)
	{
		tapas_metrics_ci_t ci;

		draw(&rng, s, y, 120, 60, d);
		TAPAS_CHECK(tapas_metrics_bootstrap(s, y, 120, 0.5, 200, 0.9, (uint64_t) r, NULL,
											&ci) == TAPAS_OK);
		hit += ci.auc.low <= truth && truth <= ci.auc.high;
		TAPAS_CHECK(covers(&ci.auc) && covers(&ci.accuracy));
		TAPAS_CHECK(ci.auc.low >= 0 && ci.auc.high <= 1 && ci.auc.low < ci.auc.high);
	}
	TAPAS_CHECK_MSG(hit >= 0.8 * reps && hit <= 0.98 * reps,
					"90%% interval covered the true AUC %ld times of %ld", hit, reps);
}

static void
test_edges(void)
{
	double		s[6] = {0.9, 0.8, 0.7, 0.1, 0.2, 0.3},
				t[6] = {1, 1, 1, 1, 1, 1};
	unsigned char y[6] = {1, 1, 1, 0, 0, 0},
				one[6] = {1, 1, 1, 1, 1, 1};
	tapas_metrics_ci_t a,
				b;
	tapas_progress_t cancel = {tapas_test_cancel, NULL};

	/* perfect separation: every resample separates too, width 0 */
	TAPAS_CHECK(tapas_metrics_bootstrap(s, y, 6, 0.5, 500, 0.95, 1, NULL, &a) == TAPAS_OK);
	TAPAS_CHECK(a.accuracy.low == 1 && a.accuracy.high == 1 && a.auc.low == 1 &&
				a.auc.high == 1 && a.tpr_at_fpr_01.low == 1 && a.tpr_at_fpr_01.high == 1);
	/* all scores equal: AUC 1/2 in every resample */
	TAPAS_CHECK(tapas_metrics_bootstrap(t, y, 6, 0.5, 500, 0.95, 1, NULL, &a) == TAPAS_OK);
	TAPAS_CHECK(a.auc.est == 0.5 && a.auc.low == 0.5 && a.auc.high == 0.5);
	TAPAS_CHECK(a.accuracy.est == 0.5 && a.accuracy.low == 0.5 && a.accuracy.high == 0.5);
	/* no resamples: the point estimates */
	TAPAS_CHECK(tapas_metrics_bootstrap(s, y, 6, 0.75, 0, 0.95, 1, NULL, &a) == TAPAS_OK);
	TAPAS_CHECK(a.accuracy.est == 5.0 / 6 && a.accuracy.low == a.accuracy.est &&
				a.accuracy.high == a.accuracy.est && a.n_boot == 0);
	/* one class only: AUC 1/2 by convention, no crash */
	TAPAS_CHECK(tapas_metrics_bootstrap(s, one, 6, 0.5, 100, 0.95, 1, NULL, &a) == TAPAS_OK);
	TAPAS_CHECK(a.auc.low == 0.5 && a.auc.high == 0.5);
	/* a seed fixes the result; another seed may differ but still covers */
	s[0] = 0.15;
	TAPAS_CHECK(tapas_metrics_bootstrap(s, y, 6, 0.5, 200, 0.9, 3, NULL, &a) == TAPAS_OK);
	TAPAS_CHECK(tapas_metrics_bootstrap(s, y, 6, 0.5, 200, 0.9, 3, NULL, &b) == TAPAS_OK);
	TAPAS_CHECK(a.auc.low == b.auc.low && a.auc.high == b.auc.high &&
				a.accuracy.low == b.accuracy.low && a.accuracy.high == b.accuracy.high);
	TAPAS_CHECK(a.auc.low < a.auc.high);
	/* bad arguments, cancellation */
	TAPAS_CHECK(tapas_metrics_bootstrap(s, y, 0, 0.5, 10, 0.95, 1, NULL, &a) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_metrics_bootstrap(s, y, 6, 0.5, 10, 1.0, 1, NULL, &a) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_metrics_bootstrap(s, y, 6, 0.5, 1000, 0.95, 1, &cancel, &a) ==
				TAPAS_ECANCELED);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

static int
same_interval(const tapas_interval_t *a, const tapas_interval_t *b)
{
	return a->low == b->low && a->est == b->est && a->high == b->high;
}

static void
test_groups_same_as_sorting(void)
{
	tapas_rng_t rng;
	double		s[300];
	unsigned char y[300];
	int			rep,
				reps = (int) tapas_test_iters(50);

	tapas_rng_seed(&rng, tapas_test_seed() + 2);
	for (rep = 0; rep < reps; rep++)
	{
		size_t		n = 1 + tapas_rng_below(&rng, 300),
					i;
		int			style = (int) tapas_rng_below(&rng, 4);
		double		tau;
		tapas_metrics_ci_t a,
					b;
		uint64_t	seed = tapas_rng_u64(&rng);

		for (i = 0; i < n; i++)
		{
			y[i] = tapas_rng_below(&rng, 3) == 0;
			switch (style)
			{
				case 0:			/* continuous */
					s[i] = tapas_rng_normal(&rng) + y[i];
					break;
				case 1:			/* few values: ties across the classes */
					s[i] = (double) tapas_rng_below(&rng, 4) / 4;
					break;
				case 2:			/* signed zeros, infinities */
					s[i] = tapas_rng_below(&rng, 2) ? (tapas_rng_below(&rng, 2) ? -0.0 : 0.0) :
						(tapas_rng_below(&rng, 2) ? INFINITY : -INFINITY);
					break;
				default:		/* one value */
					s[i] = 0.5;
			}
		}
		tau = tapas_rng_below(&rng, 2) ? s[tapas_rng_below(&rng, n)] : 0.5;
		tapas_metrics_bootstrap_groups = 1;
		TAPAS_CHECK(tapas_metrics_bootstrap(s, y, n, tau, 200, 0.9, seed, NULL, &a) == TAPAS_OK);
		tapas_metrics_bootstrap_groups = 0;
		TAPAS_CHECK(tapas_metrics_bootstrap(s, y, n, tau, 200, 0.9, seed, NULL, &b) == TAPAS_OK);
		tapas_metrics_bootstrap_groups = 1;
		if (!same_interval(&a.accuracy, &b.accuracy) || !same_interval(&a.auc, &b.auc) ||
			!same_interval(&a.tpr_at_fpr_01, &b.tpr_at_fpr_01) ||
			!same_interval(&a.tpr_at_fpr_001, &b.tpr_at_fpr_001))
		{
			printf("  rep %d: n %zu style %d tau %g differ\n", rep, n, style, tau);
			TAPAS_CHECK(0);
			return;
		}
	}
}

int
main(void)
{
	TAPAS_TEST_RUN(test_groups_same_as_sorting);
	TAPAS_TEST_RUN(test_accuracy_width_closed_form);
	TAPAS_TEST_RUN(test_auc_coverage);
	TAPAS_TEST_RUN(test_edges);
	TAPAS_TEST_DONE();
}
