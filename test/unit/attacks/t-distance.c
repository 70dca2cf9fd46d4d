/*
 * t-distance.c
 *	  Unit tests for src/attacks/distance.c and distance_blas.c.
 *
 * Oracle: brute-force distances written directly from the definitions on
 * random mixed-type datasets (categorical, ordinal, continuous), for every
 * scan (to_rows, min, count_within) with and without a column subset, and
 * the dgemm L2 matrix against pairwise sums.
 */
#include <math.h>

#include "attacks/dataset.h"
#include "attacks/distance.h"
#include "util/memory.h"
#include "util/rng.h"
#include "mixed_dataset.h"
#include "tapas_test.h"

/* the definitions, written independently of distance.c */
static double
brute(const tapas_distance_t *d, const tapas_dataset_t *ds, const double *x,
	  const double *xe, size_t i)
{
	const double *y = ds->values + i * NC,
			   *ye = ds->encoded + i * ds->encoded_dim;
	double		sum = 0;
	size_t		j,
				k;

	for (j = 0; j < NC; j++)
	{
		int			in = d->columns == NULL;

		for (k = 0; k < d->ncolumns && !in; k++)
			in = d->columns[k] == j;
		if (!in)
			continue;
		if (d->kind == TAPAS_DISTANCE_HAMMING)
			sum += (d->weights ? d->weights[j] : 1.0) * (x[j] != y[j]);
		else
			for (k = ds->offset[j]; k < ds->offset[j] + ds->width[j]; k++)
				sum += (d->weights ? d->weights[j] : 1.0) * pow(fabs(xe[k] - ye[k]), d->p);
	}
	return (d->scale > 0 ? d->scale : 1.0) *
		(d->kind == TAPAS_DISTANCE_HAMMING ? sum : pow(sum, 1.0 / d->p));
}

static void
test_scans_vs_brute(void)
{
	tapas_rng_t rng;
	long		iters = tapas_test_iters(60),
				it;
	size_t		subset[2] = {0, 3};

	tapas_rng_seed(&rng, tapas_test_seed());
	for (it = 0; it < iters; it++)
	{
		size_t		n = 1 + tapas_rng_below(&rng, 200),
					i,
					count = 0,
					count_lo = 0;
		tapas_dataset_t *ds = random_dataset(&rng, n);
		double		x[NC],
					xe[16],
					best = INFINITY,
					out[200],
					weights[NC],
					radius = (double) tapas_rng_below(&rng, 4) * 0.5;
		tapas_distance_t d;

		d.kind = it % 3 == 0 ? TAPAS_DISTANCE_HAMMING : TAPAS_DISTANCE_LP;
		d.p = it % 3 == 1 ? 2.0 : 1.5;
		d.columns = it % 2 ? subset : NULL;
		d.ncolumns = it % 2 ? 2 : 0;
		/* weighted and scaled in every fourth iteration */
		for (i = 0; i < NC; i++)
			weights[i] = 0.5 * (double) tapas_rng_below(&rng, 5);
		d.weights = it % 4 == 3 ? weights : NULL;
		d.scale = it % 4 == 3 ? 1.5 : 0.0;
		if (it % 5 == 0)
			for (i = 0; i < NC; i++)
				x[i] = ds->values[(n - 1) * NC + i];	/* a row itself */
		else
			random_record(&rng, x);
		tapas_dataset_encode_record(ds, x, xe);
		TAPAS_CHECK(tapas_distance_check(&d, ds) == TAPAS_OK);
		tapas_distance_to_rows(&d, ds, x, xe, out);
		for (i = 0; i < n; i++)
		{
			double		b = brute(&d, ds, x, xe, i);

			TAPAS_CHECK_MSG(fabs(out[i] - b) < 1e-9, "iter %ld row %zu", it, i);
			best = b < best ? b : best;
			count += b <= radius + 1e-12;
			count_lo += b <= radius - 1e-9;
		}
		TAPAS_CHECK_MSG(fabs(tapas_distance_min(&d, ds, x, xe) - best) < 1e-9,
						"iter %ld min", it);
		if (it % 5 == 0)
			TAPAS_CHECK(tapas_distance_min(&d, ds, x, xe) == 0);
		/* scaled: the kernel compares d with radius / s, so a row exactly on
		 * the sphere may fall either side by one rounding */
		if (d.scale > 0)
		{
			size_t		got = tapas_distance_count_within(&d, ds, x, xe, radius);

			TAPAS_CHECK_MSG(count_lo <= got && got <= count, "iter %ld count", it);
		}
		else
			TAPAS_CHECK_MSG(tapas_distance_count_within(&d, ds, x, xe, radius) == count,
							"iter %ld count", it);
		tapas_dataset_free(ds);
	}
}

static void
test_l2_matrix(void)
{
	tapas_rng_t rng;
	tapas_dataset_t *a,
			   *b;
	double		out[7 * 30];
	tapas_distance_t d = {TAPAS_DISTANCE_LP, 2.0, NULL, 0, NULL, 0, NULL, 0};
	size_t		i,
				k;

	tapas_rng_seed(&rng, tapas_test_seed() + 5);
	a = random_dataset(&rng, 7);
	b = random_dataset(&rng, 30);
	TAPAS_CHECK(tapas_distance_l2_matrix(a, b, out) == TAPAS_OK);
	for (k = 0; k < 7; k++)
		for (i = 0; i < 30; i++)
			TAPAS_CHECK(fabs(out[k * 30 + i] -
							 brute(&d, b, a->values + k * NC,
								   a->encoded + k * a->encoded_dim, i)) < 1e-7);
	tapas_dataset_free(a);
	tapas_dataset_free(b);
}

/* the BLAS scan equals the one-target scans exactly, duplicates included */
static void
test_l2_scan_vs_scans(void)
{
	tapas_rng_t rng;
	long		iters = tapas_test_iters(20),
				it;
	tapas_distance_t d = {TAPAS_DISTANCE_LP, 2.0, NULL, 0, NULL, 0, NULL, 0};

	tapas_rng_seed(&rng, tapas_test_seed() + 11);
	for (it = 0; it < iters; it++)
	{
		size_t		n = 1 + tapas_rng_below(&rng, 1200),
					m = 1 + tapas_rng_below(&rng, 150),
					a,
					e;
		tapas_dataset_t *ds = random_dataset(&rng, n);
		double	   *x,
				   *mins = tapas_malloc(m * sizeof(double));
		size_t	   *counts = tapas_malloc(m * sizeof(size_t));
		double		radius = (double) tapas_rng_below(&rng, 5) * 0.5;

		e = ds->encoded_dim;
		x = tapas_malloc(m * e * sizeof(double));
		for (a = 0; a < m; a++)
		{
			double		raw[NC];

			if (a % 3 == 0)		/* a row of ds itself */
				tapas_dataset_encode_record(ds, ds->values + tapas_rng_below(&rng, n) * NC,
											x + a * e);
			else
			{
				random_record(&rng, raw);
				tapas_dataset_encode_record(ds, raw, x + a * e);
			}
		}
		TAPAS_CHECK(tapas_distance_l2_scan(ds, x, m, radius, mins, counts, NULL) == TAPAS_OK);
		for (a = 0; a < m; a++)
		{
			TAPAS_CHECK_MSG(mins[a] == tapas_distance_min(&d, ds, NULL, x + a * e),
							"iter %ld target %zu: %.17g vs %.17g", it, a, mins[a],
							tapas_distance_min(&d, ds, NULL, x + a * e));
			TAPAS_CHECK_MSG(counts[a] == tapas_distance_count_within(&d, ds, NULL, x + a * e, radius),
							"iter %ld target %zu count", it, a);
			if (a % 3 == 0)
				TAPAS_CHECK(mins[a] == 0);
		}
		tapas_free(x);
		tapas_free(mins);
		tapas_free(counts);
		tapas_dataset_free(ds);
	}
}

/* the scan polls its progress callback and stops when asked */
static int
stop_now(void *arg, double fraction)
{
	(*(int *) arg)++;
	return 1;
}

static void
test_l2_scan_cancel(void)
{
	tapas_rng_t rng;
	tapas_dataset_t *ds;
	double		x[16],
				mins[1];
	int			calls = 0;
	tapas_progress_t progress = {stop_now, &calls};

	tapas_rng_seed(&rng, tapas_test_seed());
	ds = random_dataset(&rng, 10);
	tapas_dataset_encode_record(ds, ds->values, x);
	TAPAS_CHECK(tapas_distance_l2_scan(ds, x, 1, 1.0, mins, NULL, &progress) ==
				TAPAS_ECANCELED && calls == 1);
	tapas_memory_fail_after(1);
	TAPAS_CHECK(tapas_distance_l2_scan(ds, x, 1, 1.0, mins, NULL, NULL) == TAPAS_ENOMEM);
	tapas_memory_fail_after(-1);
	tapas_dataset_free(ds);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

static void
test_check_errors(void)
{
	tapas_dataset_t *ds = tapas_dataset_create(2, NC, SPECS);
	size_t		bad = NC;
	tapas_distance_t d = {TAPAS_DISTANCE_LP, 2.0, NULL, 0, NULL, 0, NULL, 0};

	TAPAS_CHECK(tapas_distance_check(&d, ds) == TAPAS_EINVAL);	/* not encoded */
	tapas_dataset_encode(ds);
	TAPAS_CHECK(tapas_distance_check(&d, ds) == TAPAS_OK);
	d.p = 0;
	TAPAS_CHECK(tapas_distance_check(&d, ds) == TAPAS_EINVAL);
	d.kind = TAPAS_DISTANCE_HAMMING;
	d.columns = &bad;
	d.ncolumns = 1;
	TAPAS_CHECK(tapas_distance_check(&d, ds) == TAPAS_EINVAL);
	d.columns = NULL;
	d.ncolumns = 0;
	{
		double		w[NC] = {1, 1, -1, 1, 1};

		d.weights = w;
		TAPAS_CHECK(tapas_distance_check(&d, ds) == TAPAS_EINVAL);	/* negative */
		w[2] = NAN;
		TAPAS_CHECK(tapas_distance_check(&d, ds) == TAPAS_EINVAL);
		w[2] = 0;
		TAPAS_CHECK(tapas_distance_check(&d, ds) == TAPAS_OK);
		d.scale = -1;
		TAPAS_CHECK(tapas_distance_check(&d, ds) == TAPAS_EINVAL);
		d.scale = INFINITY;
		TAPAS_CHECK(tapas_distance_check(&d, ds) == TAPAS_EINVAL);
	}
	tapas_dataset_free(ds);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_scans_vs_brute);
	TAPAS_TEST_RUN(test_l2_matrix);
	TAPAS_TEST_RUN(test_l2_scan_vs_scans);
	TAPAS_TEST_RUN(test_l2_scan_cancel);
	TAPAS_TEST_RUN(test_check_errors);
	TAPAS_TEST_DONE();
}
