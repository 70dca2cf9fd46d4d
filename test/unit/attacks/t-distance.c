/*
 * t-distance.c
 *	  Unit tests for src/attacks/distance.c (and the encoding it reads).
 *
 * Oracle: brute-force distances written directly from the definitions on
 * random mixed-type datasets (categorical, ordinal, continuous), for every
 * scan (to_rows, min, count_within) with and without a column subset, and
 * the dgemm L2 matrix against pairwise sums.
 */
#include <math.h>

#include "attacks/dataset.h"
#include "attacks/distance.h"
#include "common/memory.h"
#include "common/rng.h"
#include "tapas_test.h"

#define NC 5

static const tapas_column_spec_t SPECS[NC] = {
	{TAPAS_COLUMN_CATEGORICAL, 3, 0, 0},
	{TAPAS_COLUMN_CONTINUOUS, 0, -2, 2},
	{TAPAS_COLUMN_CATEGORICAL, 2, 0, 0},
	{TAPAS_COLUMN_ORDINAL, 4, 0, 0},
	{TAPAS_COLUMN_CATEGORICAL, 5, 0, 0},
};

/* random raw record; continuous values on a coarse grid so ties happen */
static void
random_record(tapas_rng_t *rng, double *x)
{
	size_t		j;

	for (j = 0; j < NC; j++)
		x[j] = SPECS[j].kind == TAPAS_COLUMN_CONTINUOUS ?
			-2.0 + (double) tapas_rng_below(rng, 9) * 0.5 :
			(double) tapas_rng_below(rng, SPECS[j].cardinality);
}

static tapas_dataset_t *
random_dataset(tapas_rng_t *rng, size_t n)
{
	tapas_dataset_t *ds = tapas_dataset_create(n, NC, SPECS);
	size_t		i;

	for (i = 0; i < n; i++)
		random_record(rng, ds->values + i * NC);
	tapas_dataset_encode(ds);
	return ds;
}

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
			sum += x[j] != y[j];
		else
			for (k = ds->offset[j]; k < ds->offset[j] + ds->width[j]; k++)
				sum += pow(fabs(xe[k] - ye[k]), d->p);
	}
	return d->kind == TAPAS_DISTANCE_HAMMING ? sum : pow(sum, 1.0 / d->p);
}

static void
test_encoding_layout(void)
{
	tapas_dataset_t *ds = tapas_dataset_create(1, NC, SPECS);
	double		raw[NC] = {2, 1, 0, 3, 4};
	double		enc[12];
	double		expect[12] = {0, 0, 1, 0.75, 1, 0, 1, 0, 0, 0, 0, 1};
	size_t		k;

	TAPAS_CHECK(ds->encoded_dim == 12);
	TAPAS_CHECK(ds->offset[3] == 6 && ds->width[4] == 5 && ds->offset[4] == 7);
	tapas_dataset_encode_record(ds, raw, enc);
	for (k = 0; k < 12; k++)
		TAPAS_CHECK_MSG(enc[k] == expect[k], "cell %zu = %g", k, enc[k]);
	tapas_dataset_free(ds);
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
					count = 0;
		tapas_dataset_t *ds = random_dataset(&rng, n);
		double		x[NC],
					xe[16],
					best = INFINITY,
					out[200],
					radius = (double) tapas_rng_below(&rng, 4) * 0.5;
		tapas_distance_t d;

		d.kind = it % 3 == 0 ? TAPAS_DISTANCE_HAMMING : TAPAS_DISTANCE_LP;
		d.p = it % 3 == 1 ? 2.0 : 1.5;
		d.columns = it % 2 ? subset : NULL;
		d.ncolumns = it % 2 ? 2 : 0;
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
		}
		TAPAS_CHECK_MSG(fabs(tapas_distance_min(&d, ds, x, xe) - best) < 1e-9,
						"iter %ld min", it);
		if (it % 5 == 0)
			TAPAS_CHECK(tapas_distance_min(&d, ds, x, xe) == 0);
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
	tapas_distance_t d = {TAPAS_DISTANCE_LP, 2.0, NULL, 0};
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

static void
test_check_errors(void)
{
	tapas_dataset_t *ds = tapas_dataset_create(2, NC, SPECS);
	size_t		bad = NC;
	tapas_distance_t d = {TAPAS_DISTANCE_LP, 2.0, NULL, 0};

	TAPAS_CHECK(tapas_distance_check(&d, ds) == TAPAS_EINVAL);	/* not encoded */
	tapas_dataset_encode(ds);
	TAPAS_CHECK(tapas_distance_check(&d, ds) == TAPAS_OK);
	d.p = 0;
	TAPAS_CHECK(tapas_distance_check(&d, ds) == TAPAS_EINVAL);
	d.kind = TAPAS_DISTANCE_HAMMING;
	d.columns = &bad;
	d.ncolumns = 1;
	TAPAS_CHECK(tapas_distance_check(&d, ds) == TAPAS_EINVAL);
	tapas_dataset_free(ds);
}

static void
test_dataset_ops(void)
{
	tapas_rng_t rng;
	tapas_dataset_t *ds,
			   *sel,
			   *cat;
	size_t		rows[3] = {4, 0, 4};
	const char *why = NULL;
	tapas_column_spec_t bad = {TAPAS_COLUMN_CATEGORICAL, 0, 0, 0};

	tapas_rng_seed(&rng, tapas_test_seed() + 7);
	ds = random_dataset(&rng, 5);
	sel = tapas_dataset_select_rows(ds, rows, 3);
	TAPAS_CHECK(sel->n == 3 && sel->values[0] == ds->values[4 * NC] &&
				sel->encoded[sel->encoded_dim] == ds->encoded[0]);
	cat = tapas_dataset_concat(ds, sel);
	TAPAS_CHECK(cat->n == 8 && cat->values[7 * NC + 1] == ds->values[4 * NC + 1]);
	TAPAS_CHECK(tapas_dataset_validate(cat, &why) == TAPAS_OK);
	cat->values[2] = 7;
	TAPAS_CHECK(tapas_dataset_validate(cat, &why) == TAPAS_EINVAL && why != NULL);
	TAPAS_CHECK(tapas_dataset_create(1, 1, &bad) == NULL);
	tapas_dataset_free(ds);
	tapas_dataset_free(sel);
	tapas_dataset_free(cat);
	tapas_dataset_free(NULL);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_encoding_layout);
	TAPAS_TEST_RUN(test_scans_vs_brute);
	TAPAS_TEST_RUN(test_l2_matrix);
	TAPAS_TEST_RUN(test_check_errors);
	TAPAS_TEST_RUN(test_dataset_ops);
	TAPAS_TEST_DONE();
}
