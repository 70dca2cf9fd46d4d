/*
 * b-logistic.c
 *	  Benchmark: tapas's logistic-regression kernel (attacks/logistic.c)
 *	  against liblinear's train() (L2R_LR, the solver it replaces) on the
 *	  same data, in the same process, at the same tolerance (eps 1e-4).
 *
 * Three problems, shaped like the call sites':
 * - set features, typical: 1,000 training datasets x 404 dense features
 *   (naive + hist of census, as in test/system/t-progress.sh), standardised
 *   (tapas: on the fly; liblinear: a standardised copy as sparse nodes, as
 *   set_classifier.c built them), no bias;
 * - set features, large: 4,000 x 2,000 of the same kind;
 * - one-hot predictor: 5,000 rows x 107 one-hot cells (16 columns, one cell
 *   each) plus a bias, sparse, as synthetic_predictor.c builds them.
 * Features are low-rank (10 latent factors) plus noise, with a weak class
 * signal, so the problems are ill-conditioned like real set features.
 * Timed: the fit alone (CPU seconds, median of 3); printed: both times,
 * their ratio, Newton and CG iterations, and the distance between the two
 * coefficient vectors.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <linear.h>

#include "bench.h"
#include "attacks/logistic.h"
#include "util/rng.h"

#define REPS 3

static void
quiet(const char *s)
{
	(void) s;
}

/* low-rank dense features with a weak class signal; labels balanced */
static void
make_dense(tapas_rng_t *rng, size_t n, size_t d, double *X, int *y)
{
	size_t		i,
				j,
				k;
	double	   *B = malloc(10 * d * sizeof(double));

	for (k = 0; k < 10 * d; k++)
		B[k] = tapas_rng_normal(rng);
	for (i = 0; i < n; i++)
	{
		double		f[10];

		y[i] = (int) (i % 2);
		for (k = 0; k < 10; k++)
			f[k] = tapas_rng_normal(rng);
		for (j = 0; j < d; j++)
		{
			double		x = 0.5 * tapas_rng_normal(rng) + (y[i] && j % 7 == 0 ? 0.2 : 0);

			for (k = 0; k < 10; k++)
				x += f[k] * B[k * d + j];
			X[i * d + j] = 3.0 + 2.0 * x;
		}
	}
	free(B);
}

/* column means and 1/sd, as set_classifier.c standardises */
static void
standardise(const double *X, size_t n, size_t d, double *mu, double *inv_sd)
{
	size_t		i,
				j;

	for (j = 0; j < d; j++)
	{
		double		s = 0,
					ss = 0;

		for (i = 0; i < n; i++)
			s += X[i * d + j];
		mu[j] = s / (double) n;
		for (i = 0; i < n; i++)
			ss += (X[i * d + j] - mu[j]) * (X[i * d + j] - mu[j]);
		inv_sd[j] = 1.0 / sqrt(ss / (double) n);
	}
}

typedef struct Case
{
	const char *name;
	tapas_logit_data_t data;
	struct problem prob;
} Case;

static double
time_tapas(const Case *c, double *w, tapas_logit_info_t *info)
{
	double		t[REPS];
	int			r;

	for (r = 0; r < REPS; r++)
	{
		double		t0 = bench_cpu_seconds();

		if (tapas_logit_fit(w, &c->data, 1.0, 1e-4, info, NULL) != TAPAS_OK)
		{
			fprintf(stderr, "tapas_logit_fit failed\n");
			exit(1);
		}
		t[r] = bench_cpu_seconds() - t0;
	}
	return bench_median(t, REPS);
}

static double
time_liblinear(const Case *c, double *w)
{
	struct parameter param;
	double		t[REPS];
	int			r,
				j;

	memset(&param, 0, sizeof(param));
	param.solver_type = L2R_LR;
	param.C = 1.0;
	param.eps = 1e-4;
	for (r = 0; r < REPS; r++)
	{
		double		t0 = bench_cpu_seconds();
		struct model *m = train(&c->prob, &param);

		t[r] = bench_cpu_seconds() - t0;
		for (j = 0; j < c->prob.n; j++)
			w[j] = m->label[0] == 1 ? m->w[j] : -m->w[j];
		free_and_destroy_model(&m);
	}
	return bench_median(t, REPS);
}

static void
run(const Case *c)
{
	size_t		dim = (size_t) c->prob.n,
				j;
	double	   *w = malloc(dim * sizeof(double)),
			   *wl = malloc(dim * sizeof(double)),
				tt,
				tl,
				dd = 0,
				ww = 0;
	tapas_logit_info_t info;

	tt = time_tapas(c, w, &info);
	tl = time_liblinear(c, wl);
	for (j = 0; j < dim; j++)
	{
		dd += (w[j] - wl[j]) * (w[j] - wl[j]);
		ww += w[j] * w[j];
	}
	printf("%-26s tapas %7.3f s (%d Newton, %ld CG)  liblinear %7.3f s  ratio liblinear/tapas %.2f  |w - w_liblinear| %.2g (|w| %.3g)\n",
		   c->name, tt, info.newton, info.cg, tl, tl / tt, sqrt(dd), sqrt(ww));
	free(w);
	free(wl);
}

/* dense set-feature case: tapas standardises on the fly, liblinear gets nodes */
static void
bench_dense(tapas_rng_t *rng, const char *name, size_t n, size_t d)
{
	double	   *X = malloc(n * d * sizeof(double)),
			   *mu = malloc(d * sizeof(double)),
			   *inv_sd = malloc(d * sizeof(double)),
			   *labels = malloc(n * sizeof(double));
	int		   *y = malloc(n * sizeof(int));
	struct feature_node *pool = malloc(n * (d + 1) * sizeof(*pool));
	struct feature_node **rows = malloc(n * sizeof(*rows));
	size_t		i,
				j;
	Case		c;

	make_dense(rng, n, d, X, y);
	standardise(X, n, d, mu, inv_sd);
	for (i = 0; i < n; i++)
	{
		rows[i] = pool + i * (d + 1);
		for (j = 0; j < d; j++)
		{
			rows[i][j].index = (int) j + 1;
			rows[i][j].value = (X[i * d + j] - mu[j]) * inv_sd[j];
		}
		rows[i][d].index = -1;
		labels[i] = y[i];
	}
	memset(&c, 0, sizeof(c));
	c.name = name;
	c.data.n = n;
	c.data.d = d;
	c.data.X = X;
	c.data.shift = mu;
	c.data.scale = inv_sd;
	c.data.y = y;
	c.prob.l = (int) n;
	c.prob.n = (int) d;
	c.prob.y = labels;
	c.prob.x = rows;
	c.prob.bias = -1;
	run(&c);
	free(X);
	free(mu);
	free(inv_sd);
	free(labels);
	free(y);
	free(pool);
	free(rows);
}

/* one-hot case: 16 columns of cardinalities summing to 107, a bias */
static void
bench_onehot(tapas_rng_t *rng, const char *name, size_t n)
{
	enum
	{
		NC = 16
	};
	size_t		card[NC],
				off[NC + 1],
				e,
				i,
				k;
	size_t	   *row_start = malloc((n + 1) * sizeof(size_t));
	uint32_t   *col = malloc(n * NC * sizeof(uint32_t));
	double	   *val = malloc(n * NC * sizeof(double)),
			   *labels = malloc(n * sizeof(double));
	int		   *y = malloc(n * sizeof(int));
	struct feature_node *pool = malloc(n * (NC + 2) * sizeof(*pool));
	struct feature_node **rows = malloc(n * sizeof(*rows));
	Case		c;

	off[0] = 0;
	for (k = 0; k < NC; k++)
	{
		card[k] = k < 11 ? 7 : 6;	/* 11 * 7 + 5 * 6 = 107 */
		off[k + 1] = off[k] + card[k];
	}
	e = off[NC];
	for (i = 0; i < n; i++)
	{
		/* the label leans on column 0's first cells */
		size_t		c0 = tapas_rng_below(rng, card[0]);

		y[i] = tapas_rng_uniform(rng) < (c0 < 3 ? 0.8 : 0.3);
		row_start[i] = i * NC;
		rows[i] = pool + i * (NC + 2);
		for (k = 0; k < NC; k++)
		{
			size_t		v = k == 0 ? c0 : tapas_rng_below(rng, card[k]);

			col[i * NC + k] = (uint32_t) (off[k] + v);
			val[i * NC + k] = 1.0;
			rows[i][k].index = (int) (off[k] + v) + 1;
			rows[i][k].value = 1.0;
		}
		rows[i][NC].index = (int) e + 1;
		rows[i][NC].value = 1.0;
		rows[i][NC + 1].index = -1;
		labels[i] = y[i];
	}
	row_start[n] = n * NC;
	memset(&c, 0, sizeof(c));
	c.name = name;
	c.data.n = n;
	c.data.d = e;
	c.data.row_start = row_start;
	c.data.col = col;
	c.data.val = val;
	c.data.y = y;
	c.data.bias = 1.0;
	c.prob.l = (int) n;
	c.prob.n = (int) e + 1;
	c.prob.y = labels;
	c.prob.x = rows;
	c.prob.bias = 1.0;
	run(&c);
	free(row_start);
	free(col);
	free(val);
	free(labels);
	free(y);
	free(pool);
	free(rows);
}

int
main(void)
{
	tapas_rng_t rng;

	set_print_string_function(quiet);
	openblas_set_num_threads(1);	/* as in the server (src/tapas.c) */
	tapas_rng_seed(&rng, 13);
	bench_dense(&rng, "set features 1000 x 404", 1000, 404);
	bench_dense(&rng, "set features 4000 x 2000", 4000, 2000);
	bench_onehot(&rng, "one-hot 5000 x 107 + bias", 5000);
	return 0;
}
