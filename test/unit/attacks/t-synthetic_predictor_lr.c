/*
 * t-synthetic_predictor_lr.c
 *	  The logistic SyntheticPredictor (synthetic_predictor.c) against
 *	  liblinear, the library it used before tapas 0.3 had its own fit.
 *
 * Oracle: liblinear's train() (L2R_LR, C, bias node 1 appended, eps 1e-8:
 * its minimiser to rounding) and predict_probability, built as
 * synthetic_predictor.c built them before, on random categorical data with
 * two classes and with four (one code absent).  Tolerance, derived: each
 * tapas model stops at ||grad|| <= 1e-4 * 1/2 * ||grad f(0)|| (logistic.h;
 * min(n+, n-)/n <= 1/2) and ||grad f(0)|| <= C/2 * n * max ||x_i||, so by
 * 1-strong convexity its weights are within B = 1e-4 * C/4 * n * max||x_i||
 * of liblinear's and each decision value within delta = ||x_t|| * B.  log
 * sigma is 1-Lipschitz and the normalisation divides by a sum whose log
 * moves by at most max delta, so |log p - log p_liblinear| <= 2 delta.
 * Also printed: how far liblinear at its old eps = 0.01 was from the same
 * minimiser (the change of tapas's scores in 0.3).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linear.h>

#include "attacks/dataset.h"
#include "attacks/score_attacks.h"
#include "util/memory.h"
#include "util/rng.h"
#include "tapas_test.h"

#define NROWS 300

static void
quiet(const char *s)
{
	(void) s;
}

/* columns a (cat 5), b (cat 3), z (continuous), s (cat k): s leans on a, b */
static tapas_dataset_t *
random_dataset(tapas_rng_t *rng, size_t k, size_t present)
{
	tapas_column_spec_t specs[4] = {
		{TAPAS_COLUMN_CATEGORICAL, 5, 0, 0},
		{TAPAS_COLUMN_CATEGORICAL, 3, 0, 0},
		{TAPAS_COLUMN_CONTINUOUS, 0, 0, 1},
		{TAPAS_COLUMN_CATEGORICAL, 0, 0, 0},
	};
	tapas_dataset_t *ds;
	size_t		i;

	specs[3].cardinality = k;
	ds = tapas_dataset_create(NROWS, 4, specs);
	for (i = 0; i < NROWS; i++)
	{
		double	   *r = ds->values + 4 * i;

		r[0] = (double) tapas_rng_below(rng, 5);
		r[1] = (double) tapas_rng_below(rng, 3);
		r[2] = tapas_rng_uniform(rng);
		r[3] = tapas_rng_uniform(rng) < 0.6 ? (double) (((size_t) r[0] + (size_t) r[1]) % present)
			: (double) tapas_rng_below(rng, present);
	}
	tapas_dataset_encode(ds);
	return ds;
}

/* nodes of one encoded row as the liblinear predictor built them */
static void
nodes_of(const tapas_dataset_t *ds, const double *enc, struct feature_node *x)
{
	size_t		e = ds->encoded_dim,
				lo = ds->offset[3],
				j,
				w = 0;

	for (j = 0; j < e; j++)
		if ((j < lo || j >= lo + ds->width[3]) && enc[j] != 0)
		{
			x[w].index = (int) j + 1;
			x[w++].value = enc[j];
		}
	x[w].index = (int) e + 1;
	x[w++].value = 1.0;
	x[w].index = -1;
}

/* liblinear's scores (k per target) for the m targets */
static void
liblinear_scores(const tapas_dataset_t *ds, double C, double eps,
				 const double *tenc, size_t m, double *scores)
{
	size_t		e = ds->encoded_dim,
				k = ds->cols[3].cardinality,
				i;
	struct feature_node *pool = malloc((NROWS + 1) * (e + 2) * sizeof(*pool));
	struct feature_node *rows[NROWS];
	double		y[NROWS],
				prob[8];
	int			labels[8],
				l;
	struct problem p;
	struct parameter par;
	struct model *model;

	for (i = 0; i < NROWS; i++)
	{
		rows[i] = pool + i * (e + 2);
		nodes_of(ds, ds->encoded + i * e, rows[i]);
		y[i] = ds->values[4 * i + 3];
	}
	memset(&p, 0, sizeof(p));
	p.l = NROWS;
	p.n = (int) e + 1;
	p.y = y;
	p.x = rows;
	p.bias = 1.0;
	memset(&par, 0, sizeof(par));
	par.solver_type = L2R_LR;
	par.C = C;
	par.eps = eps;
	set_print_string_function(quiet);
	model = train(&p, &par);
	get_labels(model, labels);
	for (i = 0; i < m; i++)
	{
		struct feature_node *x = pool + NROWS * (e + 2);

		nodes_of(ds, tenc + i * e, x);
		predict_probability(model, x, prob);
		memset(scores + i * k, 0, k * sizeof(double));
		for (l = 0; l < get_nr_class(model); l++)
			scores[i * k + (size_t) labels[l]] = prob[l];
	}
	free_and_destroy_model(&model);
	free(pool);
}

static void
compare(size_t k, size_t present, double C)
{
	tapas_rng_t rng;
	tapas_dataset_t *ds;
	size_t		m = 40,
				i,
				j,
				e;
	double	   *tenc,
			   *st,
			   *sl,
			   *sold,
				xmax = 0,
				worst = 0,
				old = 0;

	tapas_rng_seed(&rng, tapas_test_seed() + k * 10 + present);
	ds = random_dataset(&rng, k, present);
	e = ds->encoded_dim;
	tenc = malloc(m * e * sizeof(double));
	st = malloc(m * k * sizeof(double));
	sl = malloc(m * k * sizeof(double));
	sold = malloc(m * k * sizeof(double));
	for (i = 0; i < m; i++)
		memcpy(tenc + i * e, ds->encoded + i * e, e * sizeof(double));
	/* ||x|| over the features the model sees (s's block skipped), bias included */
	for (i = 0; i < NROWS; i++)
	{
		double		s = 1;

		for (j = 0; j < e; j++)
			if (j < ds->offset[3] || j >= ds->offset[3] + ds->width[3])
				s += ds->encoded[i * e + j] * ds->encoded[i * e + j];
		xmax = fmax(xmax, sqrt(s));
	}
	TAPAS_CHECK(tapas_synthetic_predictor_aia(ds, 3, C, tenc, m, st, NULL) == TAPAS_OK);
	liblinear_scores(ds, C, 1e-8, tenc, m, sl);
	liblinear_scores(ds, C, 0.01, tenc, m, sold);
	for (i = 0; i < m * k; i++)
	{
		/* targets are synthetic rows: their ||x|| <= xmax too */
		double		delta = xmax * 1e-4 * C / 4 * NROWS * xmax,
					lim = (exp(2 * delta) - 1) * fmax(st[i], sl[i]) + 1e-12;

		TAPAS_CHECK_MSG(fabs(st[i] - sl[i]) <= lim, "k %zu score %zu: tapas %.9g liblinear %.9g (bound %g)",
						k, i, st[i], sl[i], lim);
		worst = fmax(worst, fabs(st[i] - sl[i]));
		old = fmax(old, fabs(sold[i] - sl[i]));
		if (i % k >= present)
			TAPAS_CHECK(st[i] == 0);
	}
	printf("   %zu classes (%zu present), C %g: max |p - p_liblinear(1e-8)| %.2g; liblinear at eps 0.01 was %.2g off\n",
		   k, present, C, worst, old);
	free(tenc);
	free(st);
	free(sl);
	free(sold);
	tapas_dataset_free(ds);
}

static void
test_predictor_binary_vs_liblinear(void)
{
	compare(2, 2, 1.0);
	compare(2, 2, 20.0);
}

static void
test_predictor_multiclass_vs_liblinear(void)
{
	compare(5, 4, 1.0);
	compare(5, 4, 20.0);
}

static void
test_predictor_enomem(void)
{
	tapas_rng_t rng;
	tapas_dataset_t *ds;
	double		sc[5 * 3];
	long		live,
				k;
	tapas_status st;

	tapas_rng_seed(&rng, tapas_test_seed());
	ds = random_dataset(&rng, 5, 4);
	live = tapas_memory_live();
	for (k = 0; k < 80; k++)
	{
		tapas_memory_fail_after(k);
		st = tapas_synthetic_predictor_aia(ds, 3, 1.0, ds->encoded, 3, sc, NULL);
		tapas_memory_fail_after(-1);
		TAPAS_CHECK(st == TAPAS_OK || st == TAPAS_ENOMEM);
		TAPAS_CHECK_MSG(tapas_memory_live() == live, "leak after failure %ld", k);
	}
	TAPAS_CHECK(st == TAPAS_OK);
	tapas_dataset_free(ds);
}

/* records the fractions it is polled with; cancels at call number *arg */
typedef struct Poll
{
	int			calls;
	int			cancel_at;		/* -1: never */
	double		last;
	int			backwards;		/* a fraction below the previous one */
	int			outside;		/* a fraction outside [0, 1] */
} Poll;

static int
poll_record(void *arg, double fraction)
{
	Poll	   *p = (Poll *) arg;

	p->backwards |= fraction < p->last;
	p->outside |= !(fraction >= 0 && fraction <= 1);
	p->last = fraction;
	return ++p->calls == p->cancel_at;
}

/*
 * The fit polls progress: with fractions of the models done, rising from 0
 * to 1 over the one-vs-rest models, and the same scores as without it;
 * a cancel at any poll returns TAPAS_ECANCELED and frees everything.
 */
static void
test_predictor_progress_and_cancel(void)
{
	tapas_rng_t rng;
	tapas_dataset_t *ds;
	double		a[5 * 3],
				b[5 * 3];
	Poll		p = {0, -1, 0, 0, 0};
	tapas_progress_t progress = {poll_record, &p};
	tapas_progress_t cancel = {tapas_test_cancel, NULL};
	long		live;
	int			calls,
				k;

	tapas_rng_seed(&rng, tapas_test_seed() + 5);
	ds = random_dataset(&rng, 5, 4);
	TAPAS_CHECK(tapas_synthetic_predictor_aia(ds, 3, 1.0, ds->encoded, 3, a, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_synthetic_predictor_aia(ds, 3, 1.0, ds->encoded, 3, b, &progress) == TAPAS_OK);
	TAPAS_CHECK(memcmp(a, b, sizeof(a)) == 0);
	TAPAS_CHECK_MSG(p.calls >= 8, "polled %d times over 4 models", p.calls);
	TAPAS_CHECK(!p.backwards && !p.outside);
	TAPAS_CHECK_MSG(p.last == 1.0, "last fraction %g", p.last);
	calls = p.calls;
	live = tapas_memory_live();
	TAPAS_CHECK(tapas_synthetic_predictor_aia(ds, 3, 1.0, ds->encoded, 3, b, &cancel) == TAPAS_ECANCELED);
	for (k = 1; k <= calls; k++)
	{
		Poll		q = {0, k, 0, 0, 0};
		tapas_progress_t at = {poll_record, &q};

		TAPAS_CHECK_MSG(tapas_synthetic_predictor_aia(ds, 3, 1.0, ds->encoded, 3, b, &at) ==
						TAPAS_ECANCELED, "cancel at poll %d", k);
	}
	TAPAS_CHECK_MSG(tapas_memory_live() == live, "leak after a cancel");
	tapas_dataset_free(ds);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_predictor_progress_and_cancel);
	TAPAS_TEST_RUN(test_predictor_binary_vs_liblinear);
	TAPAS_TEST_RUN(test_predictor_multiclass_vs_liblinear);
	TAPAS_TEST_RUN(test_predictor_enomem);
	TAPAS_TEST_DONE();
}
