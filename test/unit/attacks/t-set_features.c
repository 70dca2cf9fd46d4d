/*
 * t-set_features.c
 *	  Unit tests for src/attacks/set_features.c.
 *
 * Oracles: a hand-computed tiny dataset; a dense re-implementation (encode
 * to an n x e matrix, sort for medians, two-pass variance and correlation,
 * direct binning) on random mixed datasets; brute-force query counts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attacks/set_features.h"
#include "attacks/set_features_int.h"
#include "util/memory.h"
#include "tapas_test.h"

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

/* dense oracle of naive + hist + corr, in that order */
static void
oracle(const tapas_coded_schema_t *s, const double *x, size_t n, int n_bins,
	   double lo, double hi, double *out)
{
	size_t		e = s->e,
				a,
				b,
				r,
				j,
				pos;
	double	   *X = calloc(n * e, sizeof(double));
	double	   *col = malloc(n * sizeof(double));
	double	   *mu = malloc(e * sizeof(double));
	double	   *sd = malloc(e * sizeof(double));

	for (r = 0; r < n; r++)
		for (j = 0; j < s->m; j++)
		{
			double		v = x[r * s->m + j];

			if (s->kind[j] == TAPAS_COL_CATEGORICAL)
				X[r * e + s->offset[j] + (size_t) v] = 1.0;
			else
				X[r * e + s->offset[j]] = (v - s->shift[j]) * s->scale[j];
		}
	for (a = 0; a < e; a++)
	{
		double		sum = 0,
					ss = 0;

		for (r = 0; r < n; r++)
			sum += col[r] = X[r * e + a];
		mu[a] = sum / n;
		for (r = 0; r < n; r++)
			ss += (X[r * e + a] - mu[a]) * (X[r * e + a] - mu[a]);
		sd[a] = sqrt(ss / n);
		qsort(col, n, sizeof(double), cmp_double);
		out[a] = mu[a];
		out[e + a] = n % 2 ? col[n / 2] : (col[n / 2 - 1] + col[n / 2]) / 2;
		out[2 * e + a] = ss / n;
	}
	pos = 3 * e;
	for (j = 0; j < s->m; j++)
	{
		if (s->kind[j] == TAPAS_COL_CATEGORICAL)
		{
			for (a = 0; a < (size_t) s->ncat[j]; a++)
				out[pos++] = mu[s->offset[j] + a];
			continue;
		}
		for (a = 0; a < (size_t) n_bins; a++)
		{
			double		c = 0;

			for (r = 0; r < n; r++)
			{
				double		v = X[r * e + s->offset[j]];
				double		blo = lo + (hi - lo) * a / n_bins,
							bhi = lo + (hi - lo) * (a + 1) / n_bins;
				int			in = (v >= blo && v < bhi) ||
					(a == 0 && v < blo) || (a == (size_t) n_bins - 1 && v >= bhi);

				c += in;
			}
			out[pos++] = c / n;
		}
	}
	for (a = 0; a < e; a++)
		for (b = a + 1; b < e; b++)
		{
			double		c = 0;

			for (r = 0; r < n; r++)
				c += (X[r * e + a] - mu[a]) * (X[r * e + b] - mu[b]);
			out[pos++] = sd[a] > 1e-150 && sd[b] > 1e-150 ? c / n / (sd[a] * sd[b]) : 0.0;
		}
	free(X);
	free(col);
	free(mu);
	free(sd);
}

static tapas_setfeat_t *
groundhog(const tapas_coded_schema_t *s, size_t n_max, int n_bins, double lo, double hi)
{
	tapas_setfeat_item_t it[3];
	tapas_setfeat_t *fs = NULL;

	memset(it, 0, sizeof(it));
	it[0].type = TAPAS_SETFEAT_NAIVE;
	it[1].type = TAPAS_SETFEAT_HIST;
	it[1].n_bins = n_bins;
	it[1].lo = lo;
	it[1].hi = hi;
	it[2].type = TAPAS_SETFEAT_CORR;
	tapas_setfeat_create(&fs, s, it, 3, NULL, n_max, NULL);
	return fs;
}

/* 5 records: a categorical column with 3 categories and a numeric one */
static void
test_setfeat_hand(void)
{
	int			kind[2] = {TAPAS_COL_CATEGORICAL, TAPAS_COL_NUMERIC};
	int			ncat[2] = {3, 1};
	double		x[10] = {0, 0.0, 1, 0.5, 1, 1.0, 2, 0.25, 1, 0.75};
	tapas_coded_schema_t *s = tapas_coded_schema_create(2, kind, ncat);
	tapas_setfeat_t *fs = groundhog(s, 5, 2, 0.0, 1.0);
	double		out[64];

	TAPAS_CHECK(s != NULL && s->e == 4 && fs != NULL);
	TAPAS_CHECK(fs->dim == 12 + 5 + 6);
	TAPAS_CHECK(tapas_setfeat_extract(fs, x, 5, out) == TAPAS_OK);
	/* means: 1/5, 3/5, 1/5, 2.5/5 */
	TAPAS_CHECK(fabs(out[0] - 0.2) < 1e-12 && fabs(out[1] - 0.6) < 1e-12);
	TAPAS_CHECK(fabs(out[3] - 0.5) < 1e-12);
	/* medians: 0, 1, 0, 0.5 */
	TAPAS_CHECK(out[4] == 0 && out[5] == 1 && out[6] == 0 && out[7] == 0.5);
	/* variances: p(1-p) = .16, .24, .16; numeric: (.25+0+.25+.0625+.0625)/5 = .125 */
	TAPAS_CHECK(fabs(out[8] - 0.16) < 1e-12 && fabs(out[9] - 0.24) < 1e-12);
	TAPAS_CHECK(fabs(out[11] - 0.125) < 1e-12);
	/* hist: frequencies .2 .6 .2, numeric bins [0,.5) -> 2, [.5,1] -> 3 */
	TAPAS_CHECK(fabs(out[12] - 0.2) < 1e-12 && fabs(out[13] - 0.6) < 1e-12);
	TAPAS_CHECK(fabs(out[15] - 0.4) < 1e-12 && fabs(out[16] - 0.6) < 1e-12);
	/* corr(cat0, cat1) = (0 - .12) / sqrt(.16 * .24) */
	TAPAS_CHECK(fabs(out[17] - (-0.12 / sqrt(0.16 * 0.24))) < 1e-12);
	tapas_setfeat_free(fs);
	tapas_coded_schema_free(s);
}

static void
test_setfeat_vs_dense(void)
{
	tapas_rng_t rng;
	long		it,
				iters = tapas_test_iters(30);

	tapas_rng_seed(&rng, tapas_test_seed());
	for (it = 0; it < iters; it++)
	{
		size_t		m = 1 + tapas_rng_below(&rng, 6),
					n = 1 + tapas_rng_below(&rng, 40),
					j,
					r,
					k;
		int			kind[6],
					ncat[6];
		double	   *x = malloc(n * m * sizeof(double));
		tapas_coded_schema_t *s;
		tapas_setfeat_t *fs;
		double	   *got,
				   *want;

		for (j = 0; j < m; j++)
		{
			kind[j] = tapas_rng_below(&rng, 2) ? TAPAS_COL_CATEGORICAL : TAPAS_COL_NUMERIC;
			ncat[j] = 1 + (int) tapas_rng_below(&rng, 4);
		}
		s = tapas_coded_schema_create(m, kind, ncat);
		for (j = 0; j < m; j++)
			if (kind[j] == TAPAS_COL_NUMERIC)
			{
				s->shift[j] = 10.0;
				s->scale[j] = 0.05;
			}
		for (r = 0; r < n; r++)
			for (j = 0; j < m; j++)
				x[r * m + j] = kind[j] == TAPAS_COL_CATEGORICAL ?
					(double) tapas_rng_below(&rng, ncat[j]) :
					(tapas_rng_below(&rng, 3) ? 8.0 + 24.0 * tapas_rng_uniform(&rng)
					 : 15.0);	/* ties and out-of-bounds values */
		fs = groundhog(s, n, 3, 0.0, 1.0);
		got = malloc(fs->dim * sizeof(double));
		want = malloc(fs->dim * sizeof(double));
		TAPAS_CHECK(tapas_setfeat_extract(fs, x, n, got) == TAPAS_OK);
		oracle(s, x, n, 3, 0.0, 1.0, want);
		for (k = 0; k < fs->dim; k++)
			TAPAS_CHECK_MSG(fabs(got[k] - want[k]) < 1e-9,
							"iter %ld feature %zu: got %g want %g (n %zu m %zu)",
							it, k, got[k], want[k], n, m);
		free(got);
		free(want);
		free(x);
		tapas_setfeat_free(fs);
		tapas_coded_schema_free(s);
	}
}

static int
popcount64(uint64_t v)
{
	int			c = 0;

	for (; v; v &= v - 1)
		c++;
	return c;
}

static void
test_setfeat_queries_brute_force(void)
{
	tapas_rng_t rng;
	size_t		m = 7,
				n = 300,
				r,
				j,
				q;
	int			kind[7],
				ncat[7];
	double		x[300 * 7],
				target[7],
				out[64];
	tapas_coded_schema_t *s;
	tapas_setfeat_item_t it[2];
	tapas_setfeat_t *fs;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (j = 0; j < m; j++)
	{
		kind[j] = TAPAS_COL_CATEGORICAL;
		ncat[j] = 2 + (int) j % 3;
	}
	s = tapas_coded_schema_create(m, kind, ncat);
	for (r = 0; r < n; r++)
		for (j = 0; j < m; j++)
			x[r * m + j] = (double) tapas_rng_below(&rng, ncat[j]);
	memcpy(target, x + 5 * m, sizeof(target));
	memset(it, 0, sizeof(it));
	it[0].type = it[1].type = TAPAS_SETFEAT_QUERIES;
	it[0].order = 2, it[0].number = 10, it[0].seed = 7;
	it[1].order = 3, it[1].number = 30, it[1].seed = 8;
	TAPAS_CHECK(tapas_setfeat_create(&fs, s, it, 2, target, n, NULL) == TAPAS_OK);
	TAPAS_CHECK(fs->dim == 40);
	TAPAS_CHECK(tapas_setfeat_extract(fs, x, n, out) == TAPAS_OK);
	for (q = 0; q < 40; q++)
	{
		uint64_t	mask = q < 10 ? fs->items[0].masks[q] : fs->items[1].masks[q - 10];
		double		c = 0;

		TAPAS_CHECK(popcount64(mask) == (q < 10 ? 2 : 3));
		for (r = 0; r < n; r++)
		{
			int			ok = 1;

			for (j = 0; j < m; j++)
				if ((mask >> j) & 1)
					ok &= x[r * m + j] == target[j];
			c += ok;
		}
		TAPAS_CHECK_MSG(out[q] == c, "query %zu: got %g want %g", q, out[q], c);
		TAPAS_CHECK(out[q] >= 1);	/* the target itself matches */
	}
	tapas_setfeat_free(fs);
	tapas_coded_schema_free(s);
}

/* distinct subsets, min(number, C) of them, deterministic per seed */
static void
test_setfeat_query_draw(void)
{
	int			kind[6] = {1, 1, 1, 1, 1, 1},
				ncat[6] = {2, 2, 2, 2, 2, 2};
	double		target[6] = {0};
	tapas_coded_schema_t *s = tapas_coded_schema_create(6, kind, ncat);
	tapas_setfeat_item_t it;
	tapas_setfeat_t *a,
			   *b;
	size_t		i,
				k;
	int			number[3] = {5, 15, 100};

	TAPAS_CHECK(tapas_setfeat_binomial(6, 3) == 20);
	TAPAS_CHECK(tapas_setfeat_binomial(64, 32) == UINT64_C(1832624140942590534));
	TAPAS_CHECK(tapas_setfeat_binomial(3, 4) == 0);
	for (k = 0; k < 3; k++)
	{
		memset(&it, 0, sizeof(it));
		it.type = TAPAS_SETFEAT_QUERIES;
		it.order = 3;
		it.number = number[k];
		it.seed = 99;
		TAPAS_CHECK(tapas_setfeat_create(&a, s, &it, 1, target, 4, NULL) == TAPAS_OK);
		TAPAS_CHECK(tapas_setfeat_create(&b, s, &it, 1, target, 4, NULL) == TAPAS_OK);
		TAPAS_CHECK(a->dim == (size_t) (number[k] < 20 ? number[k] : 20));
		for (i = 0; i < a->dim; i++)
		{
			size_t		l;

			TAPAS_CHECK(a->items[0].masks[i] == b->items[0].masks[i]);
			TAPAS_CHECK(popcount64(a->items[0].masks[i]) == 3);
			TAPAS_CHECK((a->items[0].masks[i] >> 6) == 0);
			for (l = 0; l < i; l++)
				TAPAS_CHECK(a->items[0].masks[i] != a->items[0].masks[l]);
		}
		tapas_setfeat_free(a);
		tapas_setfeat_free(b);
	}
	tapas_coded_schema_free(s);
}

/*
 * The subset draw holds column indices in 64-entry arrays and queries in
 * 64-bit masks: the kernel itself must refuse more than 64 columns, an
 * order above 64 or above m, whatever its caller checked.
 */
static void
test_setfeat_draw_queries_bounds(void)
{
	const struct
	{
		size_t		m;
		int			order;
		int			number;
		tapas_status expect;
	}			cases[] = {
		{70, 2, 5, TAPAS_EINVAL},	/* sparse draw over 70 columns */
		{70, 69, 5, TAPAS_EINVAL},	/* dense enumeration, order 69 */
		{100, 65, 1000, TAPAS_EINVAL},
		{64, 65, 5, TAPAS_EINVAL},	/* order above m */
		{10, 0, 5, TAPAS_EINVAL},
		{10, 3, 0, TAPAS_EINVAL},
		{64, 64, 5, TAPAS_OK},		/* the largest valid: one mask, all ones */
		{64, 2, 5, TAPAS_OK},
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
	{
		tapas_setfeat_item_t it;
		tapas_status st;

		memset(&it, 0, sizeof(it));
		it.type = TAPAS_SETFEAT_QUERIES;
		it.order = cases[k].order;
		it.number = cases[k].number;
		it.seed = 7;
		st = tapas_setfeat_draw_queries(&it, cases[k].m);
		TAPAS_CHECK_MSG(st == cases[k].expect, "m %zu order %d number %d: status %d",
						cases[k].m, cases[k].order, cases[k].number, st);
		if (st == TAPAS_OK && cases[k].order == 64)
			TAPAS_CHECK(it.dim == 1 && it.masks[0] == UINT64_MAX);
		if (st != TAPAS_OK)
			TAPAS_CHECK(it.masks == NULL);
		tapas_free(it.masks);
	}
}

static void
test_setfeat_errors(void)
{
	int			kind[2] = {1, 0},
				ncat[2] = {2, 1};
	double		target[2] = {0, 0},
				x[2] = {0, 0.5},
				out[32];
	tapas_coded_schema_t *s = tapas_coded_schema_create(2, kind, ncat);
	tapas_setfeat_item_t it;
	tapas_setfeat_t *fs;
	const char *reason = NULL;
	long		live,
				k;
	tapas_status st;

	memset(&it, 0, sizeof(it));
	it.type = TAPAS_SETFEAT_HIST;
	it.n_bins = 0;
	it.lo = 0;
	it.hi = 1;
	TAPAS_CHECK(tapas_setfeat_create(&fs, s, &it, 1, NULL, 4, &reason) == TAPAS_EINVAL);
	TAPAS_CHECK(fs == NULL && reason != NULL);
	it.type = TAPAS_SETFEAT_QUERIES;
	it.order = 1;
	it.number = 3;
	TAPAS_CHECK(tapas_setfeat_create(&fs, s, &it, 1, NULL, 4, &reason) == TAPAS_EINVAL);
	it.order = 3;
	TAPAS_CHECK(tapas_setfeat_create(&fs, s, &it, 1, target, 4, &reason) == TAPAS_EINVAL);
	it.type = 42;
	TAPAS_CHECK(tapas_setfeat_create(&fs, s, &it, 1, target, 4, &reason) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_coded_schema_create(0, NULL, NULL) == NULL);
	ncat[0] = 0;
	TAPAS_CHECK(tapas_coded_schema_create(2, kind, ncat) == NULL);

	/* n outside [1, n_max] */
	it.type = TAPAS_SETFEAT_NAIVE;
	TAPAS_CHECK(tapas_setfeat_create(&fs, s, &it, 1, NULL, 1, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_setfeat_extract(fs, x, 0, out) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_setfeat_extract(fs, x, 2, out) == TAPAS_EINVAL);
	tapas_setfeat_free(fs);

	/* every allocation failure is clean */
	it.type = TAPAS_SETFEAT_QUERIES;
	it.order = 1;
	live = tapas_memory_live();
	for (k = 0; k < 12; k++)
	{
		tapas_memory_fail_after(k);
		st = tapas_setfeat_create(&fs, s, &it, 1, target, 4, NULL);
		tapas_memory_fail_after(-1);
		TAPAS_CHECK(st == TAPAS_OK || st == TAPAS_ENOMEM);
		tapas_setfeat_free(fs);
		TAPAS_CHECK_MSG(tapas_memory_live() == live, "leak after failure %ld", k);
	}
	tapas_coded_schema_free(s);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_setfeat_hand);
	TAPAS_TEST_RUN(test_setfeat_vs_dense);
	TAPAS_TEST_RUN(test_setfeat_queries_brute_force);
	TAPAS_TEST_RUN(test_setfeat_query_draw);
	TAPAS_TEST_RUN(test_setfeat_draw_queries_bounds);
	TAPAS_TEST_RUN(test_setfeat_errors);
	TAPAS_TEST_DONE();
}
