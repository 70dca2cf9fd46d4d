/*
 * t-set_features_same.c
 *	  The optimised set-feature extraction (categorical co-moments as
 *	  popcounts of record bitsets, set_features_cocount.c) gives the very
 *	  features of the straightforward one.
 *
 * Oracle: the extraction as it was before (setfeat_reference.h: every
 * co-moment summed row by row), on the same extractor.  Features are
 * compared with ==, on random schemas mixing categorical and numeric
 * columns (categorical only, numeric only, one category, up to 64
 * columns), datasets of 1 to 300 records (bitset word boundaries), with
 * naive, hist, corr and queries items or queries alone (no moments), and
 * on the census-like shape
 * (17 categorical columns, 1,000 records).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "setfeat_reference.h"
#include "util/rng.h"
#include "tapas_test.h"

/*
 * > 0: the categorical columns of one_dataset have this many categories
 * plus up to 9, past the 255 of the bitsets' byte compares (their other path)
 */
static int	wide_categories = 0;

/* one random schema and dataset: 1 if both extractions agree exactly */
static int
one_dataset(tapas_rng_t *rng, size_t m, size_t n, int cat_share,
			int queries_only, size_t *bad)
{
	int			kind[64] = {0},
				ncat[64] = {0};
	tapas_coded_schema_t *s;
	tapas_setfeat_item_t items[4];
	tapas_setfeat_t *fs = NULL;
	double	   *x = malloc(n * m * sizeof(double));
	double	   *fa,
			   *fb;
	size_t		j,
				r,
				k;
	const char *reason;
	int			ok = 1;

	for (j = 0; j < m; j++)
	{
		kind[j] = (int) tapas_rng_below(rng, 4) < cat_share ?
			TAPAS_COL_CATEGORICAL : TAPAS_COL_NUMERIC;
		ncat[j] = 1 + (int) tapas_rng_below(rng, 6);
		if (wide_categories > 0 && kind[j] == TAPAS_COL_CATEGORICAL)
			ncat[j] = wide_categories + (int) tapas_rng_below(rng, 10);
	}
	s = tapas_coded_schema_create(m, kind, ncat);
	for (r = 0; r < n; r++)
		for (j = 0; j < m; j++)
			x[r * m + j] = kind[j] == TAPAS_COL_CATEGORICAL ?
				(double) tapas_rng_below(rng, ncat[j]) :
				(double) tapas_rng_below(rng, 1000) / 997.0 - 0.3;
	memset(items, 0, sizeof(items));
	items[0].type = TAPAS_SETFEAT_NAIVE;
	items[1].type = TAPAS_SETFEAT_HIST;
	items[1].n_bins = 7, items[1].lo = 0, items[1].hi = 1;
	items[2].type = TAPAS_SETFEAT_CORR;
	items[3].type = TAPAS_SETFEAT_QUERIES;
	items[3].order = 1 + (int) tapas_rng_below(rng, m);
	items[3].number = 5, items[3].seed = 3;
	if (queries_only)
		items[0] = items[3];	/* no moments needed */
	if (tapas_setfeat_create(&fs, s, items, queries_only ? 1 : 4, x, n,
							 &reason) != TAPAS_OK)
	{
		*bad = (size_t) -1;
		ok = 0;
		goto done;
	}
	fa = malloc(fs->dim * sizeof(double));
	fb = malloc(fs->dim * sizeof(double));
	ok = tapas_setfeat_extract(fs, x, n, fa) == TAPAS_OK &&
		ref_setfeat_extract(fs, x, n, fb) == TAPAS_OK;
	for (k = 0; ok && k < fs->dim; k++)
		if (!(fa[k] == fb[k]))
		{
			*bad = k;
			ok = 0;
		}
	free(fa);
	free(fb);
done:
	tapas_setfeat_free(fs);
	tapas_coded_schema_free(s);
	free(x);
	return ok;
}

static void
test_setfeat_same_random(void)
{
	tapas_rng_t rng;
	long		i,
				iters = tapas_test_iters(300);
	size_t		bad = 0,
				m = 0,
				n = 0;
	int			share = 0;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (i = 0; i < iters; i++)
	{
		m = 1 + tapas_rng_below(&rng, i % 10 == 0 ? 64 : 12);
		n = 1 + tapas_rng_below(&rng, 300);
		share = (int) (i % 5);	/* 0: numeric only ... 4: categorical only */
		if (!one_dataset(&rng, m, n, share, i % 7 == 3, &bad))
			break;
	}
	TAPAS_CHECK_MSG(i == iters, "dataset %ld (m %zu, n %zu, share %d/4) differs at feature %zu",
					i, m, n, share, bad);
}

/* the census shape: 17 categorical columns, 1,000 and 5,000 records */
static void
test_setfeat_same_census_shape(void)
{
	tapas_rng_t rng;
	size_t		bad = 0;

	tapas_rng_seed(&rng, tapas_test_seed() + 1);
	TAPAS_CHECK_MSG(one_dataset(&rng, 17, 1000, 4, 0, &bad), "feature %zu", bad);
	TAPAS_CHECK_MSG(one_dataset(&rng, 17, 5000, 4, 0, &bad), "feature %zu", bad);
}

/* columns of 250 to 264 categories: both sides of the byte compares' limit */
static void
test_setfeat_same_wide_categories(void)
{
	tapas_rng_t rng;
	size_t		bad = 0;
	int			i;

	tapas_rng_seed(&rng, tapas_test_seed() + 2);
	for (i = 0; i < 6; i++)
	{
		wide_categories = i % 2 ? 255 : 250;
		TAPAS_CHECK_MSG(one_dataset(&rng, 2, 70 + 40 * (size_t) i, 4, 0, &bad),
						"case %d: feature %zu", i, bad);
	}
	wide_categories = 0;
}

int
main(void)
{
	TAPAS_TEST_RUN(test_setfeat_same_random);
	TAPAS_TEST_RUN(test_setfeat_same_census_shape);
	TAPAS_TEST_RUN(test_setfeat_same_wide_categories);
	TAPAS_TEST_DONE();
}
