/*
 * t-density_histogram.c
 *	  Unit tests for src/attacks/density_histogram.c.
 *
 * Oracles: a brute-force count of the synthetic rows in the target's cell
 * (every row compared with the target column by column, bins recomputed
 * with floor()), the closed form (n_x + alpha) / (n + alpha K) / volume,
 * and the normalisation: summed over every cell of a small schema, p times
 * the cell volume is 1.
 */
#include <math.h>
#include <string.h>

#include "attacks/dataset.h"
#include "attacks/density.h"
#include "util/memory.h"
#include "util/rng.h"
#include "tapas_test.h"

#define NC 3

static const tapas_column_spec_t specs[NC] = {
	{TAPAS_COLUMN_CATEGORICAL, 3, 0, 0},
	{TAPAS_COLUMN_ORDINAL, 2, 0, 0},
	{TAPAS_COLUMN_CONTINUOUS, 0, 0, 10}
};

/* bin of v written out: floor(v / 10 * bins), clamped to the edge bins */
static long
oracle_bin(double v, size_t bins)
{
	long		b = (long) floor(v / 10.0 * (double) bins);

	return b < 0 ? 0 : b >= (long) bins ? (long) bins - 1 : b;
}

static double
oracle_log(const tapas_dataset_t *ds, const double *x, size_t bins, double alpha)
{
	size_t		i,
				count = 0;
	double		k = 3.0 * 2.0 * (double) bins,
				width = 10.0 / (double) bins;

	for (i = 0; i < ds->n; i++)
	{
		const double *y = ds->values + i * NC;

		count += y[0] == x[0] && y[1] == x[1] &&
			oracle_bin(y[2], bins) == oracle_bin(x[2], bins);
	}
	return log(((double) count + alpha) / ((double) ds->n + alpha * k) / width);
}

static tapas_dataset_t *
random_dataset(tapas_rng_t *rng, size_t n)
{
	tapas_dataset_t *ds = tapas_dataset_create(n, NC, specs);
	size_t		i;

	for (i = 0; i < n; i++)
	{
		ds->values[i * NC] = (double) tapas_rng_below(rng, 3);
		ds->values[i * NC + 1] = (double) tapas_rng_below(rng, 2);
		ds->values[i * NC + 2] = 10 * tapas_rng_uniform(rng);
	}
	return ds;
}

static void
test_against_brute_force(void)
{
	tapas_rng_t rng;
	long		iter,
				iters = tapas_test_iters(200);

	tapas_rng_seed(&rng, tapas_test_seed());
	for (iter = 0; iter < iters; iter++)
	{
		size_t		n = 1 + tapas_rng_below(&rng, 60),
					bins = 1 + tapas_rng_below(&rng, 6),
					t;
		double		alpha = iter % 3 == 0 ? 0 : tapas_rng_uniform(&rng) * 2;
		tapas_dataset_t *ds = random_dataset(&rng, n);
		tapas_density_t *m = tapas_density_fit_histogram(ds, bins, alpha);

		TAPAS_CHECK(m != NULL);
		for (t = 0; t < 10 && m != NULL; t++)
		{
			double		x[NC],
						got,
						want;

			/* half the targets copy a synthetic row, some lie out of bounds */
			if (t % 2 == 0)
				memcpy(x, ds->values + tapas_rng_below(&rng, n) * NC, sizeof(x));
			else
			{
				x[0] = (double) tapas_rng_below(&rng, 3);
				x[1] = (double) tapas_rng_below(&rng, 2);
				x[2] = 14 * tapas_rng_uniform(&rng) - 2;
			}
			got = tapas_density_log(m, x, NULL);
			want = oracle_log(ds, x, bins, alpha);
			TAPAS_CHECK_MSG(got == want || fabs(got - want) < 1e-12,
							"n %zu bins %zu alpha %g: log p %.17g, oracle %.17g",
							n, bins, alpha, got, want);
		}
		tapas_density_free(m);
		tapas_dataset_free(ds);
	}
	TAPAS_CHECK(tapas_memory_live() == 0);
}

/* sum over the 3 x 2 x bins cells of p(cell) * volume(cell) = 1 */
static void
test_normalised(void)
{
	tapas_rng_t rng;
	tapas_dataset_t *ds;
	tapas_density_t *m;
	size_t		bins = 4,
				a,
				b,
				k;
	double		total = 0;

	tapas_rng_seed(&rng, tapas_test_seed() + 1);
	ds = random_dataset(&rng, 37);
	m = tapas_density_fit_histogram(ds, bins, 0.5);
	for (a = 0; a < 3; a++)
		for (b = 0; b < 2; b++)
			for (k = 0; k < bins; k++)
			{
				double		x[NC] = {(double) a, (double) b, (k + 0.5) * 10.0 / bins};

				total += exp(tapas_density_log(m, x, NULL)) * 10.0 / bins;
			}
	TAPAS_CHECK_MSG(fabs(total - 1) < 1e-12, "total %.17g", total);
	tapas_density_free(m);
	tapas_dataset_free(ds);
}

/*
 * By hand, and the edges: alpha = 0 gives log 0 for an empty cell; a code
 * outside the schema is no cell (-inf, whatever alpha); a schema far too
 * wide for K to be a double keeps a finite log density.
 */
static void
test_hand_and_edges(void)
{
	double		v[4 * NC] = {0, 0, 1, 0, 0, 2, 1, 1, 9, 0, 0, 6};
	double		x[NC] = {0, 0, 0.5},
				far[NC] = {2, 1, 9},
				bad[NC] = {7, 0, 1};
	tapas_dataset_t *ds = tapas_dataset_from_values(4, NC, specs, v);
	tapas_density_t *m = tapas_density_fit_histogram(ds, 2, 0);
	tapas_column_spec_t wide[40];
	tapas_dataset_t *w;
	double		wv[2 * 40] = {0};
	size_t		j;

	/* cell (0, 0, [0,5)) holds rows 0 and 1 of 4; width 5 */
	TAPAS_CHECK(fabs(tapas_density_log(m, x, NULL) - log(2.0 / 4 / 5)) < 1e-12);
	TAPAS_CHECK(tapas_density_log(m, far, NULL) == -INFINITY);
	TAPAS_CHECK(tapas_density_log(m, bad, NULL) == -INFINITY);
	tapas_density_free(m);
	m = tapas_density_fit_histogram(ds, 2, 1);
	/* K = 3 * 2 * 2 = 12: (2 + 1) / (4 + 12) / 5 */
	TAPAS_CHECK(fabs(tapas_density_log(m, x, NULL) - log(3.0 / 16 / 5)) < 1e-12);
	TAPAS_CHECK(tapas_density_log(m, bad, NULL) == -INFINITY);
	TAPAS_CHECK(isnan(tapas_density_bandwidth(m)));
	tapas_density_free(m);
	TAPAS_CHECK(tapas_density_fit_histogram(ds, 0, 1) == NULL);
	TAPAS_CHECK(tapas_density_fit_histogram(ds, 2, -1) == NULL);
	TAPAS_CHECK(tapas_density_fit_histogram(ds, 2, INFINITY) == NULL);
	tapas_dataset_free(ds);

	/* K = 1000^40 = 1e120 cells: log(2 + 1e120) = 120 log 10 */
	for (j = 0; j < 40; j++)
		wide[j] = (tapas_column_spec_t) {TAPAS_COLUMN_CATEGORICAL, 1000, 0, 0};
	w = tapas_dataset_from_values(2, 40, wide, wv);
	m = tapas_density_fit_histogram(w, 10, 1);
	TAPAS_CHECK_MSG(fabs(tapas_density_log(m, wv, NULL) - (log(3.0) - 120 * log(10.0))) < 1e-9,
					"log p %.17g", tapas_density_log(m, wv, NULL));
	tapas_density_free(m);
	tapas_dataset_free(w);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_against_brute_force);
	TAPAS_TEST_RUN(test_normalised);
	TAPAS_TEST_RUN(test_hand_and_edges);
	TAPAS_TEST_DONE();
}
