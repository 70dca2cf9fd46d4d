/*
 * t-density.c
 *	  Unit tests for src/attacks/density.c.
 *
 * Oracles: the Gaussian KDE on two points computed by hand, a brute-force
 * KDE sum (no log-sum-exp) on random data, the bandwidth rules written out,
 * and smoothed frequencies of the independent model counted by hand.
 */
#include <math.h>

#include "attacks/dataset.h"
#include "attacks/density.h"
#include "util/memory.h"
#include "util/rng.h"
#include "tapas_test.h"

static void
test_kde_hand(void)
{
	tapas_column_spec_t spec = {TAPAS_COLUMN_CONTINUOUS, 0, 0, 1};
	double		v[2] = {0, 1},
				x = 0.5;
	tapas_dataset_t *ds = tapas_dataset_from_values(2, 1, &spec, v);
	tapas_density_t *m;

	tapas_dataset_encode(ds);
	m = tapas_density_fit_kde(ds, TAPAS_BANDWIDTH_FIXED, 0.5);
	/* p(0.5) = N(0.5; 0, 0.25) = exp(-0.5) / sqrt(2 pi 0.25) */
	TAPAS_CHECK_MSG(fabs(tapas_density_log(m, &x, &x) -
						 log(exp(-0.5) / sqrt(2 * M_PI * 0.25))) < 1e-12,
					"log p %g", tapas_density_log(m, &x, &x));
	/* far away: finite thanks to log-sum-exp */
	x = 1000;
	TAPAS_CHECK(isfinite(tapas_density_log(m, &x, &x)));
	/* infinitely far (every kernel underflows to exactly 0): log 0, not NaN */
	x = 1e200;
	TAPAS_CHECK_MSG(tapas_density_log(m, &x, &x) == -INFINITY,
					"log p %g", tapas_density_log(m, &x, &x));
	/* the dataset it borrows emptied after the fit: log 0, not log(0) of an empty sum */
	ds->n = 0;
	TAPAS_CHECK(tapas_density_log(m, &x, &x) == -INFINITY);
	ds->n = 2;
	tapas_density_free(m);
	TAPAS_CHECK(tapas_density_fit_kde(ds, TAPAS_BANDWIDTH_FIXED, 0) == NULL);
	tapas_dataset_free(ds);
}

static void
test_kde_random_and_rules(void)
{
	tapas_column_spec_t specs[2] = {{TAPAS_COLUMN_CATEGORICAL, 3, 0, 0},
	{TAPAS_COLUMN_CONTINUOUS, 0, 0, 10}};
	tapas_rng_t rng;
	tapas_dataset_t *ds = tapas_dataset_create(50, 2, specs);
	tapas_density_t *m;
	double		x[2] = {1, 4},
				xe[4],
				sum = 0,
				h,
				var = 0;
	size_t		i,
				k;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (i = 0; i < 50; i++)
	{
		ds->values[2 * i] = (double) tapas_rng_below(&rng, 3);
		ds->values[2 * i + 1] = 10 * tapas_rng_uniform(&rng);
	}
	tapas_dataset_encode(ds);
	tapas_dataset_encode_record(ds, x, xe);
	m = tapas_density_fit_kde(ds, TAPAS_BANDWIDTH_SCOTT, 0);
	/* Scott: sigma n^(-1/(e+4)), sigma^2 = mean per-cell variance */
	for (k = 0; k < 4; k++)
	{
		double		mean = 0,
					vk = 0;

		for (i = 0; i < 50; i++)
			mean += ds->encoded[i * 4 + k] / 50;
		for (i = 0; i < 50; i++)
			vk += pow(ds->encoded[i * 4 + k] - mean, 2) / 50;
		var += vk / 4;
	}
	h = sqrt(var) * pow(50, -1.0 / 8);
	TAPAS_CHECK(fabs(tapas_density_bandwidth(m) - h) < 1e-12);
	for (i = 0; i < 50; i++)
	{
		double		d2 = 0;

		for (k = 0; k < 4; k++)
			d2 += pow(xe[k] - ds->encoded[i * 4 + k], 2);
		sum += exp(-d2 / (2 * h * h)) / pow(2 * M_PI * h * h, 2.0);
	}
	TAPAS_CHECK(fabs(tapas_density_log(m, x, xe) - log(sum / 50)) < 1e-9);
	tapas_density_free(m);
	m = tapas_density_fit_kde(ds, TAPAS_BANDWIDTH_SILVERMAN, 0);
	TAPAS_CHECK(fabs(tapas_density_bandwidth(m) -
					 sqrt(var) * pow(50 * 6 / 4.0, -1.0 / 8)) < 1e-12);
	tapas_density_free(m);
	tapas_dataset_free(ds);
}

static void
test_independent_hand(void)
{
	tapas_column_spec_t specs[2] = {{TAPAS_COLUMN_CATEGORICAL, 3, 0, 0},
	{TAPAS_COLUMN_CONTINUOUS, 0, 0, 4}};
	double		v[8] = {0, 0.5, 0, 1.5, 1, 3.9, 2, 4};
	double		x[2] = {0, 3.5},
				y[2] = {2, -7};
	tapas_dataset_t *ds = tapas_dataset_from_values(4, 2, specs, v);
	tapas_density_t *m = tapas_density_fit_independent(ds, 2, 1.0);

	/* p(cat 0) = (2+1)/(4+3); bin [2,4] holds 2 -> (2+1)/(4+2) / width 2 */
	TAPAS_CHECK_MSG(fabs(tapas_density_log(m, x, NULL) -
						 log(3.0 / 7 * (3.0 / 6) / 2)) < 1e-12,
					"log p %g", tapas_density_log(m, x, NULL));
	/* -7 falls in the lower edge bin */
	TAPAS_CHECK(fabs(tapas_density_log(m, y, NULL) -
					 log(2.0 / 7 * (3.0 / 6) / 2)) < 1e-12);
	TAPAS_CHECK(isnan(tapas_density_bandwidth(m)));
	tapas_density_free(m);
	TAPAS_CHECK(tapas_density_fit_independent(ds, 0, 1.0) == NULL);
	tapas_dataset_free(ds);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

/*
 * No synthetic rows: -log n and the smoothed frequencies (count + alpha) /
 * (n + alpha card) would take log(0) or 0/0, so neither fit may return a
 * model (NULL is "bad parameters"), encoded or not, whatever alpha.
 */
static void
test_empty_dataset(void)
{
	tapas_column_spec_t specs[2] = {{TAPAS_COLUMN_CATEGORICAL, 3, 0, 0},
	{TAPAS_COLUMN_CONTINUOUS, 0, 0, 4}};
	double		v[1] = {0};
	tapas_dataset_t *ds = tapas_dataset_from_values(0, 2, specs, v);

	TAPAS_CHECK(ds != NULL);
	if (ds == NULL)
		return;
	TAPAS_CHECK(tapas_density_fit_independent(ds, 2, 1.0) == NULL);
	TAPAS_CHECK(tapas_density_fit_independent(ds, 2, 0.0) == NULL);
	TAPAS_CHECK(tapas_density_fit_kde(ds, TAPAS_BANDWIDTH_FIXED, 0.5) == NULL);
	if (tapas_dataset_encode(ds) == TAPAS_OK)
	{
		TAPAS_CHECK(tapas_density_fit_kde(ds, TAPAS_BANDWIDTH_FIXED, 0.5) == NULL);
		TAPAS_CHECK(tapas_density_fit_kde(ds, TAPAS_BANDWIDTH_SCOTT, 0) == NULL);
		TAPAS_CHECK(tapas_density_fit_kde(ds, TAPAS_BANDWIDTH_SILVERMAN, 0) == NULL);
	}
	tapas_dataset_free(ds);
	TAPAS_CHECK(tapas_memory_live() == 0);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_kde_hand);
	TAPAS_TEST_RUN(test_kde_random_and_rules);
	TAPAS_TEST_RUN(test_independent_hand);
	TAPAS_TEST_RUN(test_empty_dataset);
	TAPAS_TEST_DONE();
}
