/*
 * t-fwht.c
 *	  Unit tests for src/recon/fwht.c.
 *
 * Oracle: the O(n^2) product with H_n[i][j] = (-1)^popcount(i & j), for
 * every size up to 2^11 (which covers the single-block path) and for sizes
 * that use the row/column split, where the product is checked on a sample
 * of outputs and the involution H H = n I on the whole vector.
 */
#include <math.h>
#include <string.h>

#include "util/memory.h"
#include "util/rng.h"
#include "recon/fwht.h"
#include "tapas_test.h"

static int64_t
hadamard_entry(size_t i, size_t j)
{
	return __builtin_popcountll((unsigned long long) (i & j)) & 1 ? -1 : 1;
}

/* random integer vectors of length n, double and int64 copies */
static void
fill(tapas_rng_t *rng, double *xd, int64_t *xi, size_t n)
{
	size_t		j;

	for (j = 0; j < n; j++)
	{
		xi[j] = (int64_t) tapas_rng_below(rng, 2001) - 1000;
		xd[j] = (double) xi[j];
	}
}

/* checks outputs i in [0, n) with step against the O(n) row product */
static int
check_rows(const int64_t *x0, const double *yd, const int64_t *yi,
		   size_t n, size_t step)
{
	size_t		i,
				j;

	for (i = 0; i < n; i += step)
	{
		int64_t		want = 0;

		for (j = 0; j < n; j++)
			want += hadamard_entry(i, j) * x0[j];
		if (yi[i] != want || yd[i] != (double) want)
		{
			fprintf(stderr, "    n=%zu i=%zu want %lld got %lld / %.1f\n",
					n, i, (long long) want, (long long) yi[i], yd[i]);
			return 0;
		}
	}
	return 1;
}

static void
run_size(tapas_rng_t *rng, size_t n, size_t step)
{
	double	   *xd = tapas_malloc(n * sizeof(double));
	int64_t    *xi = tapas_malloc(n * sizeof(int64_t));
	int64_t    *x0 = tapas_malloc(n * sizeof(int64_t));
	double	   *xr = tapas_malloc(n * sizeof(double));
	size_t		j;
	int			same = 1;

	fill(rng, xd, xi, n);
	memcpy(x0, xi, n * sizeof(int64_t));
	memcpy(xr, xd, n * sizeof(double));
	TAPAS_CHECK(tapas_fwht_double(xd, n, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_fwht_int64(xi, n, NULL) == TAPAS_OK);
	TAPAS_CHECK(tapas_fwht_double_radix2(xr, n) == TAPAS_OK);
	TAPAS_CHECK_MSG(check_rows(x0, xd, xi, n, step), "n = %zu", n);
	for (j = 0; j < n; j++)
		same &= xr[j] == xd[j];
	TAPAS_CHECK_MSG(same, "radix-2 baseline differs at n = %zu", n);
	/* involution: H (H x) = n x */
	TAPAS_CHECK(tapas_fwht_int64(xi, n, NULL) == TAPAS_OK);
	for (j = 0; j < n; j++)
		same &= xi[j] == (int64_t) n * x0[j];
	TAPAS_CHECK_MSG(same, "H H x != n x at n = %zu", n);
	tapas_free(xd);
	tapas_free(xi);
	tapas_free(x0);
	tapas_free(xr);
}

static void
test_fwht_small_exhaustive(void)
{
	tapas_rng_t rng;
	size_t		n;

	tapas_rng_seed(&rng, tapas_test_seed());
	for (n = 1; n <= 2048; n *= 2)
		run_size(&rng, n, 1);
}

static void
test_fwht_split_sizes(void)
{
	tapas_rng_t rng;
	int			p;

	tapas_rng_seed(&rng, tapas_test_seed() + 1);
	/* 2^13 .. 2^20 use R > 1 rows; sample about 64 outputs each */
	for (p = 13; p <= 20; p++)
		run_size(&rng, (size_t) 1 << p, ((size_t) 1 << p) / 61);
}

static int
cancel_now(void *arg, double fraction)
{
	(*(int *) arg)++;
	return 1;
}

static void
test_fwht_errors(void)
{
	double		x[16] = {0};
	int64_t		y[16] = {0};
	int			calls = 0;
	tapas_progress_t stop = {cancel_now, &calls};
	double	   *big;
	long		live = tapas_memory_live();

	TAPAS_CHECK(tapas_fwht_double(x, 0, NULL) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_fwht_double(x, 12, NULL) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_fwht_int64(y, 3, NULL) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_fwht_double(NULL, 16, NULL) == TAPAS_EINVAL);
	TAPAS_CHECK(tapas_fwht_double_radix2(x, 6) == TAPAS_EINVAL);
	TAPAS_CHECK(!tapas_fwht_size_ok(((size_t) 1 << TAPAS_FWHT_MAX_LOG2) * 2));
	TAPAS_CHECK(tapas_fwht_size_ok((size_t) 1 << TAPAS_FWHT_MAX_LOG2));

	big = tapas_calloc((size_t) 1 << 16, sizeof(double));
	TAPAS_CHECK(tapas_fwht_double(big, (size_t) 1 << 16, &stop) == TAPAS_ECANCELED);
	TAPAS_CHECK(calls == 1);
	/* scratch allocation failure */
	tapas_memory_fail_after(0);
	TAPAS_CHECK(tapas_fwht_double(big, (size_t) 1 << 16, NULL) == TAPAS_ENOMEM);
	tapas_memory_fail_after(-1);
	tapas_free(big);
	TAPAS_CHECK(tapas_memory_live() == live);
}

int
main(void)
{
	TAPAS_TEST_RUN(test_fwht_small_exhaustive);
	TAPAS_TEST_RUN(test_fwht_split_sizes);
	TAPAS_TEST_RUN(test_fwht_errors);
	TAPAS_TEST_DONE();
}
