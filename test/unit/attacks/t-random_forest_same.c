/*
 * t-random_forest_same.c
 *	  The optimised split search (src/attacks/rf_split.c: rank buckets or
 *	  key sort, constant features before sorting, perfect splits) grows
 *	  exactly the trees of the straightforward one.
 *
 * Oracle: the forest as it was before (rf_reference.h, the float sort of
 * every drawn feature), fitted on the same data from the same seed.  Every
 * tree must have the same nodes: feature, children, threshold and leaf
 * probability, compared with ==.  The inputs mix what changes the paths:
 * ranks or float keys (tapas_rf_rank_max_n), ties (few distinct values),
 * constant features, -0 and +0, negative and
 * huge values, adjacent floats, tiny nodes (perfect splits), bootstrap or
 * not, min_samples_leaf, max_depth; and a NaN (the float-sort fallback).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attacks/rf_int.h"
#include "rf_reference.h"
#include "tapas_test.h"

/* same forest, node for node; *why on the first difference */
static int
same_forest(const tapas_rf_t *a, const tapas_rf_t *b, const char **why)
{
	size_t		t,
				k;

	if (a->n_trees != b->n_trees || a->d != b->d)
	{
		*why = "forest shape";
		return 0;
	}
	for (t = 0; t < a->n_trees; t++)
	{
		const tapas_rf_tree_t *ta = &a->trees[t],
				   *tb = &b->trees[t];

		if (ta->n_nodes != tb->n_nodes)
		{
			*why = "number of nodes";
			return 0;
		}
		for (k = 0; k < ta->n_nodes; k++)
		{
			const tapas_rf_node_t *na = &ta->nodes[k],
					   *nb = &tb->nodes[k];

			if (na->feature != nb->feature || na->left != nb->left ||
				na->right != nb->right || na->p1 != nb->p1 ||
				(na->feature >= 0 && na->threshold != nb->threshold))
			{
				*why = "a node";
				return 0;
			}
		}
	}
	return 1;
}

/* one random value of a column of the given style */
static double
draw_value(tapas_rng_t *rng, int style, double base)
{
	double		u = (double) tapas_rng_below(rng, 1u << 30) / (double) (1u << 30);

	switch (style)
	{
		case 0:				/* continuous */
			return u;
		case 1:				/* few distinct values: ties */
			return (double) tapas_rng_below(rng, 3) / 2.0;
		case 2:				/* constant */
			return base;
		case 3:				/* signed zeros and small integers */
			return tapas_rng_below(rng, 2) ? (tapas_rng_below(rng, 2) ? -0.0 : 0.0) :
				(double) tapas_rng_below(rng, 5) - 2.0;
		case 4:				/* negative and huge */
			return (u - 0.5) * 1e30;
		case 5:				/* adjacent floats */
			return (double) nextafterf(1.0f, 2.0f * (float) tapas_rng_below(rng, 2));
		default:				/* correlations near 1 and -1 */
			return tapas_rng_below(rng, 2) ? 1.0 - u * 1e-6 : -1.0 + u * 1e-6;
	}
}

/* fits both forests on one random problem; returns 1 if they agree */
static int
one_problem(tapas_rng_t *rng, int with_nan, const char **why)
{
	size_t		n = 1 + tapas_rng_below(rng, 160),
				d = 1 + tapas_rng_below(rng, 40),
				i,
				j;
	double	   *X = malloc(n * d * sizeof(double));
	int		   *y = malloc(n * sizeof(int));
	int		   *style = malloc(d * sizeof(int));
	tapas_rf_params_t p;
	tapas_rf_t *a = NULL,
			   *b = NULL;
	tapas_rng_t ra,
				rb;
	uint64_t	seed = tapas_rng_u64(rng);
	tapas_status sa,
				sb;
	int			ok;

	for (j = 0; j < d; j++)
		style[j] = (int) tapas_rng_below(rng, 7);
	for (i = 0; i < n; i++)
	{
		y[i] = (int) tapas_rng_below(rng, 2);
		for (j = 0; j < d; j++)
			X[i * d + j] = draw_value(rng, style[j], (double) j);
		/* an informative column now and then: short perfect splits */
		if (d > 1 && style[0] == 0)
			X[i * d] = y[i] + 0.1 * X[i * d];
	}
	if (with_nan)
		X[tapas_rng_below(rng, n) * d + tapas_rng_below(rng, d)] = NAN;
	tapas_rf_params_default(&p);
	p.n_trees = 1 + (int) tapas_rng_below(rng, 4);
	p.bootstrap = (int) tapas_rng_below(rng, 2);
	p.max_features = (int) tapas_rng_below(rng, d + 1);
	p.min_samples_leaf = 1 + (int) tapas_rng_below(rng, 3);
	p.min_samples_split = 2 + (int) tapas_rng_below(rng, 3);
	p.max_depth = (int) tapas_rng_below(rng, 6);
	tapas_rng_seed(&ra, seed);
	tapas_rng_seed(&rb, seed);
	sa = tapas_rf_fit(&a, X, y, n, d, &p, &ra, NULL);
	sb = ref_rf_fit(&b, X, y, n, d, &p, &rb, NULL);
	*why = "status";
	ok = sa == sb && (sa != TAPAS_OK || same_forest(a, b, why));
	/* the random streams advanced alike */
	if (ok && tapas_rng_u64(&ra) != tapas_rng_u64(&rb))
	{
		*why = "random stream";
		ok = 0;
	}
	if (ok && sa == TAPAS_OK)
	{
		/* the float matrix (tapas_rf_fit_float): the same forest, the same predictions */
		float	   *Xf = malloc(n * d * sizeof(float));
		tapas_rf_t *c = NULL;
		tapas_rng_t rc;

		for (i = 0; i < n * d; i++)
			Xf[i] = (float) X[i];
		tapas_rng_seed(&rc, seed);
		*why = "float matrix: status";
		ok = tapas_rf_fit_float(&c, Xf, y, n, d, &p, &rc, NULL) == TAPAS_OK &&
			same_forest(a, c, why);
		for (i = 0; ok && i < n; i++)
			if (tapas_rf_predict_proba_float(c, Xf + i * d) != tapas_rf_predict_proba(a, X + i * d))
			{
				*why = "float matrix: prediction";
				ok = 0;
			}
		tapas_rf_free(c);
		free(Xf);
	}
	tapas_rf_free(a);
	tapas_rf_free(b);
	free(X);
	free(y);
	free(style);
	return ok;
}

/* ranks (the default up to 65,535 samples) or float keys (above) */
static void
random_problems(uint64_t seed, size_t rank_max_n)
{
	tapas_rng_t rng;
	long		k,
				iters = tapas_test_iters(400);
	const char *why = "";

	tapas_rf_rank_max_n = rank_max_n;
	tapas_rng_seed(&rng, seed);
	for (k = 0; k < iters; k++)
		if (!one_problem(&rng, 0, &why))
			break;
	tapas_rf_rank_max_n = RF_RANK_MAX_N;
	TAPAS_CHECK_MSG(k == iters, "problem %ld differs: %s", k, why);
}

static void
test_rf_same_trees_random(void)
{
	random_problems(tapas_test_seed(), RF_RANK_MAX_N);
}

static void
test_rf_same_trees_random_float_keys(void)
{
	random_problems(tapas_test_seed() + 3, 0);
}

static void
test_rf_same_trees_nan(void)
{
	tapas_rng_t rng;
	long		k,
				iters = tapas_test_iters(50);
	const char *why = "";

	tapas_rng_seed(&rng, tapas_test_seed() + 1);
	for (k = 0; k < iters; k++)
		if (!one_problem(&rng, 1, &why))
			break;
	TAPAS_CHECK_MSG(k == iters, "problem %ld differs: %s", k, why);
}

/*
 * The Groundhog shape, scaled down: many more features than samples, most
 * of them continuous, and default parameters (bootstrap, sqrt(d) features,
 * unlimited depth): deep nodes are tiny and mostly split perfectly.
 */
static void
same_trees_shape(size_t n, size_t d, uint64_t seed)
{
	size_t		i,
				j;
	double	   *X = malloc(n * d * sizeof(double));
	int		   *y = malloc(n * sizeof(int));
	tapas_rf_params_t p;
	tapas_rf_t *a,
			   *b;
	tapas_rng_t rng,
				ra,
				rb;
	const char *why = "";

	tapas_rng_seed(&rng, seed);
	for (i = 0; i < n; i++)
	{
		y[i] = (int) tapas_rng_below(&rng, 2);
		for (j = 0; j < d; j++)
			X[i * d + j] = draw_value(&rng, j % 10 == 0 ? 1 : (j % 10 == 1 ? 2 : 0), 0.5) +
				(j % 7 == 0 ? 0.05 * y[i] : 0.0);
	}
	tapas_rf_params_default(&p);
	p.n_trees = 10;
	for (i = 0; i < 2; i++)
	{
		tapas_rf_rank_max_n = i ? 0 : RF_RANK_MAX_N;
		tapas_rng_seed(&ra, 7);
		tapas_rng_seed(&rb, 7);
		TAPAS_CHECK(tapas_rf_fit(&a, X, y, n, d, &p, &ra, NULL) == TAPAS_OK);
		TAPAS_CHECK(ref_rf_fit(&b, X, y, n, d, &p, &rb, NULL) == TAPAS_OK);
		TAPAS_CHECK_MSG(same_forest(a, b, &why), "%s keys: %s", i ? "float" : "rank", why);
		tapas_rf_free(a);
		tapas_rf_free(b);
	}
	tapas_rf_rank_max_n = RF_RANK_MAX_N;
	free(X);
	free(y);
}

/*
 * The ranks are read from the matrix a block of 8 features at a time: d
 * not a multiple of 8 (a short last block), a multiple of 8, and NaNs in
 * the last feature only (found after the ranks of every other block were
 * written: the fit drops them and takes the float sort); each fit matches
 * the reference's trees.
 */
static void
test_rf_same_trees_rank_blocks(void)
{
	size_t		dims[3] = {21, 16, 21},
				n = 90,
				i,
				j,
				c;
	tapas_rf_params_t p;
	const char *why = "";

	tapas_rf_params_default(&p);
	p.n_trees = 5;
	for (c = 0; c < 3; c++)
	{
		size_t		d = dims[c];
		double	   *X = malloc(n * d * sizeof(double));
		int		   *y = malloc(n * sizeof(int));
		tapas_rng_t rng,
					ra,
					rb;
		tapas_rf_t *a,
				   *b;

		tapas_rng_seed(&rng, tapas_test_seed() + 40 + c);
		for (i = 0; i < n; i++)
		{
			y[i] = (int) tapas_rng_below(&rng, 2);
			for (j = 0; j < d; j++)
				X[i * d + j] = draw_value(&rng, (int) (j % 7), (double) j) +
					(j % 5 == 0 ? 0.3 * y[i] : 0.0);
		}
		if (c == 2)
			for (i = 3; i < n; i += 37)
				X[i * d + d - 1] = NAN;
		tapas_rng_seed(&ra, 11);
		tapas_rng_seed(&rb, 11);
		TAPAS_CHECK(tapas_rf_fit(&a, X, y, n, d, &p, &ra, NULL) == TAPAS_OK);
		TAPAS_CHECK(ref_rf_fit(&b, X, y, n, d, &p, &rb, NULL) == TAPAS_OK);
		TAPAS_CHECK_MSG(same_forest(a, b, &why), "d = %zu%s: %s", d,
						c == 2 ? " with a NaN" : "", why);
		tapas_rf_free(a);
		tapas_rf_free(b);
		free(X);
		free(y);
	}
}

static void
test_rf_same_trees_wide(void)
{
	same_trees_shape(120, 600, tapas_test_seed() + 2);
}

/* 1,500 samples: deep nodes span rank ranges wide enough for the radix sort */
static void
test_rf_same_trees_tall(void)
{
	same_trees_shape(1500, 30, tapas_test_seed() + 4);
}

/*
 * A nearly perfect feature (one label of 800 flipped) and a perfect one:
 * whichever is drawn first, the perfect one must win, so the shortcut
 * may only stop searching once the best split is perfect.
 */
static void
test_rf_same_trees_near_perfect(void)
{
	size_t		n = 800,
				d = 2,
				i;
	double	   *X = malloc(n * d * sizeof(double));
	int		   *y = malloc(n * sizeof(int));
	tapas_rf_params_t p;
	tapas_rf_t *a,
			   *b;
	tapas_rng_t ra,
				rb;
	uint64_t	seed;
	const char *why = "";
	int			ok = 1;

	for (i = 0; i < n; i++)
	{
		y[i] = i % 2;
		X[i * d] = (double) (i % 2) + (i == 3 ? -1.0 : 0.0) + 0.001 * i;
		X[i * d + 1] = (double) (i % 2) * 2.0;
	}
	tapas_rf_params_default(&p);
	p.n_trees = 1;
	p.bootstrap = 0;
	p.max_features = 2;
	for (seed = 0; seed < 8 && ok; seed++)
	{
		tapas_rng_seed(&ra, seed);
		tapas_rng_seed(&rb, seed);
		TAPAS_CHECK(tapas_rf_fit(&a, X, y, n, d, &p, &ra, NULL) == TAPAS_OK);
		TAPAS_CHECK(ref_rf_fit(&b, X, y, n, d, &p, &rb, NULL) == TAPAS_OK);
		ok = same_forest(a, b, &why) && a->trees[0].nodes[0].feature == 1;
		tapas_rf_free(a);
		tapas_rf_free(b);
	}
	TAPAS_CHECK_MSG(ok, "seed %llu: %s", (unsigned long long) seed - 1, why);
	free(X);
	free(y);
}

/*
 * Labels in runs along the features, the case where a sweep that skipped
 * candidates would show it (the bucket sweep reads its marks back in
 * blocks of 64 ranks, rf_sweep.c): values continuous or tied, labels that
 * change every few values with some flipped; bootstrap weights or none,
 * min_samples_leaf 1 to 3; 300 to 1,001 samples (ranks in one to
 * sixteen blocks of 64).
 */
static void
same_trees_runs(size_t n, int bootstrap, int msl, uint64_t seed)
{
	size_t		d = 12,
				i,
				j;
	double	   *X = malloc(n * d * sizeof(double));
	int		   *y = malloc(n * sizeof(int));
	tapas_rf_params_t p;
	tapas_rf_t *a,
			   *b;
	tapas_rng_t rng,
				ra,
				rb;
	const char *why = "";

	tapas_rng_seed(&rng, seed);
	for (i = 0; i < n; i++)
	{
		double		u = (double) tapas_rng_below(&rng, 1u << 30) / (double) (1u << 30);

		y[i] = ((int) (u * (5 + seed % 7)) + (tapas_rng_below(&rng, 10) == 0)) % 2;
		for (j = 0; j < d; j++)
		{
			double		v = j % 3 == 0 ? u : (double) tapas_rng_below(&rng, 1u << 30) / (double) (1u << 30);

			X[i * d + j] = j % 4 == 1 ? floor(v * 40) / 40 : v;
		}
	}
	tapas_rf_params_default(&p);
	p.n_trees = 6;
	p.bootstrap = bootstrap;
	p.min_samples_leaf = msl;
	p.max_features = 4;
	tapas_rng_seed(&ra, seed);
	tapas_rng_seed(&rb, seed);
	TAPAS_CHECK(tapas_rf_fit(&a, X, y, n, d, &p, &ra, NULL) == TAPAS_OK);
	TAPAS_CHECK(ref_rf_fit(&b, X, y, n, d, &p, &rb, NULL) == TAPAS_OK);
	TAPAS_CHECK_MSG(same_forest(a, b, &why), "n %zu bootstrap %d msl %d: %s",
					n, bootstrap, msl, why);
	tapas_rf_free(a);
	tapas_rf_free(b);
	free(X);
	free(y);
}

static void
test_rf_same_trees_runs(void)
{
	uint64_t	seed = tapas_test_seed() + 8;
	int			msl;

	for (msl = 1; msl <= 3; msl++)
	{
		same_trees_runs(300, 1, msl, seed + msl);
		same_trees_runs(1000, 0, msl, seed + 3 + msl);
		same_trees_runs(1001, 0, msl, seed + 6 + msl);
		same_trees_runs(1000, 1, msl, seed + 9 + msl);
	}
}

/*
 * The sorted rank sweep (tapas_rf_sweep_buckets = 0, the benchmark's
 * baseline) grows the same trees too, on the random problems and both
 * shapes.
 */
static void
test_rf_same_trees_sorted_sweep(void)
{
	tapas_rf_sweep_buckets = 0;
	random_problems(tapas_test_seed() + 5, RF_RANK_MAX_N);
	same_trees_shape(120, 600, tapas_test_seed() + 6);
	same_trees_shape(1500, 30, tapas_test_seed() + 7);
	tapas_rf_sweep_buckets = 1;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/*
 * The key sort (rf_sort.c: LSD radix over the upper halves, passes skipped
 * on a shared byte, insertion below 25 keys) against qsort of the whole
 * keys, the lower halves ascending: spread floats, clustered floats
 * sharing their top 16 bits, repeated values, few values, lengths from 1
 * to 600.
 */
static void
test_rf_keys_sort_oracle(void)
{
	tapas_rng_t r;
	uint64_t   *a = malloc(600 * sizeof(uint64_t)),
			   *o = malloc(600 * sizeof(uint64_t)),
			   *tmp = malloc(600 * sizeof(uint64_t));
	int			shape;
	long		n,
				i,
				bad = 0;

	tapas_rng_seed(&r, 11);
	for (shape = 0; shape < 5; shape++)
		for (n = 1; n <= 600; n += (n < 40 ? 1 : 37))
		{
			for (i = 0; i < n; i++)
			{
				uint32_t	v;

				switch (shape)
				{
					case 0:		/* anything */
						v = (uint32_t) tapas_rng_u64(&r);
						break;
					case 1:		/* one top 16 bits, low bits spread */
						v = 0x3f000000u | (uint32_t) tapas_rng_below(&r, 1u << 16);
						break;
					case 2:		/* a few top-16 groups of many values */
						v = ((uint32_t) tapas_rng_below(&r, 3) << 16) |
							(uint32_t) tapas_rng_below(&r, 1u << 16);
						break;
					case 3:		/* few distinct values, repeated */
						v = (uint32_t) tapas_rng_below(&r, 4) * 0x01010101u;
						break;
					default:	/* pairs sharing the top 16 bits */
						v = ((uint32_t) tapas_rng_below(&r, 1u << 15) << 16) |
							(uint32_t) tapas_rng_below(&r, 2);
						break;
				}
				a[i] = o[i] = ((uint64_t) v << 32) | (uint32_t) i;
			}
			qsort(o, n, sizeof(uint64_t), cmp_u64);
			tapas_rf_keys_sort(a, n, tmp);
			bad += memcmp(a, o, n * sizeof(uint64_t)) != 0;
		}
	TAPAS_CHECK_MSG(bad == 0, "%ld sorts differ from qsort", bad);
	free(a);
	free(o);
	free(tmp);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_rf_keys_sort_oracle);
	TAPAS_TEST_RUN(test_rf_same_trees_random);
	TAPAS_TEST_RUN(test_rf_same_trees_random_float_keys);
	TAPAS_TEST_RUN(test_rf_same_trees_nan);
	TAPAS_TEST_RUN(test_rf_same_trees_rank_blocks);
	TAPAS_TEST_RUN(test_rf_same_trees_wide);
	TAPAS_TEST_RUN(test_rf_same_trees_tall);
	TAPAS_TEST_RUN(test_rf_same_trees_near_perfect);
	TAPAS_TEST_RUN(test_rf_same_trees_runs);
	TAPAS_TEST_RUN(test_rf_same_trees_sorted_sweep);
	TAPAS_TEST_DONE();
}
